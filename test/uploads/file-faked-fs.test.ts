/**
 * Path uploads whose file system answers cannot be made on the test box: opening fails (root
 * can open any file, whatever its mode), a kind `stat` has no name for or a block device, and a
 * race (the path swapped for a FIFO between the check and the open). Each is reported as a
 * ClaimsValidationError before anything is sent.
 *
 * `node:fs/promises` is faked with a hoisted `vi.mock`, so every import of it in this file's
 * module graph (the SDK's own lazy `import()` included) sees the fake from the start; each case
 * sets what the fake answers. A `vi.doMock` with a fresh import, used before, was now and then
 * not seen and the real file was uploaded.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClaimsClient, ClaimsValidationError } from '../../src/index.js';
import { useRecordingServer } from '../helpers/recording-server.js';

type Kind = 'file' | 'dir' | 'fifo' | 'socket' | 'char' | 'block' | 'other';

/** What the faked `stat` and `open` answer; `undefined` leaves the real one. */
const fake = vi.hoisted(() => ({
  stat: undefined as undefined | ((path: string) => Promise<unknown>),
  open: undefined as undefined | ((path: string) => Promise<unknown>),
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    stat: (path: string, ...rest: unknown[]) =>
      fake.stat ? fake.stat(path) : (real.stat as (...args: unknown[]) => unknown)(path, ...rest),
    open: (path: string, ...rest: unknown[]) =>
      fake.open ? fake.open(path) : (real.open as (...args: unknown[]) => unknown)(path, ...rest),
  };
});

const server = useRecordingServer();
let dir = '';
/** A real regular file: the real `stat()` passes, and the faked answers are what fail. */
let path = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'claims-faked-fs-'));
  path = join(dir, 'file.pdf');
  await writeFile(path, 'x');
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => {
  fake.stat = undefined;
  fake.open = undefined;
});

async function uploadRefused(): Promise<unknown> {
  const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
  const failure = await client.attachments.upload(path).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(ClaimsValidationError);
  expect(server.requests).toHaveLength(0);
  return (failure as { issues: unknown }).issues;
}

describe('opening an upload file fails', () => {
  // The file may be removed, or swapped for a directory, between the stat and the open.
  it.each([
    ['EACCES', (p: string) => `cannot read ${p}: permission denied`],
    ['EPERM', (p: string) => `cannot read ${p}: permission denied`],
    ['ENOENT', (p: string) => `no such file: ${p}`],
    ['EISDIR', (p: string) => `${p} is a directory, not a regular file`],
    ['EIO', (p: string) => `cannot read ${p}: EIO: i/o error`],
  ])('%s', async (code, message) => {
    const opened: string[] = [];
    fake.open = (p) => {
      opened.push(p);
      return Promise.reject(Object.assign(new Error(`${code}: i/o error`), { code }));
    };
    expect(await uploadRefused()).toEqual([{ path: 'files', message: message(JSON.stringify(path)) }]);
    // The fake was what answered (not the real file system).
    expect(opened).toEqual([path]);
  });
});

function statsOf(kind: Kind) {
  return {
    size: 1,
    isFile: () => kind === 'file',
    isDirectory: () => kind === 'dir',
    isFIFO: () => kind === 'fifo',
    isSocket: () => kind === 'socket',
    isCharacterDevice: () => kind === 'char',
    isBlockDevice: () => kind === 'block',
  };
}

/** Uploads `path` with `stat` reporting `before`, and the opened handle's `stat` reporting `after`. */
async function issuesFor(before: Kind, after: Kind): Promise<unknown> {
  let closed = 0;
  fake.stat = async () => statsOf(before);
  fake.open = async () => ({
    stat: async () => statsOf(after),
    close: async () => {
      closed++;
    },
  });
  const issues = await uploadRefused();
  expect(closed).toBe(after === 'file' ? 0 : 1);
  return issues;
}

describe('a path that is not a regular file (faked kinds)', () => {
  it.each([
    ['block', 'a block device'],
    ['other', 'not a regular file'],
  ] as const)('a %s is refused as %j', async (kind, what) => {
    expect(await issuesFor(kind, 'file')).toEqual([
      { path: 'files', message: `${JSON.stringify(path)} is ${what}, not a regular file` },
    ]);
  });

  it('a path swapped for a FIFO between the check and the open is refused, and the descriptor closed', async () => {
    expect(await issuesFor('file', 'fifo')).toEqual([
      { path: 'files', message: `${JSON.stringify(path)} is a FIFO (named pipe), not a regular file` },
    ]);
  });
});
