import type { JournalRecord } from './record.js';

/** How a journal is opened: see {@link JournalStore.open}. */
export interface JournalOpenOptions {
  /**
   * Only to read it (`claims journal list`): the store writes nothing at all (no lock, no
   * repair, no table or file created), may be opened while runs use the journal, and refuses
   * `append` and `claim` (`JournalError` `read_only`). A journal that does not exist is
   * refused (`JournalError` `not_found`) rather than created.
   * @default false
   */
  readOnly?: boolean;
}

/** What {@link JournalStore.claim} did. */
export type ClaimAnswer =
  | {
      /** The record was written: this run holds the key. */
      taken: true;
    }
  | {
      /** Not written: the key's latest record is no longer the one given as `previous`. */
      taken: false;
      /** The key's latest record as it is now, which the run decides on again. */
      latest: JournalRecord;
    };

/**
 * Where a submission journal keeps its records. The default is {@link FileJournalStore}; a
 * service can keep the journal in its own database by implementing this, and check its store
 * with `journalStoreContract` from `claims-notification-sdk/batch/testing` (see docs/bulk-filing.md,
 * "Keeping the journal in your database").
 *
 * A store is either **single-run** (`shared: false`): `open()` takes the whole journal for
 * one run and refuses others (`JournalError` `locked`), as the file store does; or **shared**
 * (`shared: true`): any number of runs, on any number of machines, use it at once, and
 * `claim` decides per key which run sends it.
 */
export interface JournalStore {
  /**
   * Whether runs may use this journal at the same time. `false`: `open()` excludes every other
   * run, and a `sending` record found by `load()` was left by a run that died. `true`: each
   * key is taken by `claim`, and the store marks `sending` records of live runs with
   * `heldElsewhere: true`.
   */
  readonly shared: boolean;
  /**
   * Opens the journal. A single-run store takes it for this run alone, refusing with
   * `JournalError` `locked` while another run holds it; a shared store does not exclude
   * anyone. With `{ readOnly: true }` nothing is written (see {@link JournalOpenOptions}).
   */
  open(options?: JournalOpenOptions): Promise<void>;
  /**
   * Every record written so far, oldest first, or only the latest record of each key (a
   * key's latest record is its state). Records come back with the fields and types they
   * were written with: a key written as `"7001"` is loaded as the string `"7001"`.
   *
   * A shared store's `load()` is also called while the journal is open and in use: a run that
   * met another one filing the same batch reads the journal again (at most 32 times a run) to
   * learn which keys the others settled meanwhile, and must get their records as they are now.
   */
  load(): AsyncIterable<JournalRecord>;
  /**
   * Optional, for a shared store: the latest record of each key changed since this store last
   * answered `load()` or `loadChanges()` in full (before either: every key's, as `load()`),
   * `heldElsewhere` marked as `load()` marks it. A run that met another one reads the journal
   * again with it instead of `load()` (see `load`), so a read costs the records changed since
   * the last one, not every record of the journal.
   *
   * It need not be exact, in either direction:
   * - it may return a record that did not change (a store that cannot tell exactly returns a
   *   few too many): the run takes it as it takes any record read, harmless;
   * - a change it misses (including a key whose record is unchanged but whose run died, so it
   *   is no longer `heldElsewhere`) costs the run one refused `claim` later: the run's record of
   *   that key is then older than the store's, so its `claim` is refused with the latest record,
   *   which the run decides on again. `claim` alone decides who sends a key, so no claim is sent
   *   twice or left out because of what this returns, and records this store wrote itself may
   *   be left out (the run knows them).
   *
   * A store without it is read again with `load()`.
   */
  loadChanges?(): AsyncIterable<JournalRecord>;
  /**
   * The per-key conditional write: writes `record` only if the key's latest record is still
   * `previous` (`undefined`: the key has no record), atomically with that check, durably
   * before it resolves. The runner writes each claim's `sending` record with it, and a
   * person's resolution of a key (`Journal.resolve`) too. A shared store compares with what
   * it holds now, so that of several runs exactly one takes a key, and gives a `sending`
   * record written here a lease that it keeps renewing until the key's next record or
   * `close()`. A single-run store, whose run holds the whole journal, may write at once.
   */
  claim(record: JournalRecord, previous: JournalRecord | undefined): Promise<ClaimAnswer>;
  /**
   * Writes one record of a key this run holds (a claim's result after its `sending` record).
   * Resolves only once the record is durable: it survives a crash of the process and of the
   * machine.
   */
  append(record: JournalRecord): Promise<void>;
  /**
   * Releases the journal (a single-run store's lock; a shared store's leases stop being
   * renewed). Appends under way settle first.
   */
  close(): Promise<void>;
  /**
   * Optional: a back-off shared by every run using this journal. The runner calls it when the
   * API tells a run to wait (a 429, or any answer with `Retry-After`, e.g. a 503): no run
   * sharing the journal sends a claim until `ms` from now (a longer back-off already set
   * stays). A shared store keeps it where every run reads it (the PostgreSQL store: the
   * `<table>_meta` row `backoff`, on the database's clock); a single-run store may keep it in
   * memory. Its failure does not stop the batch: this run waits anyway.
   * @param ms how long from now, in ms.
   */
  pauseAll?(ms: number): Promise<void>;
  /**
   * Optional, with `pauseAll`: until when the shared back-off holds, in ms since the epoch on
   * this machine's clock (0 or a past time: none), as this store last read it: answered
   * without a round trip, so the runner asks before every claim. A shared store reads it
   * alongside its writes (each `claim` and `append`), so every run sees another's back-off by
   * its next claim.
   */
  pausedUntil?(): number;
}
