/**
 * The Node entry's multipart body on every wire: the exact bytes for sources of every shape
 * (an old-style stream, another realm's ReadableStream, strings), progress, and what happens to
 * a caller's streams when the upload fails before, or while, they are read.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Stream } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClaimsClient as EdgeClient } from '../../src/edge.js';
import {
  type ClaimsApiError,
  ClaimsClient,
  ClaimsError,
  ClaimsValidationError,
  outcomeOf,
  type UploadProgress,
} from '../../src/index.js';
import { prepareUpload } from '../../src/uploads/prepare.js';
import { WIRES } from '../faults/fault-server.js';

type Mode = 'answer' | 'early413' | 'stall';
let mode: Mode = 'answer';
let hits: Array<{ headers: IncomingMessage['headers']; body: Buffer }> = [];
let server: Server;
let url = '';
let dir = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const hit = { headers: req.headers, body: Buffer.alloc(0) };
    hits.push(hit);
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    if (mode === 'stall') return req.pause();
    if (mode === 'early413') {
      res.writeHead(413, { 'content-type': 'application/json' });
      return res.end('{"message":"too large"}');
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hit.body = Buffer.concat(chunks);
      const count = hit.body.toString('latin1').split('Content-Disposition').length - 1;
      const records = Array.from({ length: count }, (_, i) => ({
        filename: `f${i}`,
        attachmentId: `id${i}`,
      }));
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify(records));
    });
  });
  server.on('connection', (socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'claims-node-multipart-'));
});
beforeEach(() => {
  mode = 'answer';
  hits = [];
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** The body with its boundary named B, and the part header the SDK writes. */
function normalised(hit: { headers: IncomingMessage['headers']; body: Buffer }): string {
  const boundary = /boundary=(.+)$/.exec(String(hit.headers['content-type']))?.[1] as string;
  return hit.body.toString('utf8').split(boundary).join('B');
}
const head = (disposition: string, type: string) =>
  `--B\r\nContent-Disposition: form-data; name=""; ${disposition}\r\nContent-Type: ${type}\r\n\r\n`;

/** A stream of another realm or a polyfill: reads like a ReadableStream, is not this one's. */
function foreignWebStream(chunks: string[]) {
  const real = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
  });
  return {
    getReader: () => real.getReader(),
    get locked() {
      return real.locked;
    },
  };
}

/** A pre-streams2 stream (pipe, on, read), as some older libraries still give: it flows at once. */
function oldStyleStream(chunks: string[]) {
  const stream = new Stream() as Stream & { read(): null };
  stream.read = () => null;
  setImmediate(() => {
    for (const chunk of chunks) stream.emit('data', Buffer.from(chunk));
    stream.emit('end');
  });
  return stream;
}

describe.each(WIRES)('the Node multipart body ($name)', ({ options }) => {
  const client = (more: object = {}) =>
    new ClaimsClient({
      baseUrl: url,
      accessToken: 'tok',
      maxRetries: 0,
      timeoutMs: 3_000,
      ...options,
      ...more,
    });

  it('is exact for an old-style stream, a foreign ReadableStream, strings and a name needing filename*', async () => {
    const events: UploadProgress[] = [];
    await client().attachments.upload(
      [
        { data: oldStyleStream(['old ', 'style']) as never, filename: 'old.txt' },
        { data: foreignWebStream(['foreign ', 'realm']) as never, filename: 'web.txt' },
        { data: Readable.from(['zwölf ', '€']), filename: "Müller's (copy)*.txt" },
      ],
      { onProgress: (p) => events.push(p) },
    );
    expect(hits).toHaveLength(1);
    expect(normalised(hits[0] as never)).toBe(
      `${head('filename="old.txt"', 'text/plain')}old style\r\n` +
        `${head('filename="web.txt"', 'text/plain')}foreign realm\r\n` +
        `${head(`filename="Müller's (copy)*.txt"; filename*=UTF-8''M%C3%BCller%27s%20%28copy%29%2A.txt`, 'text/plain')}zwölf €\r\n` +
        '--B--\r\n',
    );
    // Strings count as their UTF-8 bytes; with a stream in the list there is no total.
    expect(events.at(-1)).toEqual({
      filename: "Müller's (copy)*.txt",
      index: 2,
      fileBytes: 10,
      fileTotal: undefined,
      bytes: 9 + 13 + 10,
      total: undefined,
    });
    expect(events.every((e) => e.total === undefined)).toBe(true);
  });

  it('gives no total while any size is unknown (bytes then a stream)', async () => {
    const events: UploadProgress[] = [];
    await client().attachments.upload(
      [
        { data: new Uint8Array(5), filename: 'a.bin' },
        { data: Readable.from([Buffer.alloc(3)]), filename: 'b.bin' },
      ],
      { onProgress: (p) => events.push(p) },
    );
    expect(events).toEqual([
      { filename: 'a.bin', index: 0, fileBytes: 5, fileTotal: 5, bytes: 5, total: undefined },
      { filename: 'b.bin', index: 1, fileBytes: 3, fileTotal: undefined, bytes: 8, total: undefined },
    ]);
  });

  it('a caller stream that fails right after the call (before anything is sent) fails it, not the process', async () => {
    const path = join(dir, 'first.pdf');
    await writeFile(path, 'pdf');
    const stream = new Readable({ read: () => undefined });
    const upload = client().attachments.upload([path, { data: stream, filename: 'later.bin' }]);
    const boom = new Error('boom');
    stream.destroy(boom);
    const error = await upload.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect((error as Error).message).toBe('Upload aborted: reading "later.bin" failed: boom');
    expect((error as Error).cause).toBe(boom);
    expect(outcomeOf(error)).toBe('not_sent');
    // The failure was seen before the request started: nothing reached the server.
    expect(hits).toHaveLength(0);
  });

  it('an error answer before the body was read destroys every caller stream, also one whose turn never came', async () => {
    mode = 'early413';
    let pushed = false;
    const first = new Readable({
      read() {
        if (!pushed) {
          pushed = true;
          this.push(Buffer.alloc(64 * 1024, 1));
        }
      },
    });
    const later = Readable.from([Buffer.from('never sent')]);
    const error = await client()
      .attachments.upload([
        { data: first, filename: 'first.bin' },
        { data: later, filename: 'later.bin' },
      ])
      .catch((e: unknown) => e);
    expect((error as ClaimsApiError).status).toBe(413);
    await expect.poll(() => [first.destroyed, later.destroyed], { timeout: 2_000 }).toEqual([true, true]);
  });

  it('an error answer cancels a foreign ReadableStream being read', async () => {
    mode = 'early413';
    let cancelled: unknown = 'not cancelled';
    let pulls = 0;
    const real = new ReadableStream<Uint8Array>({
      pull(controller) {
        // One chunk, then nothing: without the SDK cancelling it, it would wait for ever.
        if (pulls++ === 0) controller.enqueue(new Uint8Array(64 * 1024));
        return new Promise(() => undefined);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const foreign = { getReader: () => real.getReader(), locked: false };
    const error = await client()
      .attachments.upload({ data: foreign as never, filename: 'foreign.bin' })
      .catch((e: unknown) => e);
    expect((error as ClaimsApiError).status).toBe(413);
    await expect.poll(() => cancelled, { timeout: 2_000 }).not.toBe('not cancelled');
  });

  it('a stalled server does not make the SDK read a caller stream into memory', async () => {
    mode = 'stall';
    const MiB = 1024 * 1024;
    let produced = 0;
    const source = new Readable({
      read() {
        if (produced >= 96 * MiB) return void this.push(null);
        produced += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024));
      },
    });
    const controller = new AbortController();
    const upload = client({ timeoutMs: 30_000 })
      .attachments.upload({ data: source, filename: 'big.bin' }, { signal: controller.signal })
      .catch((e: unknown) => e);
    // Wait until reading stops: bounded by buffers (the body's, the socket's), not the source's size.
    let last = -1;
    for (let i = 0; i < 100 && produced !== last; i++) {
      last = produced;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    controller.abort();
    expect(((await upload) as Error).name).toBe('AbortError');
    expect(produced).toBeLessThan(48 * MiB);
  });
});

describe('the same stream given twice', () => {
  it.each([
    ['a web stream (Node entry)', () => new ClaimsClient({ baseUrl: url, accessToken: 'tok' })],
    ['a web stream (edge entry)', () => new EdgeClient({ baseUrl: url, accessToken: 'tok' })],
  ])('%s is refused: it can be read only once', async (_label, client) => {
    const stream = new ReadableStream<Uint8Array>();
    const error = await client()
      .attachments.upload([
        { data: stream, filename: 'a.bin' },
        { data: stream, filename: 'b.bin' },
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues).toEqual([
      { path: 'files[1]', message: 'the same stream is given twice; it can be read only once' },
    ]);
    expect(hits).toHaveLength(0);
  });
});

describe('a destroyed body', () => {
  it('emits no more data, even when a reader starts as it is destroyed', async () => {
    const prepared = await prepareUpload(
      [{ data: new Uint8Array(100_000), filename: 'a.bin' }],
      () => 'files',
    );
    const { stream } = await prepared.body.open();
    const body = stream as Readable;
    body.read(0);
    for (let i = 0; i < 100 && body.readableLength === 0; i++) await new Promise((r) => setImmediate(r));
    expect(body.readableLength).toBeGreaterThan(0);
    const late: unknown[] = [];
    body.on('data', (chunk) => late.push(chunk));
    body.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(late).toEqual([]);
  });
});
