/**
 * What opening an upload's file can fail with, reported as a ClaimsValidationError before
 * anything is sent. The errors are faked (root can open any file, whatever its mode).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();

async function uploadWithOpenFailing(error: Error): Promise<unknown> {
  vi.resetModules();
  vi.doMock('node:fs/promises', async (importOriginal) => {
    const real = await importOriginal<typeof import('node:fs/promises')>();
    return { ...real, open: () => Promise.reject(error) };
  });
  const fresh = await import('../../src/index.js');
  const client = new fresh.ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
  const failure = await client.attachments.upload('/any/file.pdf').catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(fresh.ClaimsValidationError);
  return failure;
}

afterEach(() => {
  vi.doUnmock('node:fs/promises');
  vi.resetModules();
});

describe('opening an upload file fails', () => {
  it.each([
    ['EACCES', 'cannot read "/any/file.pdf": permission denied'],
    ['EPERM', 'cannot read "/any/file.pdf": permission denied'],
    ['ENOENT', 'no such file: "/any/file.pdf"'],
    ['EISDIR', '"/any/file.pdf" is a directory, not a file'],
    ['EIO', 'cannot read "/any/file.pdf": EIO: i/o error'],
  ])('%s', async (code, message) => {
    const error = await uploadWithOpenFailing(Object.assign(new Error(`${code}: i/o error`), { code }));
    expect((error as { issues: unknown }).issues).toEqual([{ path: 'files', message }]);
    expect(server.requests).toHaveLength(0);
  });
});
