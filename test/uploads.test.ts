import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import busboy from 'busboy';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ClaimsApiError,
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  InternalServerError,
  RateLimitError,
} from '../src/index.js';
import { contentTypeFor } from '../src/uploads/content-types.js';
import { contentDisposition } from '../src/uploads/parts.js';
import { WIRES } from './faults/fault-server.js';

const TOKEN = 'tok_upload_5ecr3t';

/** One part as busboy reads it, plus the raw Content-Disposition line from the wire. */
interface Part {
  disposition: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}

/** A request as the multipart server saw it. */
interface Seen {
  headers: IncomingMessage['headers'];
  parts: Part[];
  /** How the request ended: parsed whole, or cut off by the client. */
  outcome: 'complete' | 'aborted';
  /** Resolves when the request's socket closes. */
  socketClosed: Promise<void>;
}

type Reply = { status?: number; json?: unknown; headers?: Record<string, string> } | 'hang';

/**
 * A real node:http server on 127.0.0.1 that parses every multipart body with busboy as it
 * streams in, and answers with `reply` (by default one `{ filename, attachmentId }` per part).
 */
async function startMultipartServer() {
  const seen: Seen[] = [];
  // One 'close' listener per keep-alive socket, however many requests it carries.
  const closed = new WeakMap<Socket, Promise<void>>();
  const closedOf = (socket: Socket): Promise<void> => {
    let promise = closed.get(socket);
    if (!promise) {
      promise = new Promise((resolve) => socket.once('close', () => resolve()));
      closed.set(socket, promise);
    }
    return promise;
  };
  const sockets = new Set<Socket>();
  let reply: (parts: Part[], index: number) => Reply = (parts) => ({
    json: parts.map((p, i) => ({
      filename: p.filename,
      attachmentId: `00000000-0000-4000-8000-00000000000${i}`,
    })),
  });
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Part[] = [];
    const record: Seen = {
      headers: req.headers,
      parts,
      outcome: 'complete',
      socketClosed: closedOf(req.socket),
    };
    const index = seen.push(record) - 1;
    const raw: Buffer[] = [];
    req.on('data', (chunk: Buffer) => raw.push(chunk));
    // preservePath: read the name exactly as sent (by default busboy strips up to a \ or /).
    const bb = busboy({ headers: req.headers, preservePath: true });
    bb.on('file', (_name, file, info) => {
      const chunks: Buffer[] = [];
      file.on('data', (c: Buffer) => chunks.push(c));
      file.on('end', () =>
        parts.push({
          disposition: '',
          filename: info.filename ?? '',
          mimeType: info.mimeType,
          data: Buffer.concat(chunks),
        }),
      );
    });
    bb.on('error', () => {
      record.outcome = 'aborted';
    });
    bb.on('close', () => {
      // busboy hides an empty form name: read each part's Content-Disposition from the wire.
      const lines =
        Buffer.concat(raw)
          .toString('latin1')
          .match(/^Content-Disposition: .*$/gim) ?? [];
      lines.forEach((line, i) => {
        if (parts[i]) parts[i].disposition = Buffer.from(line, 'latin1').toString('utf8');
      });
      const answer = reply(parts, index);
      if (answer === 'hang') return;
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.json ?? {}));
    });
    req.on('aborted', () => {
      record.outcome = 'aborted';
    });
    req.pipe(bb);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    openSockets: () => sockets.size,
    reply(next: (parts: Part[], index: number) => Reply) {
      reply = next;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let server: Awaited<ReturnType<typeof startMultipartServer>>;
let dir: string;
const defaultReply = (parts: Part[]): Reply => ({
  json: parts.map((p, i) => ({
    filename: p.filename,
    attachmentId: `00000000-0000-4000-8000-00000000000${i}`,
  })),
});

beforeAll(async () => {
  server = await startMultipartServer();
  dir = await mkdtemp(join(tmpdir(), 'claims-uploads-test-'));
});
afterEach(() => {
  server.seen.length = 0;
  server.reply(defaultReply);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function client(options: Partial<ClaimsClientOptions> = {}): ClaimsClient {
  return new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, ...options });
}

/** Bytes that show any reordering or truncation: every position holds a different value. */
function pattern(size: number, seed = 7): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed + (i >> 8)) & 0xff;
  return out;
}

async function file(name: string, bytes: Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

describe('multipart body, per input kind', () => {
  it('sends every input kind in one request, byte-exact, with empty form names and the right types', async () => {
    const bytes = {
      path: pattern(300_000, 1),
      pathObj: pattern(70_000, 2),
      buffer: pattern(50_000, 3),
      u8: pattern(1_234, 4),
      blob: pattern(200_000, 5),
      readable: pattern(2_000_000, 6),
      web: pattern(90_000, 8),
    };
    const pathA = await file('claim form.pdf', bytes.path);
    const pathB = await file('scan.tmp', bytes.pathObj);
    const u8 = new Uint8Array(
      bytes.u8.buffer.slice(bytes.u8.byteOffset, bytes.u8.byteOffset + bytes.u8.length),
    );
    const result = await client().attachments.upload([
      pathA,
      { path: pathB, filename: 'Rechnung Nr. 5 – März.tiff' },
      { data: bytes.buffer, filename: 'damage photo.JPG' },
      { data: u8, filename: 'notes', contentType: 'text/plain; charset=utf-8' },
      { data: new Blob([new Uint8Array(bytes.blob)]), filename: 'video.mov' },
      { data: Readable.from(chunksOf(bytes.readable, 65_536)), filename: '写真 "front".heic' },
      {
        data: Readable.toWeb(Readable.from(chunksOf(bytes.web, 4096))) as ReadableStream<Uint8Array>,
        filename: 'mail.eml',
      },
    ]);

    expect(server.seen).toHaveLength(1);
    const [req] = server.seen;
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=-+[0-9a-f]+$/);
    const parts = req?.parts ?? [];
    expect(parts.map((p) => p.filename)).toEqual([
      'claim form.pdf',
      'Rechnung Nr. 5 – März.tiff',
      'damage photo.JPG',
      'notes',
      'video.mov',
      '写真 "front".heic',
      'mail.eml',
    ]);
    expect(parts.map((p) => p.mimeType)).toEqual([
      'application/pdf',
      'image/tiff',
      'image/jpeg',
      'text/plain',
      'video/quicktime',
      'image/heic',
      'message/rfc822',
    ]);
    for (const part of parts)
      expect(part.disposition).toMatch(/^Content-Disposition: form-data; name=""; filename="/);
    const expected = Object.values(bytes);
    for (const [i, part] of parts.entries()) {
      expect(part.data.equals(expected[i] as Buffer), `part ${i}`).toBe(true);
    }
    expect(result.map((r) => r.filename)).toEqual(parts.map((p) => p.filename));
  });

  it('accepts one item without an array', async () => {
    const path = await file('one.csv', Buffer.from('a,b\n1,2\n'));
    const result = await client().attachments.upload(path);
    expect(result).toEqual([{ filename: 'one.csv', attachmentId: '00000000-0000-4000-8000-000000000000' }]);
    expect(server.seen[0]?.parts[0]?.mimeType).toBe('text/csv');
  });

  it('sends Content-Length when every size is known, and chunked when a stream is in the list', async () => {
    const path = await file('sized.png', pattern(10_000));
    await client().attachments.upload([path, { data: new Blob(['abc']), filename: 'b.txt' }]);
    const sized = server.seen[0]?.headers;
    expect(sized?.['content-length']).toMatch(/^\d+$/);
    expect(sized?.['transfer-encoding']).toBeUndefined();

    await client().attachments.upload([path, { data: Readable.from([Buffer.from('x')]), filename: 's.bin' }]);
    const chunked = server.seen[1]?.headers;
    expect(chunked?.['content-length']).toBeUndefined();
    expect(chunked?.['transfer-encoding']).toBe('chunked');
    expect(server.seen[1]?.parts.map((p) => p.data.length)).toEqual([10_000, 1]);
  });

  it('streams a custom-fetch upload too (fetch: globalThis.fetch), byte-exact', async () => {
    const bytes = pattern(3_000_000);
    const path = await file('fetch.zip', bytes);
    const result = await client({ fetch: globalThis.fetch }).attachments.upload([
      path,
      { data: Readable.from([Buffer.from('tail')]), filename: 'ü.txt' },
    ]);
    expect(result).toHaveLength(2);
    const parts = server.seen[0]?.parts ?? [];
    expect(parts[0]?.data.equals(bytes)).toBe(true);
    expect(parts[0]?.mimeType).toBe('application/zip');
    expect(parts[1]?.filename).toBe('ü.txt');
    expect(server.seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

function* chunksOf(bytes: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('file names and content types', () => {
  it.each([
    'plain.pdf',
    'with spaces and (brackets).pdf',
    'quote "inside".pdf',
    'back\\slash.pdf',
    '100% sure.pdf',
    'Schadenmeldung – Müller.docx',
    '事故報告.xlsx',
    'emoji 🚗💥.jpg',
    "apostrophe's*.txt",
  ])('busboy reads back %j exactly', async (name) => {
    await client().attachments.upload({ data: Buffer.from('x'), filename: name });
    expect(server.seen[0]?.parts[0]?.filename).toBe(name);
  });

  it('writes plain ASCII names as browsers do, and adds filename* only when needed', () => {
    expect(contentDisposition('a b.pdf')).toBe('form-data; name=""; filename="a b.pdf"');
    expect(contentDisposition('ä "q".pdf')).toBe(
      `form-data; name=""; filename="ä %22q%22.pdf"; filename*=UTF-8''%C3%A4%20%22q%22.pdf`,
    );
  });

  it('looks the type up from the extension, case-insensitively, else application/octet-stream', () => {
    expect(contentTypeFor('A.PDF')).toBe('application/pdf');
    expect(contentTypeFor('x.docx')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(contentTypeFor('x.msg')).toBe('application/vnd.ms-outlook');
    expect(contentTypeFor('x.webp')).toBe('image/webp');
    expect(contentTypeFor('archive.unknownext')).toBe('application/octet-stream');
    expect(contentTypeFor('README')).toBe('application/octet-stream');
  });

  it('uses the given contentType over the extension, and the filename over the path for lookup', async () => {
    const path = await file('upload.tmp', Buffer.from('%PDF'));
    await client().attachments.upload([
      { path, filename: 'report.pdf' },
      { path, contentType: 'application/x-claim' },
    ]);
    expect(server.seen[0]?.parts.map((p) => [p.filename, p.mimeType])).toEqual([
      ['report.pdf', 'application/pdf'],
      ['upload.tmp', 'application/x-claim'],
    ]);
  });
});

describe('bad input: ClaimsValidationError, nothing sent', () => {
  async function rejects(files: unknown): Promise<ClaimsValidationError> {
    const error = await client()
      .attachments.upload(files as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(server.seen).toHaveLength(0);
    return error as ClaimsValidationError;
  }

  it('an empty list', async () => {
    expect((await rejects([])).issues).toEqual([
      { path: 'files', message: 'give at least one file to upload' },
    ]);
  });

  it('a missing file, a directory, reported together with the index of each', async () => {
    const good = await file('good.txt', Buffer.from('ok'));
    const sub = join(dir, 'a-directory');
    await mkdir(sub, { recursive: true });
    const error = await rejects([good, join(dir, 'nope.pdf'), { path: sub }]);
    expect(error.issues.map((i) => i.path)).toEqual(['files[1]', 'files[2]']);
    expect(error.issues[0]?.message).toMatch(/no such file: ".*nope\.pdf"/);
    expect(error.issues[1]?.message).toMatch(/is a directory/);
  });

  // The EACCES is faked: root reads any file whatever its mode, so a chmod test would skip itself there.
  it('an unreadable file (permission denied): the EACCES of open() is reported, nothing sent', async () => {
    // A real regular file, so stat() passes and the mocked open() is what refuses it.
    const path = await file('denied.pdf', Buffer.from('x'));
    vi.resetModules();
    vi.doMock('node:fs/promises', async (importOriginal) => {
      const real = await importOriginal<typeof import('node:fs/promises')>();
      const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return { ...real, open: () => Promise.reject(denied) };
    });
    try {
      const fresh = await import('../src/index.js');
      const c = new fresh.ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });
      const error = await c.attachments.upload(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(fresh.ClaimsValidationError);
      expect((error as ClaimsValidationError).issues).toEqual([
        { path: 'files', message: `cannot read ${JSON.stringify(path)}: permission denied` },
      ]);
      expect(server.seen).toHaveLength(0);
    } finally {
      vi.doUnmock('node:fs/promises');
      vi.resetModules();
    }
  });

  it.each([
    ['an empty path', '', /empty string/],
    ['a number', 42, /must be a file path/],
    ['data without filename', { data: Buffer.from('x') }, /filename is required/],
    ['data of the wrong kind', { data: 'text', filename: 'a.txt' }, /Buffer\/Uint8Array, a Blob/],
    ['both path and data', { path: '/x', data: Buffer.from('x') }, /either path or data/],
    [
      'a filename with a line break',
      { data: Buffer.from('x'), filename: 'a\r\nX-Evil: 1' },
      /control characters/,
    ],
    ['a contentType with a line break', { path: '/x', contentType: 'text/plain\r\nX-Evil: 1' }, /media type/],
    ['a stream already read', { data: Readable.from([]).resume().destroy(), filename: 'a' }, /already read/],
  ])('%s', async (_label, item, message) => {
    const error = await rejects([item]);
    expect(error.issues[0]?.path).toBe('files[0]');
    expect(error.issues[0]?.message).toMatch(message);
  });

  it('a locked web stream, and the same stream given twice', async () => {
    const locked = new ReadableStream<Uint8Array>();
    locked.getReader();
    const twice = Readable.from([Buffer.from('x')]);
    const error = await rejects([
      { data: locked, filename: 'a' },
      { data: twice, filename: 'b' },
      { data: twice, filename: 'c' },
    ]);
    expect(error.issues.map((i) => [i.path, i.message])).toEqual([
      ['files[0]', expect.stringMatching(/locked/)],
      ['files[2]', expect.stringMatching(/given twice/)],
    ]);
  });
});

describe('a source that fails while sending', () => {
  it('aborts the request: a ClaimsError with the source error as cause, socket closed, source destroyed', async () => {
    const boom = new Error('disk on fire');
    let sent = 0;
    const source = new Readable({
      read() {
        // Enough bytes to be mid-body on the server, then the failure.
        if (sent++ < 8) this.push(pattern(64 * 1024, sent));
        else this.destroy(boom);
      },
    });
    const path = await file('before.pdf', pattern(100_000));
    const error = await client()
      .attachments.upload([path, { data: source, filename: 'broken.bin' }])
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ClaimsError);
    expect(error).not.toBeInstanceOf(ClaimsValidationError);
    expect((error as Error).message).toBe('Upload aborted: reading "broken.bin" failed: disk on fire');
    expect((error as Error).cause).toBe(boom);
    expect(server.seen).toHaveLength(1);
    await server.seen[0]?.socketClosed;
    expect(server.seen[0]?.outcome).toBe('aborted');
    expect(source.destroyed).toBe(true);
  });

  it('a stream that fails before the upload reaches it fails the upload, not the process', async () => {
    const source = new Readable({ read() {} });
    setImmediate(() => source.destroy(new Error('early')));
    const error = await client()
      .attachments.upload({ data: source, filename: 'early.bin' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect((error as Error).message).toMatch(/reading "early.bin" failed: early/);
  });

  it('a file that vanishes between the check and the send: the same ClaimsError, no retry', async () => {
    const path = await file('vanishing.pdf', Buffer.from('x'));
    // Marked: an earlier test's aborted upload may still reach the server on its own connection.
    const upload = client().attachments.upload([{ data: Readable.from(slowly()), filename: 'first' }, path], {
      headers: { 'x-test': 'vanishing' },
    });
    async function* slowly() {
      yield Buffer.from('a');
      await rm(path);
      yield Buffer.from('b');
    }
    const error = await upload.catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/reading "vanishing.pdf" failed: ENOENT/);
    expect(server.seen.filter((req) => req.headers['x-test'] === 'vanishing')).toHaveLength(1);
  });

  it('destroys the stream source when the connection cannot be made (no file left open)', async () => {
    const source = Readable.from([Buffer.from('x')]);
    const c = new ClaimsClient({ baseUrl: 'http://127.0.0.1:1', accessToken: TOKEN });
    await expect(c.attachments.upload({ data: source, filename: 'a' })).rejects.toBeInstanceOf(
      ClaimsConnectionError,
    );
    expect(source.destroyed).toBe(true);
  });
});

describe('retries: an upload is a POST', () => {
  it('a 503 is not retried: exactly one request', async () => {
    server.reply(() => ({ status: 503, json: { message: 'busy' } }));
    const path = await file('r503.pdf', pattern(1000));
    await expect(client().attachments.upload(path)).rejects.toBeInstanceOf(InternalServerError);
    expect(server.seen).toHaveLength(1);
  });

  it('a timeout is not retried: exactly one request', async () => {
    server.reply(() => 'hang');
    const path = await file('timeout.pdf', pattern(1000));
    const error = await client({ timeoutMs: 300 })
      .attachments.upload(path)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
    expect(server.seen).toHaveLength(1);
  });

  it('a 429 with Retry-After: 0 is retried with the full, byte-exact body (buffer and path sources)', async () => {
    server.reply((parts, index) =>
      index === 0
        ? { status: 429, json: { message: 'slow down' }, headers: { 'retry-after': '0' } }
        : defaultReply(parts),
    );
    const onDisk = pattern(500_000, 3);
    const inMemory = pattern(300_000, 4);
    const path = await file('retry.pdf', onDisk);
    const result = await client().attachments.upload([path, { data: inMemory, filename: 'mem.bin' }]);
    expect(result).toHaveLength(2);
    expect(server.seen).toHaveLength(2);
    for (const seen of server.seen) {
      expect(seen.outcome).toBe('complete');
      expect(seen.parts[0]?.data.equals(onDisk)).toBe(true);
      expect(seen.parts[1]?.data.equals(inMemory)).toBe(true);
    }
  });

  it('a 429 with a Readable source is not retried: the stream cannot be read twice', async () => {
    server.reply(() => ({ status: 429, json: { message: 'slow down' }, headers: { 'retry-after': '0' } }));
    const error = await client()
      .attachments.upload({ data: Readable.from([Buffer.from('once')]), filename: 'once.bin' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(server.seen).toHaveLength(1);
  });

  it('a 401 with a token provider is not re-sent when the source is a one-shot stream', async () => {
    server.reply(() => ({ status: 401, json: { message: 'expired' } }));
    let calls = 0;
    const c = client({ accessToken: () => `t${++calls}` });
    await expect(
      c.attachments.upload({ data: Readable.from([Buffer.from('x')]), filename: 'a' }),
    ).rejects.toMatchObject({ status: 401 });
    expect(server.seen).toHaveLength(1);
  });

  it('an early 429 (answered before the body was read) stops the sending and retries cleanly', async () => {
    const early = createServer((req, res) => {
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
      res.end('{}');
      req.resume();
    });
    await new Promise<void>((resolve) => early.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(early.address() as AddressInfo).port}`;
      const path = await file('early.bin', pattern(8 * 1024 * 1024));
      const c = new ClaimsClient({ baseUrl: url, accessToken: TOKEN, maxRetries: 1 });
      await expect(c.attachments.upload(path)).rejects.toBeInstanceOf(RateLimitError);
    } finally {
      early.closeAllConnections();
      await new Promise((resolve) => early.close(resolve));
    }
  });
});

describe('cold start', () => {
  it('importing the main entry loads neither form-data nor node:fs from the SDK', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const probe = join(dir, 'probe.cjs');
    await writeFile(
      probe,
      `const Module = require('node:module');
const load = Module._load;
Module._load = function (request, parent) {
  if (/^(node:)?fs(\\/promises)?$|^form-data$/.test(request)) console.log('LOAD', request, parent && parent.filename);
  return load.apply(this, arguments);
};`,
    );
    const hooks = join(dir, 'hooks.mjs');
    await writeFile(
      hooks,
      `export async function resolve(s, c, next) {
  if (/^(node:)?fs(\\/promises)?$|^form-data$/.test(s)) console.log('LOAD', s, c.parentURL);
  return next(s, c);
}`,
    );
    const register = join(dir, 'register.mjs');
    await writeFile(
      register,
      `import { register } from 'node:module'; register(${JSON.stringify(`file://${hooks}`)});`,
    );
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          '-r',
          probe,
          '--import',
          register,
          '--import',
          'tsx',
          '-e',
          `await import(${JSON.stringify(join(root, 'src/index.ts'))}); console.log('LOADED')`,
        ],
        { cwd: root, timeout: 20_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    expect(output).toContain('LOADED');
    const loads = output.split('\n').filter((line) => line.startsWith('LOAD '));
    // undici's own entry requires node:fs (its mock/snapshot code); the SDK's files must not.
    expect(loads.filter((line) => line.includes('/src/') || line.includes('form-data'))).toEqual([]);
  });
});

/**
 * Upload sources that can be read only once (a Node `Readable`, a web `ReadableStream`, or a list
 * holding one) are never sent a second time, even after a 429; and an upload still being sent
 * when an error answer comes is stopped (its stream destroyed), not left open.
 */
describe('sources read only once', () => {
  let server: Server;
  let url = '';
  let hits = 0;
  /** What the server does with each request; `readFirst` reads the whole body before answering. */
  let answer: { status: number; readFirst: boolean } = { status: 429, readFirst: true };

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      const reply = () => {
        if (res.headersSent) return;
        const ok = answer.status < 300;
        res.writeHead(answer.status, { 'content-type': 'application/json', 'retry-after-ms': '1' });
        res.end(ok ? JSON.stringify([{ filename: 'a.txt', attachmentId: 'a1' }]) : '{"message":"slow down"}');
      };
      req.on('error', () => undefined);
      res.on('error', () => undefined);
      if (answer.readFirst) {
        req.resume();
        req.on('end', reply);
      } else reply();
    });
    server.on('connection', (s) => s.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    hits = 0;
    answer = { status: 429, readFirst: true };
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const webStream = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('web bytes'));
        controller.close();
      },
    });

  describe.each(WIRES)('one-shot upload sources, $name', ({ options }) => {
    const client = () => new ClaimsClient({ baseUrl: url, accessToken: 'tok', maxRetries: 2, ...options });

    it('a Buffer-only upload is re-sent after a 429 (the control: replayable sources repeat)', async () => {
      await expect(
        client().attachments.upload([
          { data: Buffer.from('a'), filename: 'a.txt' },
          { data: Buffer.from('b'), filename: 'b.txt' },
        ]),
      ).rejects.toBeInstanceOf(ClaimsApiError);
      expect(hits).toBe(3);
    });

    it('a web ReadableStream source is sent once, even after a 429', async () => {
      const error = await client()
        .attachments.upload({ data: webStream(), filename: 'w.txt' })
        .catch((e: unknown) => e);
      expect((error as ClaimsApiError).status).toBe(429);
      expect(hits).toBe(1);
    });

    it('a list mixing a Buffer with a Readable is sent once, even after a 429', async () => {
      const error = await client()
        .attachments.upload([
          { data: Buffer.from('a'), filename: 'a.txt' },
          { data: Readable.from([Buffer.from('node bytes')]), filename: 'r.txt' },
        ])
        .catch((e: unknown) => e);
      expect((error as ClaimsApiError).status).toBe(429);
      expect(hits).toBe(1);
    });

    it('a list mixing a Buffer with a web stream is sent once, even after a 429', async () => {
      const error = await client()
        .attachments.upload([
          { data: webStream(), filename: 'w.txt' },
          { data: Buffer.from('a'), filename: 'a.txt' },
        ])
        .catch((e: unknown) => e);
      expect((error as ClaimsApiError).status).toBe(429);
      expect(hits).toBe(1);
    });

    it('an upload still being sent when an error answer comes is destroyed', async () => {
      answer = { status: 413, readFirst: false };
      // One chunk, then nothing: without the SDK stopping it, this stream would stay open forever.
      let pushed = false;
      const endless = new Readable({
        read() {
          if (!pushed) {
            pushed = true;
            this.push(Buffer.alloc(64 * 1024, 1));
          }
        },
      });
      const error = await client()
        .attachments.upload({ data: endless, filename: 'big.bin' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsApiError);
      expect((error as ClaimsApiError).status).toBe(413);
      expect(hits).toBe(1);
      await expect.poll(() => endless.destroyed, { timeout: 2_000 }).toBe(true);
    });
  });
});
