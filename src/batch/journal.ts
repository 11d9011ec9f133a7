import { JournalError } from './errors.js';
import { FileJournalStore } from './file-store.js';
import type { JournalRecord, JournalState } from './record.js';
import type { JournalStore } from './store.js';

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
 * {@link JournalStore}. Open it with {@link Journal.open}; close it when done (it holds a lock).
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
  readonly #latest = new Map<string, JournalRecord>();
  #closed = false;

  private constructor(store: JournalStore) {
    this.store = store;
  }

  /** Opens (and locks) a journal: a file path for the default file store, or a store of yours. */
  static async open(where: string | JournalStore): Promise<Journal> {
    const store = typeof where === 'string' ? new FileJournalStore(where) : where;
    await store.open();
    const journal = new Journal(store);
    try {
      for await (const record of store.load()) journal.#latest.set(record.key, record);
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

  /** Keys whose claim may exist and that are not sent again until resolved: `sending` and `unknown`. */
  needingReview(): JournalRecord[] {
    return [...this.#latest.values()].filter((r) => r.state === 'sending' || r.state === 'unknown');
  }

  /** Writes a record durably; it becomes its key's state once this resolves. */
  write(record: JournalRecord): Promise<void> {
    if (this.#closed) return Promise.reject(new JournalError('closed', 'The journal is closed'));
    // `then`, not `async`/`await`: two records a claim, one promise each fewer.
    return settle(() => this.store.append(record)).then(() => {
      this.#latest.set(record.key, record);
    });
  }

  /**
   * Writes the `sending` record of a claim about to be sent. With a store shared by several
   * machines (one that has `claim`), false when another machine took the key first.
   */
  begin(record: JournalRecord): Promise<boolean> {
    if (this.#closed) return Promise.reject(new JournalError('closed', 'The journal is closed'));
    const claim = this.store.claim;
    if (!claim) return this.write(record).then(() => true);
    const previous = this.#latest.get(record.key);
    return settle(() => claim.call(this.store, record, previous)).then((taken) => {
      if (taken) this.#latest.set(record.key, record);
      return taken;
    });
  }

  /**
   * Settles a key whose claim may exist (`sending` or `unknown`) after you looked on the
   * server's side: `{ filed: incidentId }` (it exists; never sent again) or `{ notFiled: true }`
   * (it does not; sent on the next run).
   * @throws JournalError `unknown_key` / `not_resolvable` for a key not awaiting review.
   */
  async resolve(key: string, resolution: Resolution): Promise<JournalRecord> {
    const previous = this.#latest.get(key);
    if (!previous) throw new JournalError('unknown_key', `The journal has no key ${JSON.stringify(key)}`);
    if (!REVIEWABLE.has(previous.state)) {
      throw new JournalError(
        'not_resolvable',
        `Key ${JSON.stringify(key)} is ${previous.state}; only sending or unknown keys need resolving`,
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
    await this.write(record);
    return record;
  }

  /** Releases the journal and its lock; pending writes settle first. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.store.close();
  }
}

/** A store's promise; a store of yours that throws instead of rejecting rejects here too. */
function settle<T>(call: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

const REVIEWABLE: ReadonlySet<JournalState> = new Set(['sending', 'unknown']);

function checkIncidentId(incidentId: string): string {
  if (typeof incidentId !== 'string' || incidentId.trim() === '') {
    throw new JournalError('not_resolvable', 'A filed resolution needs the incidentId the server gave');
  }
  return incidentId;
}
