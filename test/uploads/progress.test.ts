import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, type UploadProgress } from '../../src/index.js';
import { json, useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'upload-progress-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const answerFor = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    filename: `f${i}`,
    attachmentId: `3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0${i}`,
  }));

describe('attachments.upload onProgress', () => {
  it('reports bytes sent per file and in all, ending at every file size and the total', async () => {
    server.handle((_req, res) => json(res, 201, answerFor(2)));
    const path = join(dir, 'scan.pdf');
    writeFileSync(path, Buffer.alloc(1_500_000, 7));
    const bytes = Buffer.alloc(2_500_000, 1);
    const events: UploadProgress[] = [];
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    await client.attachments.upload([path, { data: bytes, filename: 'photo.jpg' }], {
      onProgress: (p) => events.push(p),
    });
    expect(events.length).toBeGreaterThan(2);
    expect(events.at(-1)).toEqual({
      filename: 'photo.jpg',
      index: 1,
      fileBytes: 2_500_000,
      fileTotal: 2_500_000,
      bytes: 4_000_000,
      total: 4_000_000,
    });
    const lastOfFirst = events.filter((e) => e.index === 0).at(-1);
    expect(lastOfFirst).toMatchObject({ filename: 'scan.pdf', fileBytes: 1_500_000, fileTotal: 1_500_000 });
    for (let i = 1; i < events.length; i++) {
      expect((events[i] as UploadProgress).bytes).toBeGreaterThan((events[i - 1] as UploadProgress).bytes);
    }
    // The body on the wire is unchanged by counting.
    expect(server.requests[0]?.body.length).toBeGreaterThan(4_000_000);
  });

  it('gives no total for a stream, whose size only reading it tells', async () => {
    server.handle((_req, res) => json(res, 201, answerFor(1)));
    const events: UploadProgress[] = [];
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    await client.attachments.upload(
      { data: Readable.from([Buffer.alloc(1000), Buffer.alloc(500)]), filename: 'log.txt' },
      { onProgress: (p) => events.push(p) },
    );
    expect(events.at(-1)).toEqual({
      filename: 'log.txt',
      index: 0,
      fileBytes: 1500,
      fileTotal: undefined,
      bytes: 1500,
      total: undefined,
    });
  });
});

describe('attachments.upload onProgress with sizes known and unknown', () => {
  it('gives no total while any part is a stream, though the others have sizes', async () => {
    server.handle((_req, res) => json(res, 201, answerFor(2)));
    const events: UploadProgress[] = [];
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    await client.attachments.upload(
      [
        { data: Buffer.alloc(1000, 1), filename: 'photo.jpg' },
        { data: Readable.from([Buffer.alloc(500, 2)]), filename: 'log.txt' },
      ],
      { onProgress: (p) => events.push(p) },
    );
    expect(events.at(0)).toMatchObject({ filename: 'photo.jpg', fileTotal: 1000, total: undefined });
    expect(events.at(-1)).toEqual({
      filename: 'log.txt',
      index: 1,
      fileBytes: 500,
      fileTotal: undefined,
      bytes: 1500,
      total: undefined,
    });
  });
});

describe('attachments.upload onProgress on the edge build (web streams)', () => {
  it('reports the same counts as the Node build', async () => {
    const { ClaimsClient: EdgeClient } = await import('../../src/edge.js');
    server.handle((_req, res) => json(res, 201, answerFor(2)));
    const events: UploadProgress[] = [];
    const client = new EdgeClient({ baseUrl: server.url, accessToken: 'tok' });
    await client.attachments.upload(
      [
        { data: new Uint8Array(2_500_000), filename: 'a.bin' },
        { data: new Blob(['hello']), filename: 'b.txt' },
      ],
      { onProgress: (p) => events.push(p) },
    );
    expect(events.at(-1)).toEqual({
      filename: 'b.txt',
      index: 1,
      fileBytes: 5,
      fileTotal: 5,
      bytes: 2_500_005,
      total: 2_500_005,
    });
    expect(events.filter((e) => e.index === 0).at(-1)).toMatchObject({ fileBytes: 2_500_000 });
  });
});
