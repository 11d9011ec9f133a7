import type { JournalRecord } from './record.js';

/**
 * Where a submission journal keeps its records. The default is {@link FileJournalStore}; a
 * service can keep the journal in its own database by implementing this (see docs/bulk-filing.md,
 * "Keeping the journal in your database").
 */
export interface JournalStore {
  /**
   * Takes the journal for this run: after it, no other run may append until `close()`.
   * Rejects with `JournalError` (`locked`) when another run holds it.
   */
  open(): Promise<void>;
  /** Every record written so far, oldest first (a key's latest record is its state). */
  load(): AsyncIterable<JournalRecord>;
  /**
   * Writes one record. Resolves only once the record is durable (it survives a crash of the
   * process and of the machine); the runner sends a POST only after its `sending` record resolved.
   */
  append(record: JournalRecord): Promise<void>;
  /**
   * Optional, for a journal shared by several machines: writes the `sending` record only if
   * the key's latest record is still `previous` (`undefined`: no record), atomically, and
   * says whether it did. When another machine took the key first, it resolves `false` and
   * the claim is not sent by this run.
   */
  claim?(record: JournalRecord, previous: JournalRecord | undefined): Promise<boolean>;
  /** Releases the journal (its lock); pending appends settle first. */
  close(): Promise<void>;
}
