/**
 * Uploads through the edge entry (web streams, no Node): the bytes on the wire are the Node
 * entry's, what only Node can read is refused before anything is sent, and a caller's stream
 * that fails mid-upload fails the call with its error. Run in Node against a real server,
 * with the runtime's own fetch, as workerd, Deno and Bun run it (test/ecosystem runs it there).
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClaimsClient as EdgeClient, outcomeOf } from '../../src/edge.js';
import {
  type ClaimsApiError,
  ClaimsClient,
  ClaimsError,
  ClaimsValidationError,
  RateLimitError,
  type UploadProgress,
} from '../../src/index.js';
import { prepareWebUpload } from '../../src/uploads/web-multipart.js';
import type { WebStreamBody } from '../../src/wire/types.js';
import { json, type Recorded, useRecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'tok_edge_upload';
const server = useRecordingServer();

/** Answers an upload with one record per part, as the API does. */
function answerUploads(count: number) {
  server.handle((_req, res) =>
    json(
      res,
      200,
      Array.from({ length: count }, (_, i) => ({
        filename: `f${i}`,
        attachmentId: `3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0${i}`,
      })),
    ),
  );
}

/** The body with its boundary replaced, so two uploads' bytes can be compared. */
function normalised(req: Recorded): string {
  const boundary = /boundary=(.+)$/.exec(String(req.headers['content-type']))?.[1] as string;
  return req.body.toString('latin1').split(boundary).join('BOUNDARY');
}

const photo = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1, 2, 3]);
const items = () => [
  { data: photo, filename: 'kitchen ceiling.jpg' },
  { data: new Blob(['Police report 42']), filename: 'rapport_ä "police".pdf' },
  { data: new Uint8Array(0), filename: 'empty.txt', contentType: 'text/plain; charset=utf-8' },
];

describe('edge uploads (web multipart)', () => {
  it('sends the same bytes as the Node entry, with Content-Length when sizes are known', async () => {
    const node = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    answerUploads(3);
    await node.attachments.upload(items());
    await edge.attachments.upload(items());
    const [fromNode, fromEdge] = server.requests as [Recorded, Recorded];
    expect(fromEdge.headers['content-type']).toMatch(/^multipart\/form-data; boundary=-{26}[0-9a-f]{24}$/);
    expect(normalised(fromEdge)).toBe(normalised(fromNode));
    expect(fromEdge.headers['content-length']).toBe(String(fromEdge.body.byteLength));
    expect(fromEdge.headers['content-length']).toBe(fromNode.headers['content-length']);
    expect(fromEdge.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('streams a web ReadableStream chunked (no Content-Length) and never repeats it', async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    server.handle((_req, res) => json(res, 429, { message: 'slow down' }, { 'retry-after': '0' }));
    const chunks = ['first chunk, ', 'second chunk'];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    await expect(edge.attachments.upload({ data: stream, filename: 'notes.txt' })).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests as [Recorded];
    expect(req.headers['content-length']).toBeUndefined();
    expect(req.headers['transfer-encoding']).toBe('chunked');
    expect(req.body.toString('utf8')).toContain('first chunk, second chunk\r\n');
  });

  it('retries bytes and Blobs after a 429, sending the same body again', async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    let calls = 0;
    server.handle((_req, res) =>
      ++calls === 1
        ? json(res, 429, { message: 'slow down' }, { 'retry-after': '0' })
        : json(res, 200, [
            { filename: 'a', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b00' },
            { filename: 'b', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b01' },
          ]),
    );
    await edge.attachments.upload(items().slice(0, 2));
    const [first, second] = server.requests as [Recorded, Recorded];
    expect(server.requests).toHaveLength(2);
    expect(normalised(second)).toBe(normalised(first));
  });

  it('refuses file paths and Node streams with ClaimsValidationError, naming each item; nothing is sent', async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    const error = await edge.attachments
      .upload(['/tmp/photo.jpg', { path: '/tmp/a.pdf' }, { data: Readable.from(['x']), filename: 'x.txt' }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    const issues = (error as ClaimsValidationError).issues;
    expect(issues.map((i) => i.path)).toEqual(['files[0]', 'files[1]', 'files[2]']);
    expect(issues[0]?.message).toMatch(/a file path needs Node.*give \{ data, filename \} with a Blob/);
    expect(issues[2]?.message).toMatch(/a Node stream needs Node.*give a web ReadableStream/);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a { file: path } attachment reference of incidents.create before anything is sent', async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    const error = await edge.incidents
      .create({
        programmeCode: 'P',
        policyCountry: 'GB',
        policyTypeCode: 'T',
        incidentDate: '2026-01-01',
        description: 'd',
        attachments: [{ url: 'https://files.example/a.pdf' }, { file: '/tmp/photo.jpg' }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues[0]?.path).toBe('attachments[1].file');
    expect(server.requests).toHaveLength(0);
  });

  it("fails with the caller's stream error when it errors mid-upload", async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    answerUploads(1);
    const failure = new Error('disk went away');
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 0) controller.enqueue(new Uint8Array(64 * 1024));
        else controller.error(failure);
      },
    });
    const error = await edge.attachments
      .upload({ data: stream, filename: 'big.bin' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect((error as Error).message).toBe('Upload aborted: reading "big.bin" failed: disk went away');
    expect((error as Error).cause).toBe(failure);
    // The multipart body never ended: the server cannot have stored the upload.
    expect(outcomeOf(error)).toBe('not_sent');
  });
});

/**
 * The edge entry's multipart body, byte for byte: its boundary, part headers and CRLFs, when it
 * has a Content-Length, strings in a caller's stream, progress, what it refuses, and that a
 * caller's stream is cancelled (not left hanging) when the upload fails.
 */
describe('the edge multipart body', () => {
  const server = useRecordingServer();
  const edge = (maxRetries = 2) => new EdgeClient({ baseUrl: server.url, accessToken: 'tok', maxRetries });
  const records = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      filename: `f${i}`,
      attachmentId: `3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0${i}`,
    }));
  const answer = (n: number) => server.handle((_req, res) => json(res, 201, records(n)));

  /** A web stream of the given chunks, then its end. */
  function webStreamOf(chunks: unknown[]): ReadableStream<Uint8Array> {
    return new ReadableStream({
      pull(controller) {
        if (chunks.length === 0) controller.close();
        else controller.enqueue(chunks.shift() as Uint8Array);
      },
    });
  }

  /** crypto.getRandomValues giving 0, 1, 2 ... so the boundary is known. */
  function fixedRandom(): void {
    const counting = (view: Uint8Array) => {
      for (let i = 0; i < view.length; i++) view[i] = i;
      return view;
    };
    vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation(counting as never);
  }
  afterEach(() => vi.restoreAllMocks());

  const BOUNDARY = `${'-'.repeat(26)}000102030405060708090a0b`;
  const head = (filename: string, type: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name=""; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;

  describe('the edge multipart body', () => {
    it('is exact: boundary of 26 dashes and 24 hex digits, part headers, CRLFs, closing line, Content-Length', async () => {
      fixedRandom();
      answer(3);
      await edge().attachments.upload([
        { data: new TextEncoder().encode('abc'), filename: 'a.txt' },
        { data: new Blob(['<b/>']), filename: 'b.xml' },
        { data: new Uint8Array(0), filename: 'empty', contentType: 'x/y; q=1' },
      ]);
      const [req] = server.requests as [Recorded];
      const expected =
        `${head('a.txt', 'text/plain')}abc\r\n` +
        `${head('b.xml', 'application/xml')}<b/>\r\n` +
        `${head('empty', 'x/y; q=1')}\r\n` +
        `--${BOUNDARY}--\r\n`;
      expect(req.headers['content-type']).toBe(`multipart/form-data; boundary=${BOUNDARY}`);
      expect(req.body.toString('latin1')).toBe(expected);
      expect(req.headers['content-length']).toBe(String(expected.length));
    });

    it('with a stream and bytes: chunked (no Content-Length), strings sent as UTF-8, sent once even after a 429', async () => {
      fixedRandom();
      server.handle((_req, res) => json(res, 429, { message: 'slow down' }, { 'retry-after': '0' }));
      const encoded = new TextEncoder().encode('bytes – 1');
      const error = await edge()
        .attachments.upload([
          { data: encoded, filename: 'one.txt' },
          { data: webStreamOf(['zwölf ', new TextEncoder().encode('€'), ' 🚗']), filename: 'two.txt' },
        ])
        .catch((e: unknown) => e);
      expect((error as ClaimsApiError).status).toBe(429);
      expect(server.requests).toHaveLength(1);
      const [req] = server.requests as [Recorded];
      expect(req.headers['content-length']).toBeUndefined();
      expect(req.headers['transfer-encoding']).toBe('chunked');
      expect(req.body.toString('utf8')).toBe(
        `${head('one.txt', 'text/plain')}bytes – 1\r\n${head('two.txt', 'text/plain')}zwölf € 🚗\r\n--${BOUNDARY}--\r\n`,
      );
    });

    it('refuses a path and a Node stream with what to give instead', async () => {
      const error = await edge()
        .attachments.upload(['/tmp/a.pdf', { data: Readable.from(['x']), filename: 'x.txt' }])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect((error as ClaimsValidationError).issues).toEqual([
        {
          path: 'files[0]',
          message:
            'a file path needs Node (a file system), and this build of the SDK runs without it: give { data, filename } with a Blob, Uint8Array or ReadableStream',
        },
        {
          path: 'files[1]',
          message:
            'a Node stream needs Node, and this build of the SDK runs without it: give a web ReadableStream, a Blob or a Uint8Array',
        },
      ]);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe.each([
    ['edge', () => edge()],
    ['node', () => new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' })],
  ])('upload progress in slices of 1 MiB (%s)', (_name, client) => {
    it('an empty file reports nothing; a file of exactly 2 MiB reports 1 MiB, then 2 MiB', async () => {
      answer(2);
      const events: UploadProgress[] = [];
      const MiB = 1024 * 1024;
      await client().attachments.upload(
        [
          { data: new Uint8Array(0), filename: 'empty.bin' },
          { data: new Uint8Array(2 * MiB), filename: 'two.bin' },
        ],
        { onProgress: (p) => events.push(p) },
      );
      const event = (fileBytes: number) => ({
        filename: 'two.bin',
        index: 1,
        fileBytes,
        fileTotal: 2 * MiB,
        bytes: fileBytes,
        total: 2 * MiB,
      });
      expect(events).toEqual([event(MiB), event(2 * MiB)]);
    });
  });

  describe('a caller web stream in a failed edge upload', () => {
    let early: Server;
    let url = '';
    beforeAll(async () => {
      // Answers 413 at once, without reading the body.
      early = createServer((req, res) => {
        req.on('error', () => undefined);
        res.writeHead(413, { 'content-type': 'application/json' });
        res.end('{"message":"too large"}');
      });
      early.on('connection', (socket) => socket.on('error', () => undefined));
      await new Promise<void>((resolve) => early.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(early.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      early.closeAllConnections();
      await new Promise((resolve) => early.close(resolve));
    });

    it('is cancelled when the server answers an error before reading the body; a later part is never started', async () => {
      let cancelled: unknown = 'not cancelled';
      let pulls = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          // One chunk, then nothing: without the SDK cancelling it, it would wait for ever.
          if (pulls++ === 0) controller.enqueue(new Uint8Array(64 * 1024));
          return new Promise(() => undefined);
        },
        cancel(reason) {
          cancelled = reason;
        },
      });
      const later = webStreamOf([new Uint8Array(1)]);
      const client = new EdgeClient({ baseUrl: url, accessToken: 'tok', maxRetries: 0 });
      const error = await client.attachments
        .upload([
          { data: stream, filename: 'first.bin' },
          { data: later, filename: 'later.bin' },
        ])
        .catch((e: unknown) => e);
      expect((error as ClaimsApiError).status).toBe(413);
      await expect.poll(() => cancelled, { timeout: 2_000 }).not.toBe('not cancelled');
      expect(later.locked).toBe(false);
    });
  });

  describe('the edge body as the wire reads it', () => {
    /** A caller's web stream that records what happens to it. */
    function watched(chunks: string[]) {
      const seen = { pulls: 0, cancelled: undefined as unknown };
      const stream = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            seen.pulls++;
            const next = chunks.shift();
            if (next === undefined) controller.close();
            else controller.enqueue(new TextEncoder().encode(next));
          },
          cancel(reason) {
            seen.cancelled = reason;
          },
        },
        { highWaterMark: 0 },
      );
      return { stream, seen };
    }
    const tick = () => new Promise((resolve) => setTimeout(resolve, 10));
    const text = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);

    async function open(items: unknown[]) {
      const prepared = await prepareWebUpload(items, (i) => `files[${i}]`);
      const { stream } = (await prepared.body.open()) as { stream: WebStreamBody };
      return { body: stream, reader: stream.web.getReader() };
    }

    it('hands the wire only Uint8Array chunks (a caller stream of strings as UTF-8), and releases the caller stream at its end', async () => {
      const strings = new ReadableStream<unknown>({
        start(controller) {
          controller.enqueue('zwölf ');
          controller.enqueue(new TextEncoder().encode('€'));
          controller.close();
        },
      });
      const { reader } = await open([{ data: strings, filename: 'a.txt' }]);
      const chunks: unknown[] = [];
      for (let i = 0; i < 20; i++) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
      }
      // Runtimes other than Node (workerd, Deno) refuse a request body chunk that is a string.
      expect(chunks.every((chunk) => chunk instanceof Uint8Array)).toBe(true);
      expect(text(Buffer.concat(chunks as Uint8Array[]))).toMatch(
        /\r\n\r\nzwölf €\r\n-{28}[0-9a-f]{24}--\r\n$/,
      );
      expect(strings.locked).toBe(false);
    });

    it('reads a source only as its bytes are taken, not ahead', async () => {
      const a = watched(['one', 'two']);
      const { reader } = await open([{ data: a.stream, filename: 'a.txt' }]);
      expect(text((await reader.read()).value)).toMatch(/^-{28}[0-9a-f]{24}\r\nContent-Disposition/);
      await tick();
      expect([a.stream.locked, a.seen.pulls]).toEqual([false, 0]);
      expect(text((await reader.read()).value)).toBe('one');
      await tick();
      expect(a.seen.pulls).toBe(1);
    });

    it('destroy() cancels the source being read and ends the body: a later part is never opened', async () => {
      const a = watched(['one', 'two']);
      const later = watched(['never']);
      const { body, reader } = await open([
        { data: a.stream, filename: 'a.txt' },
        { data: new Uint8Array([1]), filename: 'b.bin' },
        { data: later.stream, filename: 'c.txt' },
      ]);
      await reader.read();
      expect(text((await reader.read()).value)).toBe('one');
      const reason = new Error('attempt failed');
      body.destroy(reason);
      await expect.poll(() => a.seen.cancelled).toBe(reason);
      const rest: string[] = [];
      for (let i = 0; i < 10; i++) {
        const { done, value } = await reader.read();
        if (done) break;
        rest.push(text(value));
      }
      // At most the part's closing CRLF was already on its way; nothing of the later parts.
      expect(rest.join('')).not.toMatch(/b\.bin|c\.txt|never/);
      expect([later.stream.locked, later.seen.pulls]).toEqual([false, 0]);
      expect(a.stream.locked).toBe(false);
    });

    it('cancelling the body (as fetch does when it stops) cancels the source being read', async () => {
      const a = watched(['one', 'two']);
      const { reader } = await open([{ data: a.stream, filename: 'a.txt' }]);
      await reader.read();
      await reader.read();
      const reason = new Error('fetch aborted');
      await reader.cancel(reason);
      await expect.poll(() => a.seen.cancelled).toBe(reason);
    });
  });
});
