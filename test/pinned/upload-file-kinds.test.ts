/**
 * Path uploads of what is not a regular file, where the test box has none to point at (a
 * block device, a kind `stat` has no name for) or where it is a race (the path swapped for a
 * FIFO between the check and the open): `node:fs/promises` is faked to report them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();
let dir = '';
let path = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'claims-kinds-'));
  path = join(dir, 'file.pdf');
  await writeFile(path, 'x');
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.doUnmock('node:fs/promises');
  vi.resetModules();
});

type Kind = 'file' | 'dir' | 'fifo' | 'socket' | 'char' | 'block' | 'other';
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
  vi.resetModules();
  let closed = 0;
  vi.doMock('node:fs/promises', async (importOriginal) => {
    const real = await importOriginal<typeof import('node:fs/promises')>();
    return {
      ...real,
      stat: async () => statsOf(before),
      open: async () => ({
        stat: async () => statsOf(after),
        close: async () => {
          closed++;
        },
      }),
    };
  });
  const fresh = await import('../../src/index.js');
  const client = new fresh.ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
  const error = await client.attachments.upload(path).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(fresh.ClaimsValidationError);
  expect(server.requests).toHaveLength(0);
  expect(closed).toBe(after === 'file' ? 0 : 1);
  return (error as { issues: unknown }).issues;
}

// Known flake, not yet understood (seen about 1 run in 3 on CI and under load): now and then the
// vi.doMock of node:fs/promises is not seen by a fresh import and the real file is uploaded. A
// retry re-runs the case whole with the same assertions; the cause is noted on #26 (point 3).
describe('a path that is not a regular file (faked kinds)', { retry: 2 }, () => {
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
