import { lstat, open, realpath, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { echo } from '../batch/echo.js';
import { UsageError } from './exit-codes.js';

/** A path an import reads or writes, by the option that named it. */
export interface NamedPath {
  /** How the operator named it, e.g. `--journal`. */
  option: string;
  path: string;
}

/**
 * Refuses two of these paths that are the same file (by device and inode when it exists, so a
 * symlink or a hard link to it counts; by its place otherwise), before anything is read or
 * sent: `--journal` naming the input would cut it, `--report` naming the journal would
 * overwrite it.
 */
export async function checkDistinct(paths: NamedPath[]): Promise<void> {
  const identities = await Promise.all(paths.map((p) => identity(p.path)));
  for (let i = 0; i < paths.length; i++) {
    for (let j = i + 1; j < paths.length; j++) {
      if (identities[i] === identities[j]) {
        const [a, b] = [paths[i] as NamedPath, paths[j] as NamedPath];
        throw new UsageError(
          `${a.option} ${echo(a.path)} and ${b.option} ${echo(b.path)} are the same file; give each its own`,
        );
      }
    }
  }
}

/** The file a path names: `dev:ino` when it exists, else where it would be created. */
async function identity(path: string): Promise<string> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch {
    const folder = await realpath(dirname(path)).catch(() => resolve(dirname(path)));
    return join(folder, basename(path));
  }
}

/**
 * A journal path must be a regular file or not exist yet: never a symlink (to the input, to
 * anything), a folder or a device.
 */
export async function checkJournalPath(path: string, mustExist: boolean): Promise<void> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !mustExist) return;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `there is no journal at ${echo(path)}; check --journal`
        : `cannot read the journal ${echo(path)} (${code})`,
    );
  }
  if (info.isSymbolicLink()) {
    throw new UsageError(`the journal ${echo(path)} is a symbolic link; give --journal the file itself`);
  }
  if (!info.isFile()) throw new UsageError(`the journal ${echo(path)} is not a regular file`);
}

/**
 * Proves the report can be written, before anything is sent: an existing file is opened for
 * writing (and left as it is), a new one created and removed again.
 */
export async function checkWritable(path: string, option: string): Promise<void> {
  const refuse = (error: unknown) =>
    new UsageError(
      `cannot write ${option} ${echo(path)} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  try {
    await (await open(path, 'r+')).close();
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw refuse(error);
  }
  try {
    await (await open(path, 'wx')).close();
  } catch (error) {
    throw refuse(error);
  }
  await unlink(path).catch(() => undefined);
}
