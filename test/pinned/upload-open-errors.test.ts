/**
 * What opening an upload's file can fail with, reported as a ClaimsValidationError before
 * anything is sent. The errors are faked (root can open any file, whatever its mode).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();
let dir = '';
/** A real regular file: `stat()` passes, and the faked `open()` is what fails. */
let path = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'claims-open-'));
  path = join(dir, 'file.pdf');
  await writeFile(path, 'x');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function uploadWithOpenFailing(error: Error): Promise<unknown> {
  vi.resetModules();
  vi.doMock('node:fs/promises', async (importOriginal) => {
    const real = await importOriginal<typeof import('node:fs/promises')>();
    return { ...real, open: () => Promise.reject(error) };
  });
  const fresh = await import('../../src/index.js');
  const client = new fresh.ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
  const failure = await client.attachments.upload(path).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(fresh.ClaimsValidationError);
  return failure;
}

afterEach(() => {
  vi.doUnmock('node:fs/promises');
  vi.resetModules();
});

// Known flake, not yet understood (seen about 1 run in 3 on CI and under load): now and then the
// vi.doMock of node:fs/promises is not seen by a fresh import and the real file is uploaded. A
// retry re-runs the case whole with the same assertions; the cause is noted on #26 (point 3).
describe('opening an upload file fails', { retry: 2 }, () => {
  // The file may be removed, or swapped for a directory, between the stat and the open.
  it.each([
    ['EACCES', (p: string) => `cannot read ${p}: permission denied`],
    ['EPERM', (p: string) => `cannot read ${p}: permission denied`],
    ['ENOENT', (p: string) => `no such file: ${p}`],
    ['EISDIR', (p: string) => `${p} is a directory, not a regular file`],
    ['EIO', (p: string) => `cannot read ${p}: EIO: i/o error`],
  ])('%s', async (code, message) => {
    const error = await uploadWithOpenFailing(Object.assign(new Error(`${code}: i/o error`), { code }));
    expect((error as { issues: unknown }).issues).toEqual([
      { path: 'files', message: message(JSON.stringify(path)) },
    ]);
    expect(server.requests).toHaveLength(0);
  });
});
