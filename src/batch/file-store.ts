// The module object, not named imports: its functions are looked up per call (tests count syncs).
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, readFile, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { JournalError } from './errors.js';
import { acquireLock } from './lock-file.js';
import { decodeRecord, encodeLine, type JournalRecord } from './record.js';
import type { JournalStore } from './store.js';

interface Pending {
  line: string;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The default journal store: an append-only file of checksummed JSON lines, made durable with
 * `fdatasync` before each write resolves, locked by a `<path>.lock` file.
 *
 * Group commit: one `fdatasync` at a time; every record appended while it runs is queued, and
 * when it returns the whole queue goes out in one `write` and one `fdatasync`. With 16 claims
 * in flight one sync serves many records, and a record waits for at most the sync under way
 * plus its own. A `sending` record (a POST waits on it) starts a commit at once; a final record
 * alone waits one turn of the event loop, so that the next claim's `sending` record, appended
 * meanwhile, shares its sync instead of queueing behind it.
 *
 * On open, every complete record is kept. A torn last line (a crash mid-write) is dropped and
 * cut off the file: it never resolved its `append`, so the claim it was about was not sent
 * after it (for `sending`), or its key stays `sending` for review (for a final record).
 */
export class FileJournalStore implements JournalStore {
  /** The journal file, as given; its lock is `<path>.lock`. */
  readonly path: string;
  #records: JournalRecord[] | undefined;
  #handle: FileHandle | undefined;
  #unlock: (() => Promise<void>) | undefined;
  /** Appended, not yet written: the next commit group. */
  #pending: Pending[] = [];
  #pendingHasSending = false;
  /** An `fdatasync` is under way (at most one). */
  #syncing = false;
  #commitSoon = false;
  #commitNextTurn = false;
  /** Waiters of `close()`, told once nothing is queued or syncing. */
  #drained: (() => void)[] = [];
  #broken: unknown;

  constructor(path: string) {
    this.path = path;
  }

  async open(): Promise<void> {
    if (this.#unlock) return;
    try {
      this.#unlock = await acquireLock(`${this.path}.lock`);
    } catch (error) {
      throw asJournalError(error, `Cannot lock the journal ${this.path}`);
    }
    try {
      const { records, goodBytes, fileBytes } = await this.#scan();
      if (goodBytes < fileBytes) await truncate(this.path, goodBytes);
      this.#records = records;
      const existed = fileBytes > 0;
      this.#handle = await open(this.path, 'a');
      if (!existed) await syncDirectory(dirname(this.path));
    } catch (error) {
      await this.#unlock();
      this.#unlock = undefined;
      throw asJournalError(error, `Cannot open the journal ${this.path}`);
    }
  }

  async *load(): AsyncIterable<JournalRecord> {
    const records = this.#records ?? (await this.#scan()).records;
    this.#records = undefined;
    yield* records;
  }

  append(record: JournalRecord): Promise<void> {
    if (!this.#handle) return Promise.reject(new JournalError('closed', 'The journal is not open'));
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      this.#pending.push({ line: encodeLine(record), resolve, reject });
      if (record.state === 'sending') this.#pendingHasSending = true;
      this.#schedule();
    });
  }

  async close(): Promise<void> {
    if (this.#pending.length > 0 || this.#syncing) {
      await new Promise<void>((resolve) => {
        this.#drained.push(resolve);
        this.#commit();
      });
    }
    await this.#handle?.close();
    this.#handle = undefined;
    await this.#unlock?.();
    this.#unlock = undefined;
  }

  /**
   * Starts a commit unless one is syncing (its end starts the next). A `sending` record starts
   * it within this turn (after the appends of the same turn); final records alone, next turn.
   */
  #schedule(): void {
    if (this.#syncing || this.#pending.length === 0) return;
    if (this.#pendingHasSending) {
      if (this.#commitSoon) return;
      this.#commitSoon = true;
      queueMicrotask(() => {
        this.#commitSoon = false;
        this.#commit();
      });
    } else {
      if (this.#commitNextTurn) return;
      this.#commitNextTurn = true;
      setImmediate(() => {
        this.#commitNextTurn = false;
        this.#commit();
      });
    }
  }

  /**
   * Writes the whole queue in one `write` and starts its `fdatasync`; each record resolves when
   * that sync returns. The write is synchronous: an append to the page cache takes microseconds,
   * less than a trip through the thread pool, where it would also queue behind the sync.
   */
  #commit(): void {
    if (this.#syncing || !this.#handle) return;
    const group = this.#pending;
    if (group.length === 0) {
      for (const done of this.#drained.splice(0)) done();
      return;
    }
    this.#pending = [];
    this.#pendingHasSending = false;
    const handle = this.#handle as FileHandle;
    try {
      let text = '';
      for (const p of group) text += p.line;
      const bytes = Buffer.from(text, 'utf8');
      for (let written = 0; written < bytes.length; ) {
        written += fs.writeSync(handle.fd, bytes, written);
      }
    } catch (error) {
      this.#fail(group, error);
      return;
    }
    this.#syncing = true;
    // fs.fdatasync with a callback: a fifth less CPU per sync than FileHandle.datasync().
    fs.fdatasync(handle.fd, (error) => {
      this.#syncing = false;
      if (error) return this.#fail(group, error);
      for (const p of group) p.resolve();
      if (this.#drained.length > 0) this.#commit();
      else this.#schedule();
    });
  }

  /** A record that may be half written: nothing after it may claim to be durable. */
  #fail(batch: Pending[], error: unknown): void {
    this.#broken ??= new JournalError('io', `Writing the journal ${this.path} failed`, { cause: error });
    for (const p of [...batch, ...this.#pending]) p.reject(this.#broken);
    this.#pending = [];
    this.#pendingHasSending = false;
    for (const done of this.#drained.splice(0)) done();
  }

  async #scan(): Promise<{ records: JournalRecord[]; goodBytes: number; fileBytes: number }> {
    let data: Buffer;
    try {
      data = await readFile(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { records: [], goodBytes: 0, fileBytes: 0 };
      throw error;
    }
    const records: JournalRecord[] = [];
    let offset = 0;
    let lineNumber = 0;
    while (offset < data.length) {
      lineNumber++;
      const end = data.indexOf(0x0a, offset);
      const record = end === -1 ? undefined : decodeRecord(data.subarray(offset, end));
      if (record === undefined) {
        // Only the last line can be torn by a crash; a damaged line before complete ones is not a tear.
        const rest = end === -1 ? -1 : data.indexOf(0x0a, end + 1);
        if (rest !== -1) {
          throw new JournalError(
            'corrupt',
            `The journal ${this.path} is damaged at line ${lineNumber}, before other complete records: it was not written by one run of this SDK alone.`,
          );
        }
        break;
      }
      records.push(record);
      offset = end + 1;
    }
    return { records, goodBytes: offset, fileBytes: data.length };
  }
}

function asJournalError(error: unknown, message: string): JournalError {
  if (error instanceof JournalError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new JournalError('io', `${message}${code ? ` (${code})` : ''}`, { cause: error });
}

/** Makes a new file's directory entry durable too (Linux and macOS; a no-op where unsupported). */
async function syncDirectory(path: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open a directory; its file system journals the entry itself.
  } finally {
    await handle?.close();
  }
}
