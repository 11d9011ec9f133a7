import type { FileHandle } from 'node:fs/promises';
import { open, readFile, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { JournalError } from './errors.js';
import { acquireLock } from './lock-file.js';
import { decodeRecord, encodeRecord, type JournalRecord } from './record.js';
import type { JournalStore } from './store.js';

/** How many `fdatasync` calls may be under way at once (each covers every write before it). */
const MAX_SYNCS = 4;

interface Pending {
  bytes: Buffer;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The default journal store: an append-only file of checksummed JSON lines, made durable with
 * `fdatasync` before each write resolves, locked by a `<path>.lock` file.
 *
 * Records written while a sync is under way are written and synced together (group commit):
 * with 16 claims in flight one `fdatasync` serves many records, not one each.
 *
 * On open, every complete record is kept. A torn last line (a crash mid-write) is dropped and
 * cut off the file: it never resolved its `append`, so the claim it was about was not sent
 * after it (for `sending`), or its key stays `sending` for review (for a final record).
 */
export class FileJournalStore implements JournalStore {
  readonly path: string;
  #records: JournalRecord[] | undefined;
  #handle: FileHandle | undefined;
  #unlock: (() => Promise<void>) | undefined;
  #pending: Pending[] = [];
  #flushing: Promise<void> | undefined;
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
      this.#pending.push({ bytes: encodeRecord(record), resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  async close(): Promise<void> {
    await this.#flushing;
    await this.#handle?.close();
    this.#handle = undefined;
    await this.#unlock?.();
    this.#unlock = undefined;
  }

  /**
   * Writes everything queued in one write, then starts its `fdatasync` and, without waiting
   * for it, writes what queued meanwhile: writes stay in order, syncs overlap (up to
   * MAX_SYNCS), and a record resolves once a sync that began after its write has returned.
   */
  async #flush(): Promise<void> {
    const handle = this.#handle as FileHandle;
    const syncs = new Set<Promise<void>>();
    while (this.#pending.length > 0 || syncs.size > 0) {
      if (this.#pending.length === 0 || syncs.size >= MAX_SYNCS) {
        await Promise.race(syncs);
        continue;
      }
      const batch = this.#pending;
      this.#pending = [];
      try {
        const bytes =
          batch.length === 1 ? (batch[0] as Pending).bytes : Buffer.concat(batch.map((p) => p.bytes));
        for (let written = 0; written < bytes.length; ) {
          written += (await handle.write(bytes, written)).bytesWritten;
        }
      } catch (error) {
        this.#fail(batch, error);
        continue;
      }
      const sync: Promise<void> = handle.datasync().then(
        () => {
          for (const p of batch) p.resolve();
        },
        (error: unknown) => this.#fail(batch, error),
      );
      syncs.add(sync);
      void sync.finally(() => syncs.delete(sync));
    }
    this.#flushing = undefined;
  }

  /** A record that may be half written: nothing after it may claim to be durable. */
  #fail(batch: Pending[], error: unknown): void {
    this.#broken ??= new JournalError('io', `Writing the journal ${this.path} failed`, { cause: error });
    for (const p of [...batch, ...this.#pending]) p.reject(this.#broken);
    this.#pending = [];
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
