// The module object, not named imports: its functions are looked up per call (tests count syncs).
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { lstat, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { JournalError } from './errors.js';
import { acquireLock } from './lock-file.js';
import { decodeRecord, encodeLine, isTornLine, type JournalRecord } from './record.js';
import type { ClaimAnswer, JournalOpenOptions, JournalStore } from './store.js';

interface Pending {
  line: string;
  resolve(): void;
  reject(error: unknown): void;
}

const TAKEN: ClaimAnswer = { taken: true };
// Where the platform has them (not Windows): never follow a symlink, never block on a FIFO.
// Its two `??` mutants are module-level: checked by hand (scripts/apply-mutants.mjs), each fails
// test/batch/lock-file.test.ts (the symlink and the FIFO swapped in while opening).
const NO_FOLLOW = (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * The default journal store: an append-only file of checksummed JSON lines, made durable with
 * `fdatasync` before each write resolves. Single-run (`shared: false`): a run takes the journal
 * with a lock keyed by the file itself (see lock-file.ts), so two names of one file (a hard
 * link, a renamed file) cannot be used by two runs at once.
 *
 * Group commit: one `fdatasync` at a time; every record appended while it runs is queued, and
 * when it returns the whole queue goes out in one `write` and one `fdatasync`. With 16 claims
 * in flight one sync serves many records, and a record waits for at most the sync under way
 * plus its own. A `sending` record (a POST waits on it) starts a commit at once; a final record
 * alone waits one turn of the event loop, so that the next claim's `sending` record, appended
 * meanwhile, shares its sync instead of queueing behind it.
 *
 * What it refuses, so that no file is destroyed and no claim sent twice: a path that is not a
 * regular file (a symlink, a folder, a device), a file with two names (hard links), and any
 * file whose content is not a journal's: every complete line must be a record that checks out
 * (a CRLF ending is read as LF). Only a last line cut short by a crash (no newline, fewer bytes
 * than its head says) is dropped and cut off: it never resolved its `append`, so the claim it
 * was about was not sent after it (for `sending`), or its key stays `sending` for review (for
 * a final record). A file holding no complete record is never cut.
 */
export class FileJournalStore implements JournalStore {
  /** Single-run: `open()` takes the journal for one run alone. */
  readonly shared = false;
  /** The journal file, as given. */
  readonly path: string;
  #records: JournalRecord[] | undefined;
  #handle: FileHandle | undefined;
  #readOnly = false;
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
  /** The file's length in bytes: where a group that failed to be written is cut off again. */
  #size = 0;
  #broken: unknown;
  /** The back-off of `pauseAll`, in ms since the epoch: kept in memory (one run uses the file). */
  #pausedUntil = 0;

  constructor(path: string) {
    this.path = path;
  }

  async open(options: JournalOpenOptions = {}): Promise<void> {
    if (this.#handle || this.#records) return;
    if (options.readOnly) {
      this.#records = await this.#read();
      this.#readOnly = true;
      return;
    }
    const existed = await this.#checkPath(false);
    let handle: FileHandle;
    try {
      handle = await open(
        this.path,
        fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_APPEND | NO_FOLLOW,
      );
    } catch (error) {
      throw asJournalError(error, `Cannot open the journal ${this.path}`);
    }
    try {
      const stat = await handle.stat({ bigint: true });
      this.#checkFile(stat);
      this.#unlock = await acquireLock(this.path, stat.ino).catch((error: unknown) => {
        throw asJournalError(error, `Cannot lock the journal ${this.path}`);
      });
      // The name may have been given to another file between the open and the lock.
      const now = await lstat(this.path, { bigint: true }).catch(() => undefined);
      if (now?.ino !== stat.ino || now.dev !== stat.dev) {
        throw new JournalError(
          'io',
          `The journal ${this.path} was replaced while it was being opened; try again`,
        );
      }
      const data = await handle.readFile();
      const scan = scanJournal(data, this.path);
      if (scan.goodBytes < data.length) {
        if (scan.records.length === 0) throw noCompleteRecord(this.path);
        await handle.truncate(scan.goodBytes);
      }
      this.#size = scan.goodBytes;
      if (scan.lastHasNoNewline) {
        await handle.write('\n');
        this.#size++;
      }
      if (scan.goodBytes < data.length || scan.lastHasNoNewline) await handle.datasync();
      if (!existed) await syncDirectory(dirname(this.path));
      this.#records = scan.records;
      this.#handle = handle;
    } catch (error) {
      await handle.close().catch(() => undefined);
      await this.#unlock?.();
      this.#unlock = undefined;
      throw asJournalError(error, `Cannot open the journal ${this.path}`);
    }
  }

  async *load(): AsyncIterable<JournalRecord> {
    const records = this.#records ?? [];
    this.#records = undefined;
    yield* records;
  }

  claim(record: JournalRecord): Promise<ClaimAnswer> {
    // This run holds the whole journal: the Journal's own latest record is the key's.
    return this.append(record).then(() => TAKEN);
  }

  append(record: JournalRecord): Promise<void> {
    if (!this.#handle) {
      return Promise.reject(
        this.#readOnly
          ? new JournalError('read_only', `The journal ${this.path} was opened read-only`)
          : new JournalError('closed', 'The journal is not open'),
      );
    }
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      this.#pending.push({ line: encodeLine(record), resolve, reject });
      if (record.state === 'sending') this.#pendingHasSending = true;
      this.#schedule();
    });
  }

  /** Holds every send of the run until `ms` from now (kept in memory: the file has one run). */
  pauseAll(ms: number): Promise<void> {
    this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + ms);
    return Promise.resolve();
  }

  /** Until when the back-off of `pauseAll` holds, in ms since the epoch (0: never set). */
  pausedUntil(): number {
    return this.#pausedUntil;
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
    this.#records = undefined;
    await this.#unlock?.();
    this.#unlock = undefined;
  }

  /**
   * Starts a commit unless one is syncing (its end starts the next). A `sending` record starts
   * it within this turn (after the appends of the same turn); final records alone, next turn.
   */
  #schedule(): void {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: shortcuts only: #commit itself does nothing while syncing or with nothing queued
    if (this.#syncing || this.#pending.length === 0) return;
    if (this.#pendingHasSending) {
      // Stryker disable next-line ConditionalExpression: a shortcut: a second queued commit finds the first syncing, or nothing queued
      if (this.#commitSoon) return;
      // Stryker disable next-line BooleanLiteral: as above
      this.#commitSoon = true;
      queueMicrotask(() => {
        this.#commitSoon = false;
        this.#commit();
      });
    } else {
      // Stryker disable next-line ConditionalExpression: a shortcut, as above
      if (this.#commitNextTurn) return;
      // Stryker disable next-line BooleanLiteral: as above
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
    let written = 0;
    try {
      let text = '';
      for (const p of group) text += p.line;
      const bytes = Buffer.from(text);
      while (written < bytes.length) written += fs.writeSync(handle.fd, bytes, written);
    } catch (error) {
      // A full disk or a file size limit mid-group: the records that made it in whole would
      // say `sending` for claims that are never sent (and `filed` for ones reported lost).
      // Cut the group off again, so the file holds exactly the records whose append resolved.
      // Stryker disable next-line ConditionalExpression,EqualityOperator: with nothing written, cutting the file to the size it has changes nothing
      if (written > 0) {
        try {
          fs.ftruncateSync(handle.fd, this.#size);
        } catch {
          // The records stay: the safe side (a key may read `sending` and need review).
        }
      }
      this.#fail(group, error);
      return;
    }
    this.#size += written;
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
    this.#broken ??= new JournalError('io', `Writing the journal ${this.path} failed${systemReason(error)}`, {
      cause: error,
    });
    for (const p of [...batch, ...this.#pending]) p.reject(this.#broken);
    this.#pending = [];
    for (const done of this.#drained.splice(0)) done();
  }

  /** Reads the journal without writing anything (`readOnly`). */
  async #read(): Promise<JournalRecord[]> {
    await this.#checkPath(true);
    let handle: FileHandle;
    try {
      handle = await open(this.path, fs.constants.O_RDONLY | NO_FOLLOW);
    } catch (error) {
      throw asJournalError(error, `Cannot open the journal ${this.path}`);
    }
    try {
      if (!(await handle.stat()).isFile()) throw notAFile(this.path, 'not a regular file');
      // A last line cut short may be a run's write under way: left out, and left alone.
      return scanJournal(await handle.readFile(), this.path).records;
    } catch (error) {
      throw asJournalError(error, `Cannot read the journal ${this.path}`);
    } finally {
      await handle.close();
    }
  }

  /** Refuses a path that is not a regular file; says whether it exists. */
  async #checkPath(mustExist: boolean): Promise<boolean> {
    let stat: fs.Stats;
    try {
      stat = await lstat(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw asJournalError(error, `Cannot open the journal ${this.path}`);
      }
      if (mustExist)
        throw new JournalError('not_found', `There is no journal at ${this.path}`, { cause: error });
      return false;
    }
    if (!stat.isFile())
      throw notAFile(this.path, stat.isSymbolicLink() ? 'a symbolic link' : 'not a regular file');
    return true;
  }

  #checkFile(stat: fs.BigIntStats): void {
    if (!stat.isFile()) throw notAFile(this.path, 'not a regular file');
    if (stat.nlink > 1n) {
      throw notAFile(
        this.path,
        `a file with ${stat.nlink} names (hard links), which two runs could use at once`,
      );
    }
  }
}

/** What a journal file holds: its records, where the last good one ends, and whether its newline is missing. */
interface Scan {
  records: JournalRecord[];
  goodBytes: number;
  lastHasNoNewline: boolean;
}

/**
 * Reads every record of a journal file. Every complete line must check out (a CRLF ending is
 * read as LF); only a last line without a newline may be less than a record, and only when it
 * is one cut short (see `isTornLine`; NUL bytes a crash left after it are part of the tear).
 * A last line that is a whole record but for its newline is kept.
 * @throws JournalError `corrupt`, naming the line, for anything else.
 */
export function scanJournal(data: Buffer, path: string): Scan {
  const records: JournalRecord[] = [];
  let offset = 0;
  // Stryker disable next-line EqualityOperator: one more turn at the end finds no newline and an empty rest, and stops
  for (let line = 1; offset < data.length; line++) {
    const end = data.indexOf(0x0a, offset);
    if (end === -1) {
      let last = data.length;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the byte before `offset` is a newline (or none), never NUL
      while (last > offset && data[last - 1] === 0) last--;
      const rest = data.subarray(offset, last);
      const decoded = rest.length === 0 ? undefined : decodeRecord(rest);
      if (decoded !== undefined && 'record' in decoded) {
        records.push(decoded.record);
        return { records, goodBytes: last, lastHasNoNewline: true };
      }
      if (decoded !== undefined && !isTornLine(rest))
        throw corrupt(path, line, decoded.problem, records.length);
      break;
    }
    // A CRLF ending (an editor, git autocrlf): a record's JSON never holds a raw CR, so it is the
    // ending's. (On an empty line the byte before `end` is the last line's LF, or none.)
    const decoded = decodeRecord(data.subarray(offset, data[end - 1] === 0x0d ? end - 1 : end));
    if ('problem' in decoded) throw corrupt(path, line, decoded.problem, records.length);
    records.push(decoded.record);
    offset = end + 1;
  }
  return { records, goodBytes: offset, lastHasNoNewline: false };
}

function corrupt(path: string, line: number, problem: string, recordsBefore: number): JournalError {
  return new JournalError(
    'corrupt',
    `The journal ${path} is damaged at line ${line}: ${problem}. Nothing in it was changed, nothing was sent. ` +
      (recordsBefore === 0
        ? 'It holds no journal record before that line: is it the right file?'
        : 'Only a last line cut short by a crash is ever dropped; restore the journal from a copy, or mend that line by hand.'),
  );
}

function noCompleteRecord(path: string): JournalError {
  return new JournalError(
    'corrupt',
    `The journal ${path} holds no complete record, only the start of one (a crash during its first write?). ` +
      "It was not changed. If it is this batch's journal, nothing was sent after that record: delete the file and run again.",
  );
}

function notAFile(path: string, what: string): JournalError {
  return new JournalError(
    'not_a_file',
    `The journal ${path} is ${what}: a journal must be a regular file with one name`,
  );
}

/** `: ENOSPC (no space left on device)` from a system error, for messages. */
function systemReason(error: unknown): string {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  if (!code) return '';
  // Stryker disable next-line StringLiteral: any text without a `CODE: ` head matches nothing, as '' does
  const detail = /^[A-Z]+: ([^,]+)/.exec(message ?? '')?.[1];
  return `: ${code}${detail ? ` (${detail})` : ''}`;
}

function asJournalError(error: unknown, message: string): JournalError {
  if (error instanceof JournalError) return error;
  return new JournalError('io', `${message}${systemReason(error)}`, { cause: error });
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
    // Stryker disable next-line OptionalChaining: `handle` is unset only where a folder cannot be opened (Windows), not on the systems tested
    await handle?.close();
  }
}
