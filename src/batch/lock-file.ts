import { randomBytes } from 'node:crypto';
import { link, open, readdir, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { JournalError } from './errors.js';

/** Who holds a lock, as written in its lock file. */
interface Holder {
  pid: number;
  hostname: string;
  at: string;
  /** Unique per lock taken: tells this process's own locks from a dead namesake's (same pid). */
  nonce: string;
}

/** The locks this process holds, by nonce: a lock with our pid and another nonce is a dead namesake's. */
const held = new Set<string>();

/** How often taking the lock is tried when two runs took a generation at the same instant. */
const ATTEMPTS = 5;

/**
 * The lock of one journal file, keyed by the file itself: its inode number, in its own
 * folder (two names of one file, or a renamed file, share it; the folder is where every
 * machine that can reach the file can see it, where a device number would differ per NFS
 * client). Each lock is a file `<journal name>.lock-<inode>-<generation>`, created with its
 * whole content at once (written to a temporary file, then hard-linked to its name, which
 * fails when the name exists).
 *
 * A run takes the lock by creating the generation after the highest one it found, when every
 * lock file it found is stale (its holder died on this host). So the takeover of a stale
 * generation is decided once: of two runs that found the same dead holder, one creates the
 * next generation and the other finds that name taken. Then the run lists the lock files
 * again: if another live holder's lock is there (a run that started from an empty folder at
 * the same instant), it gives its own up; of two runs that both created one, at least one
 * sees the other, since each lists after creating. Nothing is ever removed but a stale lock
 * and one's own.
 *
 * @returns a function that releases the lock.
 * @throws JournalError `locked` when a live run holds it (named in the message).
 */
export async function acquireLock(journalPath: string, inode: bigint): Promise<() => Promise<void>> {
  const folder = dirname(journalPath);
  const prefix = `${basename(journalPath)}.lock-${inode}-`;
  for (let attempt = 1; ; attempt++) {
    const found = await locksOf(folder, inode);
    const live = found.filter((lock) => !isStale(lock.holder));
    if (live.length > 0) throw lockedBy(live[0] as Lock);
    const generation = Math.max(0, ...found.map((lock) => lock.generation)) + 1;
    const me: Holder = {
      pid: process.pid,
      hostname: hostname(),
      at: new Date().toISOString(),
      nonce: randomBytes(12).toString('hex'),
    };
    const name = join(folder, `${prefix}${generation}`);
    // Known as ours before the file exists: another journal of this process that lists it meanwhile must not take it for a dead namesake's.
    held.add(me.nonce);
    if (
      !(await createWhole(name, me).catch((error: unknown) => {
        held.delete(me.nonce);
        throw error;
      }))
    ) {
      held.delete(me.nonce);
      continue; // another run took this generation: look again
    }
    const rivals = (await locksOf(folder, inode)).filter(
      (lock) => lock.holder !== undefined && lock.holder.nonce !== me.nonce && !isStale(lock.holder),
    );
    if (rivals.length === 0) {
      for (const lock of found) await unlink(lock.path).catch(() => undefined);
      return async () => {
        held.delete(me.nonce);
        await unlink(name).catch(() => undefined);
      };
    }
    held.delete(me.nonce);
    await unlink(name).catch(() => undefined);
    if (attempt >= ATTEMPTS) throw lockedBy(rivals[0] as Lock);
    // Two runs created their generations at the same instant and both gave way: try again apart.
    await sleep(5 + Math.floor(Math.random() * 40));
  }
}

interface Lock {
  path: string;
  generation: number;
  /** `undefined`: the file could not be read or parsed (never stale: it is not ours to remove). */
  holder: Holder | undefined;
}

/** Every lock file of the journal with this inode in `folder` (a lock removed meanwhile is left out). */
async function locksOf(folder: string, inode: bigint): Promise<Lock[]> {
  const pattern = /\.lock-(\d+)-(\d+)$/;
  const locks: Lock[] = [];
  for (const entry of await readdir(folder)) {
    const match = pattern.exec(entry);
    if (!match || match[1] !== String(inode)) continue;
    const path = join(folder, entry);
    let text: string;
    try {
      // Stryker disable next-line StringLiteral: without an encoding JSON.parse reads the Buffer as the same UTF-8 text
      text = await readFile(path, 'utf8');
    } catch {
      continue;
    }
    locks.push({ path, generation: Number(match[2]), holder: parseHolder(text) });
  }
  return locks;
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (
      typeof value.pid === 'number' &&
      typeof value.hostname === 'string' &&
      typeof value.nonce === 'string'
    ) {
      return { pid: value.pid, hostname: value.hostname, at: String(value.at), nonce: value.nonce };
    }
  } catch {
    // Not a lock this SDK wrote.
  }
  return undefined;
}

/**
 * A lock whose holder died on this host: its pid is gone, or it is this process's own pid
 * (a restarted container numbers its processes from 1 again) with a lock this process does
 * not hold. A holder on another host cannot be checked from here: it counts as live.
 */
function isStale(holder: Holder | undefined): boolean {
  if (holder === undefined || holder.hostname !== hostname()) return false;
  if (holder.pid === process.pid) return !held.has(holder.nonce);
  return !isAlive(holder.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Creates `path` holding `holder`, complete from the first instant; false when the name is taken. */
async function createWhole(path: string, holder: Holder): Promise<boolean> {
  const temporary = `${path}.tmp-${holder.nonce}`;
  const handle = await open(temporary, 'wx');
  try {
    await handle.writeFile(JSON.stringify(holder));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

function lockedBy(lock: Lock): JournalError {
  const who =
    lock.holder === undefined
      ? 'another run'
      : `process ${lock.holder.pid} on ${lock.holder.hostname} since ${lock.holder.at}`;
  return new JournalError(
    'locked',
    `The journal is in use by ${who} (lock file ${lock.path}). Two runs cannot share one journal file; ` +
      'if that process is gone, delete the lock file.',
  );
}
