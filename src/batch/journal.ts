import { echo } from './echo.js';
import { JournalError } from './errors.js';
import { FileJournalStore } from './file-store.js';
import { type JournalRecord, recordProblem } from './record.js';
import type { ClaimAnswer, JournalOpenOptions, JournalStore } from './store.js';

/** How a person settles a key whose claim may or may not exist. */
export type Resolution =
  | {
      /** The claim was filed: the `incidentId` found on the server, e.g. `'INC-123'`. */
      filed: string;
    }
  | {
      /** The claim was not filed: it is sent again on the next run. */
      notFiled: true;
    };

/**
 * The submission journal: the latest record of every key, kept in memory, over a durable
 * {@link JournalStore}. Open it with {@link Journal.open}; close it when done (a single-run
 * store holds a lock).
 *
 * @example
 * const journal = await Journal.open('claims.jsonl.journal');
 * for (const record of journal.needingReview()) console.log(record.key, record.state);
 * await journal.resolve('A-17', { filed: 'INC-123' });
 * await journal.close();
 */
export class Journal {
  /** Where the records are kept: the default file store, or the store you opened it with. */
  readonly store: JournalStore;
  /** Opened with `{ readOnly: true }`: nothing can be written. */
  readonly readOnly: boolean;
  readonly #latest = new Map<string, JournalRecord>();
  #closed = false;

  private constructor(store: JournalStore, readOnly: boolean) {
    this.store = store;
    this.readOnly = readOnly;
  }

  /**
   * Opens a journal: a file path for the default file store, or a store of yours. A
   * single-run store is locked until `close()`. Every record loaded is checked: a journal
   * whose records do not fit (a key that is not a string, a state that is not one) is refused
   * with `JournalError` `corrupt`, naming the record, and nothing is sent.
   * @param options `{ readOnly: true }` to only read it: nothing is written, no lock taken, and a
   *   missing journal is refused (`not_found`) rather than created.
   */
  static async open(where: string | JournalStore, options: JournalOpenOptions = {}): Promise<Journal> {
    const store = typeof where === 'string' ? new FileJournalStore(where) : checkStore(where);
    const readOnly = options.readOnly === true;
    await store.open(readOnly ? { readOnly } : {});
    const journal = new Journal(store, readOnly);
    try {
      let index = 0;
      for await (const record of store.load()) {
        index++;
        // Checked before its key is read: a store of yours may yield `null`.
        const checked = checkLoaded(record, store.shared, index);
        journal.#latest.set(checked.key, checked);
      }
    } catch (error) {
      await store.close();
      throw error;
    }
    return journal;
  }

  /** The latest record of a key, if any. */
  get(key: string): JournalRecord | undefined {
    return this.#latest.get(key);
  }

  /** The latest record of every key, in the order keys were first written. */
  records(): IterableIterator<JournalRecord> {
    return this.#latest.values();
  }

  /**
   * Keys whose claim may exist and that are not sent again until resolved: `sending` (but not
   * another live run's, `heldElsewhere`) and `unknown`.
   */
  needingReview(): JournalRecord[] {
    return [...this.#latest.values()].filter(needsReview);
  }

  /**
   * Reads a shared store's records again (what other runs sharing it wrote since it was
   * opened), checked as at the open: only those changed since the store's last read when it
   * has `loadChanges`, else every record (`load`). Each record is offered to `take`, and
   * becomes its key's latest record here when `take` answers true (the runner takes on only
   * keys it has not asked the store for yet: a key it holds keeps what its own writes said).
   * @internal
   */
  async reread(take: (record: JournalRecord) => boolean): Promise<void> {
    const store = this.store;
    const records = typeof store.loadChanges === 'function' ? store.loadChanges() : store.load();
    for await (const record of records) {
      // No index: a record that does not fit fails the read, which the runner does without.
      const checked = checkLoaded(record, store.shared, 0);
      if (take(checked)) this.#latest.set(checked.key, checked);
    }
  }

  /** Writes a record durably; it becomes its key's state once this resolves. */
  write(record: JournalRecord): Promise<void> {
    const refused = this.#refusal();
    if (refused) return Promise.reject(refused);
    // `then`, not `async`/`await`: two records a claim, one promise each fewer.
    return settle(() => this.store.append(record)).then(() => {
      this.#latest.set(record.key, record);
    });
  }

  /**
   * Writes a record only if its key's latest record is still the one this journal holds
   * (the store's `claim`): the `sending` record of a claim about to be sent. Resolves to the
   * store's answer; when it did not write (another run sharing the journal changed the key
   * first), the key's latest record becomes the one the store gave.
   */
  begin(record: JournalRecord): Promise<ClaimAnswer> {
    const refused = this.#refusal();
    if (refused) return Promise.reject(refused);
    const previous = this.#latest.get(record.key);
    return settle(() => this.store.claim(record, previous)).then((answer) => {
      const checked = checkAnswer(answer, record.key, this.store.shared);
      this.#latest.set(record.key, checked.taken ? record : checked.latest);
      return checked;
    });
  }

  /**
   * Settles a key whose claim may exist (`sending` or `unknown`) after you looked on the
   * server's side: `{ filed: incidentId }` (it exists; never sent again) or `{ notFiled: true }`
   * (it does not; sent on the next run). Written only if the key has not changed meanwhile.
   * @throws JournalError `unknown_key` / `not_resolvable` for a key not awaiting review (or
   *   another live run's claim in flight).
   */
  async resolve(key: string, resolution: Resolution): Promise<JournalRecord> {
    const previous = this.#latest.get(key);
    if (!previous) throw new JournalError('unknown_key', `The journal has no key ${echo(key)}`);
    if (!needsReview(previous)) {
      throw new JournalError(
        'not_resolvable',
        previous.heldElsewhere
          ? `Key ${echo(key)} is being sent by another run now; it cannot be resolved`
          : `Key ${echo(key)} is ${previous.state}; only sending or unknown keys need resolving`,
      );
    }
    const base = {
      key,
      bodyHash: previous.bodyHash,
      at: new Date().toISOString(),
      resolvedBy: 'user',
    } as const;
    const record: JournalRecord =
      'filed' in resolution
        ? { ...base, state: 'filed', incidentId: checkIncidentId(resolution.filed) }
        : { ...base, state: 'not_sent', error: 'resolved as not filed' };
    const answer = await this.begin(record);
    if (!answer.taken) {
      throw new JournalError(
        'not_resolvable',
        `Key ${echo(key)} changed meanwhile (it is now ${answer.latest.state}); nothing was written`,
      );
    }
    return record;
  }

  /** Releases the journal and its lock; pending writes settle first. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.store.close();
  }

  #refusal(): JournalError | undefined {
    if (this.#closed) return new JournalError('closed', 'The journal is closed');
    if (this.readOnly) return new JournalError('read_only', 'The journal was opened read-only');
    return undefined;
  }
}

function needsReview(record: JournalRecord): boolean {
  return record.state === 'unknown' || (record.state === 'sending' && record.heldElsewhere !== true);
}

const STORE_METHODS = ['open', 'load', 'claim', 'append', 'close'] as const;

/** A store of yours must be what the contract asks: a JavaScript store written for the old one is refused, not guessed at. */
function checkStore(store: JournalStore): JournalStore {
  const missing: string[] = STORE_METHODS.filter(
    (name) => typeof (store as unknown as Record<string, unknown>)?.[name] !== 'function',
  );
  if (typeof store?.shared !== 'boolean') missing.unshift('shared (true or false)');
  if (missing.length > 0) {
    throw new JournalError(
      'invalid_store',
      `The journal store lacks ${missing.join(', ')}: see JournalStore (a store says whether it is shared, and claim() is required)`,
    );
  }
  return store;
}

/** A record from the store, checked: one that does not fit could let a filed claim be sent again. */
function checkLoaded(record: JournalRecord, shared: boolean, index: number): JournalRecord {
  const problem = recordProblem(record) ?? (shared ? undefined : singleRunProblem(record));
  if (problem === undefined) return record;
  const key =
    typeof (record as { key?: unknown } | null)?.key === 'string' ? ` (key ${echo(record.key)})` : '';
  throw new JournalError(
    'corrupt',
    `The journal's record ${index}${key} does not fit: ${problem}. Nothing was sent; the journal was not changed.`,
  );
}

function singleRunProblem(record: JournalRecord): string | undefined {
  return record.heldElsewhere === undefined ? undefined : 'a single-run store cannot say heldElsewhere';
}

function checkAnswer(answer: ClaimAnswer, key: string, shared: boolean): ClaimAnswer {
  if (answer?.taken === true) return answer;
  if (answer?.taken === false) {
    const problem =
      recordProblem(answer.latest) ?? (answer.latest.key === key ? undefined : "it is another key's");
    if (problem === undefined) return { taken: false, latest: checkLoaded(answer.latest, shared, 0) };
    throw new JournalError(
      'invalid_store',
      `The journal store's claim() answered a latest record that does not fit: ${problem}`,
    );
  }
  throw new JournalError(
    'invalid_store',
    "The journal store's claim() did not answer { taken: true } or { taken: false, latest }",
  );
}

/** A store's promise; a store of yours that throws instead of rejecting rejects here too. */
function settle<T>(call: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

function checkIncidentId(incidentId: string): string {
  if (typeof incidentId !== 'string' || incidentId.trim() === '') {
    throw new JournalError('not_resolvable', 'A filed resolution needs the incidentId the server gave');
  }
  return incidentId;
}
