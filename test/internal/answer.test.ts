/**
 * Answers judged honestly, on both wires: only JSON or an empty body is a success; a BOM
 * before JSON is tolerated alike; a 2xx body past `maxResponseBytes` is an error and is not
 * read further, so memory stays bounded whatever the server sends.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseRetryAfter } from '../../src/call-policy.js';
import {
  BadRequestError,
  type ClaimsApiError,
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsResponseValidationError,
  ConflictError,
  type Logger,
  outcomeOf,
} from '../../src/index.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  MAX_ERROR_BODY_BYTES,
  readErrorAnswer,
  readSuccess,
} from '../../src/internal/answer.js';
import type { WireResponse } from '../../src/wire/types.js';
import { type FaultServer, httpFaultServer, TOKEN, WIRES } from '../faults/fault-server.js';
import { event, incident } from '../helpers/fixtures.js';
import '../../src/errors.js';
import { stopped, WireFailure } from '../../src/wire/failure.js';

const LOGIN_PAGE = '<!doctype html><html><body><form action="/login">Sign in</form></body></html>';

describe.each(WIRES)('$name: answers judged honestly', (wire) => {
  let server: FaultServer;
  let answer: (res: ServerResponse) => void | Promise<void> = (res) => {
    res.end();
  };

  beforeAll(async () => {
    server = await httpFaultServer((_hit, _req, res) => answer(res));
  });
  afterAll(() => server.close());

  const client = (options: Partial<ClaimsClientOptions> = {}): ClaimsClient =>
    new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0, ...wire.options, ...options });

  const reply =
    (status: number, body: string | Buffer, type = 'application/json') =>
    (res: ServerResponse): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };

  it('a 200 text/html login page is no success where JSON or nothing is expected', async () => {
    answer = reply(200, LOGIN_PAGE, 'text/html');
    server.hits.length = 0;
    const calls: Array<() => Promise<unknown>> = [
      () => client().events.create('I-1', event),
      () => client().metadata.programmes(),
      () => client().webhooks.update(1, { isActive: true }),
      () => client().subscriptions.update(1, 2, { isActive: true }),
      () => client().incidents.create(incident),
    ];
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsResponseValidationError);
      const { body, issues } = error as ClaimsResponseValidationError;
      expect(body).toBe(LOGIN_PAGE);
      // The server answered 2xx: it acted, and the caller must not send it again blindly.
      expect(outcomeOf(error)).toBe('processed');
      expect(issues[0]?.message).toBe('the body is not valid JSON (content-type text/html)');
    }
    // Each was sent once: a 2xx means the server acted, so nothing is repeated.
    expect(server.hits).toHaveLength(calls.length);
  });

  it('an empty body is fine where nothing is expected, and JSON is ignored there', async () => {
    answer = reply(204, '');
    await expect(client().webhooks.update(1, { isActive: true })).resolves.toBeUndefined();
    await expect(client().events.create('I-1', event)).resolves.toBeUndefined();
    answer = reply(200, '{"updated":true}');
    await expect(client().subscriptions.update(1, 2, { isActive: false })).resolves.toBeUndefined();
  });

  it('a UTF-8 BOM before the JSON is tolerated, in a 2xx and in an error body', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    answer = reply(201, Buffer.concat([bom, Buffer.from('{"incidentId":"I-42"}')]));
    await expect(client().incidents.create(incident)).resolves.toEqual({ incidentId: 'I-42' });
    answer = reply(422, Buffer.concat([bom, Buffer.from('{"message":"bad date"}')]));
    await expect(client().incidents.create(incident)).rejects.toMatchObject({
      status: 422,
      body: { message: 'bad date' },
    });
  });

  it('a 2xx body longer than maxResponseBytes is an error, not a success', async () => {
    const big = JSON.stringify({ incidentId: 'I-1', padding: 'x'.repeat(5_000) });
    answer = reply(201, big);
    await expect(client({ maxResponseBytes: big.length }).incidents.create(incident)).resolves.toMatchObject({
      incidentId: 'I-1',
    });
    const error = await client({ maxResponseBytes: 1_000 })
      .incidents.create(incident)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as ClaimsResponseValidationError).issues[0]?.message).toBe(
      'the body is larger than maxResponseBytes (1000 bytes); reading stopped there',
    );
    expect(outcomeOf(error)).toBe('processed');
  });

  it('a 300 MB streamed 2xx body stops at the cap: memory stays bounded', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const total = 300 * 1024 * 1024;
    let sent = 0;
    answer = async (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"incidentId":"I-1","padding":"');
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          await new Promise<void>((resolve) => {
            const done = (): void => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
        }
      }
      res.end('"}');
    };
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      const error = await client()
        .incidents.create(incident)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsResponseValidationError);
      expect((error as ClaimsResponseValidationError).issues[0]?.message).toMatch(
        /larger than maxResponseBytes \(10485760 bytes\)/,
      );
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const grewMiB = (peak - before) / 2 ** 20;
    // The read stopped near the 10 MiB cap, far from the 300 MB offered (the server writes only
    // as fast as it is read, until the call hangs up: a call that went on reading, or waited for
    // the body's end, would let it send all of it; the call's duration is no part of this).
    expect(sent).toBeLessThan(total / 2);
    if (process.env.REPORT_MEMORY)
      console.log(`${wire.name}: RSS grew ${grewMiB.toFixed(1)} MiB, ${sent} bytes sent`);
    expect(grewMiB).toBeLessThan(100);
  });
});

describe('a 2xx value whose body echoed the token', () => {
  const response = (text: string): WireResponse => ({
    status: 200,
    rawHeaders: {},
    headers: () => ({}),
    text: async () => ({ text, truncated: false }),
  });
  const read = (text: string, token: string) =>
    readSuccess({}, response(text), { method: 'GET', url: 'http://x/y', token, maxResponseBytes: 10_000 });
  const token = 'tok_Ab+/=9';

  it('is redacted, in every spelling the redactor knows, keys and numbers included', async () => {
    await expect(
      read(`{"raw":"${token}","enc":"${encodeURIComponent(token)}","esc":"tok_Ab\\u002B\\/=9"}`, token),
    ).resolves.toEqual({ raw: '[REDACTED]', enc: '[REDACTED]', esc: '[REDACTED]' });
    await expect(read(`{"${token}":1}`, token)).resolves.toEqual({ '[REDACTED]': 1 });
    await expect(read('{"n":123456789}', '123456789')).resolves.toEqual({ n: '[REDACTED]' });
  });

  it('a body that cannot hold it is returned as parsed: % and \\ alone do not change a value', async () => {
    await expect(read('{"a":"50%","b":"x\\\\y"}', token)).resolves.toEqual({ a: '50%', b: 'x\\y' });
  });

  it('a token shorter than 8 characters is not looked for in values (it would be found in words)', async () => {
    await expect(read('{"attachmentId":"t"}', 't')).resolves.toEqual({ attachmentId: 't' });
    await expect(read('{"a":"tok_1234"}', 'tok_1234')).resolves.toEqual({ a: '[REDACTED]' });
    await expect(read('{"a":"tok_123"}', 'tok_123')).resolves.toEqual({ a: 'tok_123' });
  });
});

/**
 * Error answers the SDK must survive: a body that cannot be read (the status still gives the
 * class), a JSON body that is `null` (octokit #820 crashed on it), and a blank `retry-after-ms`
 * (it must fall back to the backoff, not mean "retry at once").
 */
describe('error answers the SDK must survive', () => {
  type Answer = (res: import('node:http').ServerResponse, hit: number) => void;
  let server: Server;
  let url = '';
  let hits = 0;
  let answer: Answer = (res) => res.end();

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => answer(res, hits));
    });
    server.on('connection', (s) => s.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function use(next: Answer): void {
    hits = 0;
    answer = next;
  }

  describe.each(WIRES)('error answers, $name', ({ options }) => {
    const client = (extra = {}) =>
      new ClaimsClient({ baseUrl: url, accessToken: 'tok', timeoutMs: 5_000, ...options, ...extra });

    it('an error answer whose body is cut off still rejects with the class of its status', async () => {
      use((res) => {
        res.writeHead(409, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"message":"dup');
        // The promised 500 bytes never come: reading the body fails.
        setTimeout(() => res.socket?.destroy(), 20);
      });
      const error = await client()
        .incidents.create(incident)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as ClaimsApiError).status).toBe(409);
      expect((error as ClaimsApiError).body).toBeUndefined();
      expect(hits).toBe(1);
    });

    it('a JSON body of null on a 4xx gives a BadRequestError, not a TypeError', async () => {
      use((res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('null');
      });
      const error = await client()
        .incidents.create(incident)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as ClaimsApiError).body).toBeNull();
      expect((error as Error).message).toMatch(/^400 POST /);
    });

    it.each(['', '   '])('a blank retry-after-ms (%j) waits the backoff, not 0 ms', async (blank) => {
      use((res, hit) => {
        if (hit === 1) {
          res.writeHead(429, { 'retry-after-ms': blank });
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('[]');
        }
      });
      const delays: number[] = [];
      const logger: Logger = {
        debug: () => undefined,
        info: (_m: string, fields?: unknown) => delays.push((fields as { delayMs: number }).delayMs),
        warn: () => undefined,
        error: () => undefined,
      };
      await client({ logger, logLevel: 'info' }).subscriptions.list(1);
      expect(hits).toBe(2);
      // The first backoff: 500 ms less up to 25 % jitter.
      expect(delays).toHaveLength(1);
      expect(delays[0]).toBeGreaterThanOrEqual(375);
      expect(delays[0]).toBeLessThanOrEqual(500);
    });
  });

  describe('parseRetryAfter', () => {
    it('a blank retry-after-ms gives way to Retry-After, or to nothing', () => {
      expect(parseRetryAfter({ 'retry-after-ms': '' })).toBeUndefined();
      expect(parseRetryAfter({ 'retry-after-ms': ' ' })).toBeUndefined();
      expect(parseRetryAfter({ 'retry-after-ms': '', 'retry-after': '2' })).toBe(2000);
      expect(parseRetryAfter({ 'retry-after-ms': '0' })).toBe(0);
      expect(parseRetryAfter({ 'retry-after-ms': '0', 'retry-after': '3' })).toBe(0);
    });

    it('Retry-After in seconds: fractions and surrounding spaces are read, trailing words are not', () => {
      expect(parseRetryAfter({ 'retry-after': '1.25' })).toBe(1250);
      expect(parseRetryAfter({ 'retry-after': ' 5 ' })).toBe(5000);
      expect(parseRetryAfter({ 'retry-after': '5 seconds' })).toBeUndefined();
      expect(parseRetryAfter({ 'retry-after': '' })).toBeUndefined();
      expect(parseRetryAfter({})).toBeUndefined();
    });
  });
});

/**
 * How an answer is judged, the promises a mutation of src/internal/answer.ts once got past:
 * the call named in the error, the evidence cut to 1,024 characters with an empty issue path,
 * the content type named only when sent, `responseBody: 'none'`, blank bodies, a truncated or
 * unreadable error body, and the two size caps.
 */
const context = {
  method: 'GET',
  url: 'https://claims.example.com/api/x',
  token: 's3cret',
  maxResponseBytes: 100,
};

function response(
  status: number,
  text: string | Error,
  headers: Record<string, string> = {},
  truncated = false,
): WireResponse & { asked: number[] } {
  const asked: number[] = [];
  return {
    status,
    asked,
    rawHeaders: headers,
    headers: () => headers,
    text: async (maxBytes) => {
      asked.push(maxBytes);
      if (text instanceof Error) throw text;
      return { text, truncated };
    },
  };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('readSuccess', () => {
  it('names the call, keeps 1,024 characters of a non-JSON body, and says no content type when none came', async () => {
    const error = await failure(readSuccess({}, response(200, `<p>${'x'.repeat(2_000)}`), context));
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    const { message, body, issues } = error as ClaimsResponseValidationError;
    expect(message).toBe(`Unexpected response from GET ${context.url}: the body is not valid JSON`);
    expect(body).toBe(`<p>${'x'.repeat(1_021)}`);
    expect(issues).toEqual([{ path: '', message: 'the body is not valid JSON' }]);
  });

  it('keeps 1,024 characters of a body past maxResponseBytes, with an empty issue path', async () => {
    const error = await failure(readSuccess({}, response(200, 'y'.repeat(2_000), {}, true), context));
    const { body, issues } = error as ClaimsResponseValidationError;
    expect(body).toBe('y'.repeat(1_024));
    expect(issues).toEqual([
      { path: '', message: 'the body is larger than maxResponseBytes (100 bytes); reading stopped there' },
    ]);
  });

  it("with responseBody 'none' resolves to undefined without checking the schema", async () => {
    const schema = z.object({ id: z.string() });
    await expect(
      readSuccess({ responseSchema: schema, responseBody: 'none' }, response(200, '{"other":1}'), context),
    ).resolves.toBeUndefined();
  });

  it('takes an empty or whitespace body as no value, and JSON without spaces as a value', async () => {
    await expect(readSuccess({}, response(200, ''), context)).resolves.toBeUndefined();
    await expect(readSuccess({}, response(200, ' \r\n\t '), context)).resolves.toBeUndefined();
    await expect(readSuccess({}, response(200, '{"a":1}'), context)).resolves.toEqual({ a: 1 });
    await expect(readSuccess({}, response(200, ' {"a": 1} '), context)).resolves.toEqual({ a: 1 });
  });
});

describe('readErrorAnswer', () => {
  it('reads at most 1 MiB of an error body; a cut one stays text, even when it parses', async () => {
    const answer = response(500, '{"message":"cut"}', {}, true);
    const read = await readErrorAnswer(answer, context);
    expect(answer.asked).toEqual([MAX_ERROR_BODY_BYTES]);
    expect(MAX_ERROR_BODY_BYTES).toBe(1_048_576);
    expect(read.body).toBe('{"message":"cut"}');
  });

  it('an error body that cannot be read leaves the status to speak; a stopped call wins', async () => {
    const reset = new WireFailure('cut', 'Connection failed: reset', 'maybe');
    const unread = await readErrorAnswer(response(503, reset), context);
    expect(unread).toEqual({ status: 503, headers: {}, body: undefined });
    const stop = stopped(new Error('the caller gave up'));
    await expect(readErrorAnswer(response(503, stop), context)).rejects.toBe(stop);
    // Anything else is no failure of the wire's: it is not swallowed.
    const bug = new TypeError('a bug');
    await expect(readErrorAnswer(response(503, bug), context)).rejects.toBe(bug);
  });

  it('redacts the token from the headers and the body', async () => {
    const read = await readErrorAnswer(
      response(401, '{"message":"bad token s3cret"}', { 'x-echo': 'Bearer s3cret' }),
      context,
    );
    expect(read).toEqual({
      status: 401,
      headers: { 'x-echo': 'Bearer [REDACTED]' },
      body: { message: 'bad token [REDACTED]' },
    });
  });
});

it('the default cap of a 2xx body is 10 MiB', () => {
  expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(10 * 1_048_576);
});
