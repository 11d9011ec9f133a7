import type { Stats } from 'node:fs';
import type { Readable } from 'node:stream';
import { errorMessage } from '../internal/error-message.js';
import { excerpt, quote } from '../internal/quote.js';

/**
 * Files are opened read-only and, where the platform has it, non-blocking: a path swapped for a
 * FIFO between the check and the open must not block a libuv thread for ever (an `open()` of a
 * FIFO waits for a writer, and a few such waits starve every `fs` call and DNS look-up of the
 * process). On a regular file O_NONBLOCK changes nothing.
 */
function readFlags(constants: typeof import('node:fs').constants): number {
  return constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
}

/** What a path that cannot be uploaded is, in words, or `undefined` for a regular file. */
function notRegular(stat: Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

function notRegularMessage(path: string, what: string): string {
  return `${quote(path)} is ${what}, not a regular file`;
}

/**
 * The byte size of the regular file at `path`, or `undefined` after reporting why it cannot be
 * sent. Only regular files are uploaded: a FIFO, a socket or a device could block or never end,
 * and a directory has no bytes. The kind is checked with `stat` before anything opens the path.
 */
export async function statFile(
  path: string,
  problem: (message: string) => void,
): Promise<number | undefined> {
  // Loaded here, not at the top: the main entry must not pull in node:fs (serverless cold start).
  const [{ stat, open }, { constants }] = await Promise.all([import('node:fs/promises'), import('node:fs')]);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    const what = notRegular(await stat(path));
    if (what) {
      problem(notRegularMessage(path, what));
      return undefined;
    }
    // Opening (not just stat) proves the file is readable by this process, ACLs included.
    handle = await open(path, readFlags(constants));
    // The path may have been swapped between the stat and the open: judge what was opened.
    const opened = await handle.stat();
    const swapped = notRegular(opened);
    if (swapped) problem(notRegularMessage(path, swapped));
    else return opened.size;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') problem(`no such file: ${quote(path)}`);
    else if (code === 'EACCES' || code === 'EPERM') problem(`cannot read ${quote(path)}: permission denied`);
    else if (code === 'EISDIR') problem(notRegularMessage(path, 'a directory'));
    else problem(`cannot read ${quote(path)}: ${excerpt(errorMessage(error))}`);
  } finally {
    await handle?.close();
  }
  return undefined;
}

/**
 * A function that streams the file at a path, opened when first read. The open is non-blocking
 * and checked again with `fstat`: a path that stopped being a regular file after `statFile`
 * fails the stream (and so the upload) instead of hanging it or sending a device's endless bytes.
 */
export async function fileStreamOpener(): Promise<(path: string) => Readable> {
  const fs = await import('node:fs');
  const flags = readFlags(fs.constants);
  const openRegular = (
    path: string,
    _flags: unknown,
    _mode: unknown,
    callback: (error: Error | null, fd?: number) => void,
  ): void => {
    fs.open(path, flags, (openError, fd) => {
      if (openError) return callback(openError);
      fs.fstat(fd, (statError, stat) => {
        const what = statError ? undefined : notRegular(stat);
        if (!statError && !what) return callback(null, fd);
        fs.close(fd, () => callback(statError ?? new Error(notRegularMessage(path, what as string))));
      });
    });
  };
  const overrides = { open: openRegular, read: fs.read, close: fs.close };
  return (path) => fs.createReadStream(path, { highWaterMark: 256 * 1024, fs: overrides });
}
