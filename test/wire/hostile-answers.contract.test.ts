/**
 * One truth per answer, on every wire (#27.6): the contract suite of hostile answers, in the
 * shape of hono's `router/common.case.test.ts`. One list of cases, each a raw answer a server
 * (or a proxy) may send and what a call must make of it: its value, or its error's class,
 * outcome and fields. Every case runs on every wire: undici, `node:http`, the cold-start wire
 * (the default), a user's `fetch`, and the edge build (the runtime's `fetch`). A PATCH or a POST
 * is never sent twice for any of them, and the connection is not left poisoned: the next call
 * on the same client gets its own answer.
 */
import type { Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ClaimsClient as EdgeClient } from '../../src/edge.js';
import {
  ClaimsApiError,
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsConnectionError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  InternalServerError,
  type Outcome,
  outcomeOf,
} from '../../src/index.js';
import { WIRE_CHOICE } from '../../src/wire/cold-start-wire.js';
import { type FaultServer, type Hit, rawFaultServer, scenario, TOKEN } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

type Client = ClaimsClient | EdgeClient;

/** The wires, each making a client for `url` with `options`. */
const WIRES: ReadonlyArray<{
  name: string;
  make: (url: string, options: Partial<ClaimsClientOptions>) => Client;
}> = [
  ['undici', { [WIRE_CHOICE]: 'undici' }],
  ['node:http', { [WIRE_CHOICE]: 'http' }],
  ['cold-start (the default)', {}],
  ['fetch', { fetch: globalThis.fetch }],
].map(([name, wire]) => ({
  name: name as string,
  make: (url: string, options: Partial<ClaimsClientOptions>) =>
    new ClaimsClient({ baseUrl: url, accessToken: TOKEN, timeoutMs: 2_000, ...(wire as object), ...options }),
}));
const ALL: typeof WIRES = [
  ...WIRES,
  {
    name: 'edge build',
    make: (url, options) =>
      new EdgeClient({ baseUrl: url, accessToken: TOKEN, timeoutMs: 2_000, ...options }),
  },
];

/** The calls a case may make: a PATCH (resolves to nothing), a POST (a value) and a GET. */
const CALLS = {
  patch: (client: Client) => client.webhooks.update(7, { isActive: true }),
  create: (client: Client) => client.incidents.create(incident, { checkExtendedFields: false }),
  list: (client: Client) => client.subscriptions.list(7),
} as const;
const METHOD = { patch: 'PATCH', create: 'POST', list: 'GET' } as const;

type Expected =
  | { value: unknown }
  | {
      error: new (...args: never[]) => Error;
      outcome: Outcome;
      fields?: Record<string, unknown>;
      message?: RegExp;
    };

interface Case {
  name: string;
  call: keyof typeof CALLS;
  /** What the server writes back for the first request (later ones get a plain good answer). */
  answer: (socket: Socket) => void;
  expected: Expected;
  /** How many requests the server sees; 1 unless said (a GET may be repeated). */
  hits?: number;
  options?: Partial<ClaimsClientOptions>;
}

const CREATED = '{"incidentId":"INC-1","extra":"kept"}';
const created = { incidentId: 'INC-1', extra: 'kept' };
const head = (status: string, headers: string[]) =>
  `HTTP/1.1 ${status}\r\n${[...headers, ''].join('\r\n')}\r\n`;
const json = 'content-type: application/json';

/** An answer whose body is `body` encoded, with its exact length. */
const encoded = (status: string, coding: string, body: Buffer) => (socket: Socket) =>
  socket.write(
    Buffer.concat([
      Buffer.from(head(status, [json, `content-encoding: ${coding}`, `content-length: ${body.length}`])),
      body,
    ]),
  );
const raw = (text: string | Buffer) => (socket: Socket) => socket.write(text);
const rawThenClose = (text: string) => (socket: Socket) => socket.end(text);

const CASES: Case[] = [
  // Statuses without a body: whatever follows the head is not read as one.
  {
    name: '204 with a body (content-length): no body, resolved',
    call: 'patch',
    answer: raw(`${head('204 No Content', ['content-length: 5'])}hello`),
    expected: { value: undefined },
  },
  {
    name: '204 with a chunked body: no body, resolved',
    call: 'patch',
    answer: raw(`${head('204 No Content', ['transfer-encoding: chunked'])}5\r\nhello\r\n0\r\n\r\n`),
    expected: { value: undefined },
  },
  {
    name: '205 with a body: no body, resolved',
    call: 'patch',
    answer: raw(`${head('205 Reset Content', ['content-length: 5'])}hello`),
    expected: { value: undefined },
  },
  {
    name: '304 with a body: an API error without a body, unknown (a 3xx is not followed)',
    call: 'patch',
    answer: raw(`${head('304 Not Modified', ['content-length: 5'])}hello`),
    expected: { error: ClaimsApiError, outcome: 'unknown', fields: { status: 304, body: '' } },
  },
  // Compressed answers the client did not ask for: decoded within the same cap.
  {
    name: 'a gzip answer: decoded',
    call: 'create',
    answer: encoded('201 Created', 'gzip', gzipSync(CREATED)),
    expected: { value: created },
  },
  {
    name: 'a br answer: decoded',
    call: 'create',
    answer: encoded('201 Created', 'br', brotliCompressSync(CREATED)),
    expected: { value: created },
  },
  {
    name: 'a deflate answer (zlib): decoded',
    call: 'create',
    answer: encoded('201 Created', 'deflate', deflateSync(CREATED)),
    expected: { value: created },
  },
  {
    name: 'a deflate answer (raw, no zlib header): decoded',
    call: 'create',
    answer: encoded('201 Created', 'deflate', deflateRawSync(CREATED)),
    expected: { value: created },
  },
  {
    name: 'a gzip error answer: decoded, the server’s words kept',
    call: 'create',
    answer: encoded('422 Unprocessable Entity', 'gzip', gzipSync('{"message":"no such programme"}')),
    expected: {
      error: ClaimsApiError,
      outcome: 'rejected',
      fields: { status: 422, body: { message: 'no such programme' } },
    },
  },
  {
    name: 'a corrupt gzip 2xx: unusable, processed',
    call: 'create',
    answer: encoded('201 Created', 'gzip', Buffer.from('0123456789')),
    expected: { error: ClaimsResponseValidationError, outcome: 'processed', message: /could not be decoded/ },
  },
  {
    name: 'a corrupt gzip 2xx to a PATCH: processed, not sent again',
    call: 'patch',
    answer: encoded('200 OK', 'gzip', Buffer.from('0123456789')),
    expected: { error: ClaimsResponseValidationError, outcome: 'processed' },
  },
  {
    name: 'a gzip bomb past maxResponseBytes: reading stops at the cap, processed',
    call: 'create',
    answer: encoded('201 Created', 'gzip', gzipSync(Buffer.alloc(8 * 1024 * 1024, 32))),
    options: { maxResponseBytes: 64 * 1024 },
    expected: {
      error: ClaimsResponseValidationError,
      outcome: 'processed',
      message: /larger than maxResponseBytes \(65536 bytes\)/,
    },
  },
  // Framing the parser cannot read: no usable answer.
  {
    name: 'a content-length that is not a number: no answer, unknown',
    call: 'patch',
    answer: raw(`${head('200 OK', ['content-length: abc'])}{}`),
    expected: { error: ClaimsConnectionError, outcome: 'unknown', fields: { attempts: 1 } },
  },
  {
    name: 'two different content-lengths: no answer, unknown',
    call: 'create',
    answer: raw(`${head('201 Created', [json, 'content-length: 2', 'content-length: 3'])}{}`),
    expected: { error: ClaimsConnectionError, outcome: 'unknown' },
  },
  {
    name: 'transfer-encoding and content-length together: no answer, unknown',
    call: 'patch',
    answer: raw(
      `${head('200 OK', [json, 'content-length: 2', 'transfer-encoding: chunked'])}2\r\n{}\r\n0\r\n\r\n`,
    ),
    expected: { error: ClaimsConnectionError, outcome: 'unknown' },
  },
  {
    name: 'a status line with no status: no answer, unknown',
    call: 'create',
    answer: rawThenClose('HTTP/1.1 abc\r\ncontent-length: 0\r\n\r\n'),
    expected: { error: ClaimsConnectionError, outcome: 'unknown' },
  },
  {
    name: 'the connection closed with no answer at all: unknown, a POST not sent again',
    call: 'create',
    answer: (socket) => socket.end(),
    expected: { error: ClaimsConnectionError, outcome: 'unknown', fields: { attempts: 1 } },
  },
  {
    name: 'bytes after a complete answer: the answer stands, the next call gets its own',
    call: 'create',
    answer: raw(
      `${head('201 Created', [json, `content-length: ${CREATED.length}`])}${CREATED}HTTP/1.1 500 Junk\r\n\r\n`,
    ),
    expected: { value: created },
  },
  {
    name: 'not HTTP at all: no answer, unknown',
    call: 'patch',
    answer: rawThenClose('SSH-2.0-OpenSSH_9.6\r\n'),
    expected: { error: ClaimsConnectionError, outcome: 'unknown' },
  },
  {
    name: 'headers too large (100 KB): no answer, unknown',
    call: 'patch',
    answer: raw(`${head('200 OK', [`x-big: ${'a'.repeat(100_000)}`, 'content-length: 0'])}`),
    expected: { error: ClaimsConnectionError, outcome: 'unknown' },
  },
  {
    name: 'a chunked body with a broken chunk size, after a 2xx head: cut, unknown',
    call: 'patch',
    answer: rawThenClose(`${head('200 OK', [json, 'transfer-encoding: chunked'])}zz\r\n{}\r\n0\r\n\r\n`),
    expected: { error: ClaimsConnectionError, outcome: 'unknown' },
  },
  {
    name: 'fewer bytes than content-length, then close: cut, unknown',
    call: 'create',
    answer: rawThenClose(`${head('201 Created', [json, 'content-length: 100'])}{"incid`),
    expected: { error: ClaimsConnectionError, outcome: 'unknown', fields: { method: 'POST', attempts: 1 } },
  },
  {
    name: 'a chunked body cut mid-way: cut, unknown',
    call: 'patch',
    answer: rawThenClose(`${head('200 OK', [json, 'transfer-encoding: chunked'])}5\r\n{"a":`),
    expected: { error: ClaimsConnectionError, outcome: 'unknown' },
  },
  {
    name: 'a GET whose 2xx body is cut is sent again (a GET is safe to repeat)',
    call: 'list',
    answer: rawThenClose(`${head('200 OK', [json, 'content-length: 100'])}[`),
    hits: 2,
    expected: { value: [] },
  },
  {
    name: 'a 5xx cut mid-body: the status speaks, unknown',
    call: 'create',
    answer: rawThenClose(`${head('503 Service Unavailable', [json, 'content-length: 100'])}{"mess`),
    expected: { error: InternalServerError, outcome: 'unknown', fields: { status: 503, body: undefined } },
  },
  {
    name: 'a 2xx body that stalls past timeoutMs: a timeout, processed (a 2xx answer had begun)',
    call: 'patch',
    options: { timeoutMs: 300 },
    answer: raw(`${head('200 OK', [json, 'content-length: 10'])}{`),
    expected: { error: ClaimsTimeoutError, outcome: 'processed' },
  },
  {
    name: 'no answer head within timeoutMs: a timeout, unknown (said once), a POST not sent again',
    call: 'create',
    options: { timeoutMs: 300 },
    answer: () => undefined,
    expected: {
      error: ClaimsTimeoutError,
      outcome: 'unknown',
      fields: { method: 'POST', attempts: 1 },
      message:
        /^POST \S+: Request timed out: no progress for 300 ms[^(]*(\([A-Z_]+\) )?\(the request may have been processed\)$/,
    },
  },
  // Answers that are odd but valid.
  {
    name: 'HTTP/1.0, its body delimited by the close: read whole',
    call: 'create',
    answer: rawThenClose(`HTTP/1.0 201 Created\r\n${json}\r\n\r\n${CREATED}`),
    expected: { value: created },
  },
  {
    name: '102 Processing, then the answer',
    call: 'create',
    answer: raw(
      `HTTP/1.1 102 Processing\r\n\r\n${head('201 Created', [json, `content-length: ${CREATED.length}`])}${CREATED}`,
    ),
    expected: { value: created },
  },
  {
    name: 'a byte order mark before the JSON',
    call: 'create',
    answer: (socket) => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(CREATED)]);
      socket.write(
        Buffer.concat([Buffer.from(head('201 Created', [json, `content-length: ${body.length}`])), body]),
      );
    },
    expected: { value: created },
  },
];

/** The plain good answer every request after the case's first gets. */
function good(hit: Hit, socket: Socket): void {
  const body = hit.method === 'GET' ? '[]' : hit.method === 'POST' ? CREATED : '';
  const status = hit.method === 'PATCH' ? '204 No Content' : hit.method === 'POST' ? '201 Created' : '200 OK';
  socket.write(`${head(status, [json, `content-length: ${Buffer.byteLength(body)}`])}${body}`);
}

function server(answer: Case['answer']): Promise<FaultServer> {
  let first = true;
  return rawFaultServer((hit, socket) => {
    if (first) {
      first = false;
      answer(socket);
    } else good(hit, socket);
  });
}

describe.each(ALL)('$name wire: hostile answers', ({ make }) => {
  it.each(CASES)('$name', async ({ call, answer, expected, hits = 1, options = {} }) => {
    await scenario(server(answer), async (fault) => {
      const client = make(fault.url, { maxRetries: 2, ...options });
      try {
        const outcome = await CALLS[call](client).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        if ('value' in expected) {
          expect(outcome).toEqual({ value: expected.value });
        } else {
          expect(
            'error' in outcome,
            `resolved with ${JSON.stringify((outcome as { value?: unknown }).value)}`,
          ).toBe(true);
          const error = (outcome as { error: Error }).error;
          expect(error).toBeInstanceOf(expected.error);
          expect(outcomeOf(error)).toBe(expected.outcome);
          if (expected.message) expect(error.message).toMatch(expected.message);
          if (error instanceof ClaimsConnectionError || error instanceof ClaimsApiError) {
            expect(error).toMatchObject({ method: METHOD[call], url: expect.stringContaining(fault.url) });
          }
          if (expected.fields) expect(error).toMatchObject(expected.fields);
          const note = '(the request may have been processed)';
          expect(error.message.includes(note)).toBe(expected.outcome === 'unknown');
          expect(error.message.split(note).length).toBeLessThanOrEqual(2);
          // Built once: the stack begins with the class and the final message, said once.
          expect(error.stack?.startsWith(`${error.name}: ${error.message}\n`)).toBe(true);
          expect(error.stack?.split(note).length).toBeLessThanOrEqual(2);
        }
        // A PATCH or a POST is sent once, whatever came back.
        expect(fault.hits.filter((hit) => hit.method === METHOD[call])).toHaveLength(hits);
        // The connection was not left poisoned: the next call gets its own answer.
        await expect(CALLS.list(client)).resolves.toEqual([]);
      } finally {
        await client.close();
      }
    });
  });
});
