import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { JournalError } from './errors.js';

/** Who holds a lock, as written in its lock file. */
interface Holder {
  pid: number;
  hostname: string;
  at: string;
}

/** A lock file that was created but never written is given this long before it counts as stale. */
const UNWRITTEN_GRACE_MS = 5_000;

/**
 * Takes an exclusive lock: creates `path` with O_EXCL, holding this process's pid and host.
 * A lock left by a process that died on this host (its pid is gone) is taken over; a live
 * holder, or one on another host (whose pid cannot be checked from here), refuses.
 */
export async function acquireLock(path: string): Promise<() => Promise<void>> {
  const me: Holder = { pid: process.pid, hostname: hostname(), at: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(JSON.stringify(me));
        await handle.sync();
      } finally {
        await handle.close();
      }
      return () => unlink(path).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    if (holder === 'gone') continue;
    if (holder === 'young') break;
    if (holder === 'unwritten' || (holder.hostname === me.hostname && !isAlive(holder.pid))) {
      // The lock of a dead run: remove it and try again (O_EXCL still settles a race between two).
      await unlink(path).catch(() => undefined);
      continue;
    }
    throw new JournalError(
      'locked',
      `The journal is in use by process ${holder.pid} on ${holder.hostname} since ${holder.at} (lock file ${path}). ` +
        'Two runs cannot share one journal; if that process is gone, delete the lock file.',
    );
  }
  throw new JournalError('locked', `The journal is in use by another run (lock file ${path}).`);
}

async function readHolder(path: string): Promise<Holder | 'gone' | 'unwritten' | 'young'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return 'gone';
  }
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string') {
      return { pid: value.pid, hostname: value.hostname, at: String(value.at) };
    }
  } catch {
    // A holder that died between creating the file and writing it; or one writing it now.
  }
  try {
    const { mtimeMs } = await stat(path);
    return Date.now() - mtimeMs > UNWRITTEN_GRACE_MS ? 'unwritten' : 'young';
  } catch {
    return 'gone';
  }
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
