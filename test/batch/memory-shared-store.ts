import { JournalError } from '../../src/batch/errors.js';
import type { JournalRecord } from '../../src/batch/record.js';
import type { ClaimAnswer, JournalOpenOptions, JournalStore } from '../../src/batch/store.js';

/** One key's row: its latest record, and the run holding it while its claim is in flight. */
interface Row {
  record: JournalRecord;
  holder: number | undefined;
  leaseUntil: number;
  /** When it was last written, on the journals' write counter (for `loadChanges`). */
  written: number;
}

/**
 * A shared journal store in memory, for tests: what a database store does (one row per key,
 * `claim` as a compare-and-set, leases renewed while a run lives), so the shared cases of
 * the contract suite and the runner's shared paths run here. `journals` is the "database".
 */
export class MemorySharedStore implements JournalStore {
  readonly shared = true;
  static readonly journals = new Map<string, Map<string, Row>>();
  static #runs = 0;
  static #writes = 0;
  readonly #id = ++MemorySharedStore.#runs;
  /** The write counter when this store last read the journal in full (`load` or `loadChanges`). */
  #read = 0;
  /** With `changes`: only the rows written since this store's last read (as a database store does). */
  readonly loadChanges?: () => AsyncIterable<JournalRecord>;
  #rows: Map<string, Row> | undefined;
  #readOnly = false;
  #renewal: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly name: string,
    readonly leaseMs = 300,
    changes = false,
  ) {
    if (changes) this.loadChanges = () => this.#load(this.#read);
  }

  async open(options: JournalOpenOptions = {}): Promise<void> {
    const existing = MemorySharedStore.journals.get(this.name);
    if (options.readOnly) {
      if (!existing) throw new JournalError('not_found', `no journal ${this.name}`);
      this.#readOnly = true;
      this.#rows = existing;
      return;
    }
    this.#rows = existing ?? new Map();
    MemorySharedStore.journals.set(this.name, this.#rows);
    this.#renewal = setInterval(() => this.#renew(), this.leaseMs / 3);
    this.#renewal.unref();
  }

  load(): AsyncIterable<JournalRecord> {
    return this.#load(0);
  }

  async *#load(since: number): AsyncGenerator<JournalRecord> {
    const now = Date.now();
    const upTo = MemorySharedStore.#writes;
    for (const row of this.#open().values()) if (row.written > since) yield this.#view(row, now);
    this.#read = upTo;
  }

  async claim(record: JournalRecord, previous: JournalRecord | undefined): Promise<ClaimAnswer> {
    const rows = this.#writable();
    await Promise.resolve(); // a database round trip: others may come in between
    const row = rows.get(record.key);
    if (!sameRecord(row?.record, previous))
      return { taken: false, latest: this.#view(row as Row, Date.now()) };
    rows.set(record.key, {
      record: { ...record },
      holder: record.state === 'sending' ? this.#id : undefined,
      leaseUntil: Date.now() + this.leaseMs,
      written: ++MemorySharedStore.#writes,
    });
    return { taken: true };
  }

  async append(record: JournalRecord): Promise<void> {
    const rows = this.#writable();
    await Promise.resolve();
    rows.set(record.key, {
      record: { ...record },
      holder: undefined,
      leaseUntil: 0,
      written: ++MemorySharedStore.#writes,
    });
  }

  async close(): Promise<void> {
    clearInterval(this.#renewal);
    this.#renewal = undefined;
    this.#rows = undefined;
  }

  #renew(): void {
    for (const row of this.#rows?.values() ?? []) {
      if (row.holder === this.#id) row.leaseUntil = Date.now() + this.leaseMs;
    }
  }

  #view(row: Row, now: number): JournalRecord {
    // Another run's: this run's own `sending` records are not held elsewhere.
    const live =
      row.record.state === 'sending' &&
      row.holder !== undefined &&
      row.holder !== this.#id &&
      row.leaseUntil > now;
    return live ? { ...row.record, heldElsewhere: true } : { ...row.record };
  }

  #open(): Map<string, Row> {
    if (!this.#rows) throw new JournalError('closed', 'closed');
    return this.#rows;
  }

  #writable(): Map<string, Row> {
    if (this.#readOnly) throw new JournalError('read_only', 'read-only');
    return this.#open();
  }
}

function sameRecord(a: JournalRecord | undefined, b: JournalRecord | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.state === b.state && a.at === b.at && a.bodyHash === b.bodyHash;
}
