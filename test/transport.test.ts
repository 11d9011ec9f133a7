import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { isTokenProviderFailure } from '../src/call-errors.js';
import { attemptOfError } from '../src/call-policy.js';
import {
  AuthenticationError,
  BadRequestError,
  ClaimsApiError,
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  ConflictError,
  InternalServerError,
  type Logger,
  NotFoundError,
  outcomeOf,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from '../src/index.js';
import { waitingOn } from '../src/internal/abort-fanout.js';
import { RequestLog } from '../src/logger.js';
import type { TraceCall } from '../src/telemetry/types.js';
import {
  type AccessTokenProvider,
  type StreamBody,
  Transport,
  type TransportConfig,
} from '../src/transport.js';
import { VERSION } from '../src/version.js';
import { WireFailure } from '../src/wire/failure.js';
import type { Wire, WireResponse } from '../src/wire/types.js';
import {
  closedPort,
  TOKEN as FAULT_TOKEN,
  httpFaultServer,
  makeClient,
  scenario,
  WIRES,
} from './faults/fault-server.js';
import { event, incident } from './helpers/fixtures.js';
import { abortOnPause, capturePauses } from './helpers/pauses.js';
import { json, type Recorded, useRecordingServer } from './helpers/recording-server.js';

const TOKEN = 'tok_live_transport_5ecr3t';

const server = useRecordingServer();

afterEach(() => {
  vi.restoreAllMocks();
});

function client(options: Partial<ClaimsClientOptions> = {}): ClaimsClient {
  return new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, ...options });
}

describe('URL and headers', () => {
  it('joins a base URL with a path prefix and a trailing slash', async () => {
    server.handle((_r, res) => json(res, 200, []));
    await client({ baseUrl: `${server.url}/api/v2/` }).subscriptions.list(3);
    expect(server.requests[0]?.path).toBe('/api/v2/webhooks/3/subscriptions');
  });

  it('merges client and per-call headers case-insensitively, later wins', async () => {
    server.handle((_r, res) => json(res, 200, []));
    const c = client({
      headers: { 'X-Partner': 'acme', 'X-Trace': 'client' },
      userAgent: 'broker-portal/2.1',
    });
    await c.subscriptions.list(1, { headers: { 'x-trace': 'call' } });
    const headers = server.requests[0]?.headers ?? {};
    expect(headers['x-partner']).toBe('acme');
    expect(headers['x-trace']).toBe('call');
    expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(headers.accept).toBe('application/json');
    expect(headers['user-agent']).toBe(
      `claims-notification-sdk/0.2.0 node/${process.versions.node} broker-portal/2.1`,
    );
  });

  it('sends JSON bodies with Content-Type application/json and the exact bytes', async () => {
    server.handle((_r, res) => json(res, 201, { incidentId: 'I-1' }));
    await client().incidents.create(incident);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(server.requests[0]?.body.toString()).toBe(JSON.stringify(incident));
  });
});

describe('token provider', () => {
  it('is called for each request', async () => {
    let calls = 0;
    server.handle((_r, res) => json(res, 200, []));
    const c = client({ accessToken: () => `t${++calls}` });
    await c.subscriptions.list(1);
    await c.subscriptions.list(1);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
  });

  it('gives up with AuthenticationError after the second 401', async () => {
    server.handle((_r, res) => json(res, 401, { message: 'no' }));
    const c = client({ accessToken: () => 'always-bad' });
    await expect(c.subscriptions.list(1)).rejects.toBeInstanceOf(AuthenticationError);
    expect(server.requests).toHaveLength(2);
  });

  it('wraps a failing provider in a ClaimsError and sends nothing', async () => {
    const c = client({
      accessToken: () => {
        throw new Error('vault down');
      },
    });
    const error = await c.subscriptions.list(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect((error as Error).message).toBe('accessToken provider failed: Error: vault down');
    expect(((error as Error).cause as Error).message).toBe('vault down');
    expect(server.requests).toHaveLength(0);
  });

  it('rejects an empty token from the provider', async () => {
    await expect(client({ accessToken: () => '' }).subscriptions.list(1)).rejects.toThrow(
      /returned no token/,
    );
  });
});

describe('status to error class', () => {
  const cases: Array<[number, typeof ClaimsApiError]> = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [418, ClaimsApiError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
  ];
  it.each(cases)(
    '%i -> %s with status, body, headers, requestId, method, url',
    async (status, ErrorClass) => {
      server.handle((_r, res) =>
        json(res, status, { message: `status ${status}` }, { 'x-request-id': `req-${status}` }),
      );
      const error = await client({ maxRetries: 0 })
        .metadata.programmes()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ErrorClass);
      expect((error as Error).name).toBe(ErrorClass.name);
      expect(error).toMatchObject({
        status,
        body: { message: `status ${status}` },
        requestId: `req-${status}`,
        method: 'GET',
        url: `${server.url}/metadata/programmes`,
      });
      expect((error as ClaimsApiError).headers['content-type']).toBe('application/json');
    },
  );

  it('keeps a non-JSON error body as text', async () => {
    server.handle((_r, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    const error = (await client({ maxRetries: 0 })
      .metadata.programmes()
      .catch((e: unknown) => e)) as ClaimsApiError;
    expect(error.body).toBe('<html>Bad gateway</html>');
    expect(error.message).toBe(
      `502 GET ${server.url}/metadata/programmes: <html>Bad gateway</html> (the request may have been processed)`,
    );
  });

  it('rejects a 2xx body that is not JSON where JSON is promised', async () => {
    server.handle((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"incidentId": "I-');
    });
    const error = await client()
      .incidents.create(incident)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as ClaimsResponseValidationError).body).toBe('{"incidentId": "I-');
  });
});

describe('retries', () => {
  function failThenSucceed(failures: number, status: number, headers: Record<string, string> = {}) {
    let n = 0;
    server.handle((_r, res) =>
      n++ < failures
        ? json(res, status, { message: 'busy' }, { 'retry-after': '0', ...headers })
        : json(res, 200, []),
    );
  }

  it.each([408, 429, 500, 502, 503, 504])('GET is retried on %i', async (status) => {
    failThenSucceed(2, status);
    await expect(client().subscriptions.list(1)).resolves.toEqual([]);
    expect(server.requests).toHaveLength(3);
  });

  it('PATCH is retried on 503', async () => {
    failThenSucceed(1, 503);
    await client().webhooks.update(1, { isActive: true });
    expect(server.requests).toHaveLength(2);
  });

  it.each([400, 404, 409, 422, 501])('GET is not retried on %i', async (status) => {
    failThenSucceed(1, status);
    await expect(client().subscriptions.list(1)).rejects.toBeInstanceOf(ClaimsApiError);
    expect(server.requests).toHaveLength(1);
  });

  it.each([500, 502, 503, 504, 408])(
    'POST is never retried on %i: it may have been processed',
    async (status) => {
      failThenSucceed(1, status);
      await expect(client().incidents.create(incident)).rejects.toBeInstanceOf(ClaimsApiError);
      expect(server.requests).toHaveLength(1);
    },
  );

  it('POST is retried on 429: the server did not process it', async () => {
    let n = 0;
    server.handle((_r, res) =>
      n++ < 2 ? json(res, 429, {}, { 'retry-after': '0' }) : json(res, 201, { incidentId: 'I-1' }),
    );
    await expect(client().incidents.create(incident)).resolves.toEqual({ incidentId: 'I-1' });
    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((r) => r.body.toString() === JSON.stringify(incident))).toBe(true);
  });

  it('stops after maxRetries and throws the last answer’s error', async () => {
    failThenSucceed(10, 503);
    await expect(client({ maxRetries: 1 }).subscriptions.list(1)).rejects.toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(2);
  });

  it('per-call maxRetries wins over the client’s', async () => {
    failThenSucceed(10, 503);
    await expect(client({ maxRetries: 5 }).subscriptions.list(1, { maxRetries: 0 })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry when Retry-After asks for more than 60 s', async () => {
    failThenSucceed(1, 503, { 'retry-after': '120' });
    const pauses = capturePauses();
    const error = (await client()
      .subscriptions.list(1)
      .catch((e: unknown) => e)) as ClaimsApiError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.headers['retry-after']).toBe('120');
    expect(server.requests).toHaveLength(1);
    expect(pauses).toEqual([]);
  });

  it('waits as long as Retry-After says', async () => {
    failThenSucceed(1, 429, { 'retry-after': '1' });
    const pauses = capturePauses();
    await client().subscriptions.list(1);
    expect(pauses).toEqual([1_000]);
    expect(server.requests).toHaveLength(2);
  });

  it('backs off exponentially without Retry-After: 0.5 s doubled each retry up to 8 s, less up to 25% jitter', async () => {
    let n = 0;
    server.handle((_r, res) => (n++ < 6 ? json(res, 503, {}) : json(res, 200, [])));
    const pauses = capturePauses();
    // Half the jitter: each pause is 87.5% of its step.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    await client({ maxRetries: 6 }).subscriptions.list(1);
    expect(pauses).toEqual([437.5, 875, 1_750, 3_500, 7_000, 7_000]);
    expect(server.requests).toHaveLength(7);
  });

  it('the jitter takes at most 25% off, and none when the draw is 0', async () => {
    for (const [draw, first] of [
      [0, 500],
      [0.999_999, 375.000_125],
    ] as const) {
      let n = 0;
      server.handle((_r, res) => (n++ < 1 ? json(res, 503, {}) : json(res, 200, [])));
      const pauses = capturePauses();
      vi.spyOn(Math, 'random').mockReturnValue(draw);
      await client().subscriptions.list(1);
      expect(pauses).toEqual([first]);
      vi.restoreAllMocks();
    }
  });
});

describe('network failures', () => {
  async function closedPort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  it('connection refused: ClaimsConnectionError with cause, a POST is retried (never opened)', async () => {
    const port = await closedPort();
    const c = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: TOKEN, maxRetries: 1 });
    const pauses = capturePauses();
    const error = await c.incidents.create(incident).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(error).not.toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect((error as Error).cause).toBeDefined();
    // one backoff proves the second attempt happened
    expect(pauses).toHaveLength(1);
  });

  it('a POST whose answer never comes times out once and is NOT repeated', async () => {
    server.handle(() => undefined);
    const error = await client({ timeoutMs: 200 })
      .events.create('I-1', event)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toMatch(/no progress for 200 ms/);
    expect(server.requests).toHaveLength(1);
  });

  it('a GET that times out is retried', async () => {
    let n = 0;
    server.handle((_r, res) => {
      if (n++ === 0) return;
      json(res, 200, []);
    });
    await expect(client({ timeoutMs: 200 }).subscriptions.list(1)).resolves.toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('per-call timeoutMs wins', async () => {
    server.handle(() => undefined);
    const error = await client({ timeoutMs: 10_000 })
      .subscriptions.list(1, { timeoutMs: 150, maxRetries: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toMatch(/no progress for 150 ms/);
  });
});

describe('abort', () => {
  it('aborts an attempt in flight and does not retry it', async () => {
    const controller = new AbortController();
    // Abort once the server has the request, and never answer it.
    server.handle(() => void setTimeout(() => controller.abort(), 20));
    const error = await client()
      .subscriptions.list(1, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(server.requests).toHaveLength(1);
  });

  it('aborts while an error answer’s body is still arriving: AbortError, not the API error', async () => {
    const controller = new AbortController();
    server.handle((_r, res) => {
      // 400: not retried, so only the body read itself can notice the abort
      res.writeHead(400, { 'content-type': 'application/json' });
      res.write('{"message":"partial', () => setTimeout(() => controller.abort(), 50));
    });
    const error = await client()
      .subscriptions.list(1, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(server.requests).toHaveLength(1);
  });

  it('aborts a wait between retries: the 30 s Retry-After wait is begun, and the abort cuts it short', async () => {
    server.handle((_r, res) => json(res, 503, {}, { 'retry-after': '30' }));
    const controller = new AbortController();
    // The abort lands in the wait itself, however loaded the machine is.
    const { pauses, ends } = abortOnPause(controller);
    const error = await client()
      .subscriptions.list(1, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(pauses).toEqual([30_000]);
    // Settled by the abort, not by waiting out the 30 s.
    expect(await Promise.all(ends)).toEqual(['cut short']);
    expect(server.requests).toHaveLength(1);
  });
});

describe('the token never leaks', () => {
  it('is redacted from an error body that echoes it, and absent from every representation', async () => {
    server.handle((r, res) =>
      json(
        res,
        401,
        { message: `invalid token ${String(r.headers.authorization)}` },
        { 'www-authenticate': 'Bearer' },
      ),
    );
    const c = client();
    const error = (await c.subscriptions.list(1).catch((e: unknown) => e)) as ClaimsApiError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.body).toEqual({ message: 'invalid token Bearer [REDACTED]' });
    const representations = [
      error.message,
      String(error),
      error.stack ?? '',
      JSON.stringify(error),
      JSON.stringify(error.body),
      inspect(error, { depth: 10, showHidden: true }),
      inspect(c, { depth: 10, showHidden: true }),
      JSON.stringify(c),
    ];
    for (const text of representations) expect(text).not.toContain(TOKEN);
  });

  it('is absent from connection errors and from a provider-based client', async () => {
    const c = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:1',
      accessToken: async () => TOKEN,
      maxRetries: 0,
    });
    const error = await c.subscriptions.list(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(inspect(c, { depth: 10, showHidden: true })).not.toContain(TOKEN);
  });
});

describe('guards found in review', () => {
  const viaFetch = { fetch: (url: string, init: RequestInit) => globalThis.fetch(url, init) };

  it.each([
    ['undici', {}],
    ['fetch', viaFetch],
  ])('an abort while the token provider works sends nothing (%s wire)', async (_name, wire) => {
    const controller = new AbortController();
    const c = client({
      ...wire,
      accessToken: async () => {
        controller.abort();
        return 'fresh';
      },
    });
    const error = await c.incidents.create(incident, { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a provider token a header cannot carry, without quoting it', async () => {
    const secret = 'SECRET\r\nX-Injected: 1';
    const error = await client({ ...viaFetch, accessToken: () => secret })
      .subscriptions.list(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain('SECRET');
    expect(server.requests).toHaveLength(0);
  });

  it('redacts the token from the headers of an error answer', async () => {
    server.handle((r, res) => json(res, 401, {}, { 'x-echo-auth': String(r.headers.authorization) }));
    const error = (await client()
      .subscriptions.list(1)
      .catch((e: unknown) => e)) as ClaimsApiError;
    expect(error.headers['x-echo-auth']).toBe('Bearer [REDACTED]');
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(inspect(error, { depth: 10 })).not.toContain(TOKEN);
  });

  it.each([
    ['a header value with a line break', { headers: { 'x-a': 'b\r\nc' } }, 'options.headers.x-a'],
    ['a header name with a space', { headers: { 'x a': 'b' } }, 'options.headers.x a'],
    ['a negative timeout', { timeoutMs: -5 }, 'options.timeoutMs'],
    ['a zero timeout', { timeoutMs: 0 }, 'options.timeoutMs'],
    ['a fractional maxRetries', { maxRetries: 0.5 }, 'options.maxRetries'],
  ])('rejects per-call options with %s before sending', async (_what, options, path) => {
    const error = (await client()
      .subscriptions.list(1, options)
      .catch((e: unknown) => e)) as ClaimsValidationError;
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(error.issues.map((i) => i.path)).toEqual([path]);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['undici', {}],
    ['fetch', viaFetch],
  ])('a 3xx answer is an error, neither followed nor success (%s wire)', async (_name, wire) => {
    server.handle((_r, res) => {
      res.writeHead(308, { location: `${server.url}/elsewhere` });
      res.end();
    });
    const error = (await client(wire)
      .webhooks.update(1, { isActive: false })
      .catch((e: unknown) => e)) as ClaimsApiError;
    expect(error).toBeInstanceOf(ClaimsApiError);
    expect(error.status).toBe(308);
    expect(error.headers.location).toBe(`${server.url}/elsewhere`);
    expect(server.requests.map((r) => r.path)).toEqual(['/webhooks/1']);
  });
});

describe('the header sets a static token shares between calls', () => {
  const answer = {
    status: 200,
    rawHeaders: {},
    headers: () => ({}),
    text: async () => ({ text: '{}', truncated: false }),
  };
  function recording(accessToken: string | (() => string)) {
    const seen: Array<Record<string, string>> = [];
    const transport = new Transport({
      baseUrl: 'http://127.0.0.1:1/api',
      accessToken,
      timeoutMs: 1_000,
      deadlineMs: 10_000,
      maxRetries: 0,
      headers: { 'x-team': 'claims' },
      userAgent: 'test',
      maxResponseBytes: 1_000,
      wire: async (req) => {
        seen.push(req.headers);
        return answer;
      },
      watchBody: (body) => body,
    });
    return { transport, seen };
  }

  it('are built once, frozen, and handed to every call as they are (one with a body, one without)', async () => {
    const { transport, seen } = recording('tok');
    await transport.request({ method: 'GET', path: '/a' });
    await transport.request({ method: 'GET', path: '/b' });
    await transport.request({ method: 'POST', path: '/c', body: {} });
    await transport.request({ method: 'POST', path: '/d', body: {} });
    expect(seen[0]).toBe(seen[1]);
    expect(seen[2]).toBe(seen[3]);
    expect(seen[0]).not.toBe(seen[2]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(seen[0]).toEqual({
      accept: 'application/json',
      'user-agent': 'test',
      'x-team': 'claims',
      authorization: 'Bearer tok',
    });
    expect(seen[2]).toEqual({ ...seen[0], 'content-type': 'application/json' });
  });

  it('a call with headers of its own, or a token provider, gets a set of its own', async () => {
    const { transport, seen } = recording('tok');
    await transport.request({ method: 'GET', path: '/a' }, { headers: { 'x-call': '1' } });
    await transport.request({ method: 'GET', path: '/a' }, { headers: { 'x-call': '1' } });
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[0]).toEqual({
      accept: 'application/json',
      'user-agent': 'test',
      'x-team': 'claims',
      'x-call': '1',
      authorization: 'Bearer tok',
    });
    const provided = recording(() => 'tok2');
    await provided.transport.request({ method: 'GET', path: '/a' });
    await provided.transport.request({ method: 'GET', path: '/a' });
    expect(provided.seen[0]).not.toBe(provided.seen[1]);
    expect(Object.isFrozen(provided.seen[0])).toBe(false);
    expect(provided.seen[0]?.authorization).toBe('Bearer tok2');
  });
});

/**
 * The transport builds headers two ways: a shared frozen set (static token, no per-call headers,
 * no upload) and a per-request copy (token function, uploads, per-call headers). Both must carry
 * the SDK's User-Agent and Accept, the client's `headers`, the bearer token and, for a JSON
 * body, `content-type: application/json`. Checked on a real server, on both wires.
 */
describe('the headers of both header paths', () => {
  const server = useRecordingServer();

  function expectBase(req: Recorded, token: string): void {
    expect(req.headers['user-agent']).toBe(
      `claims-notification-sdk/${VERSION} node/${process.versions.node} portal/2`,
    );
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['x-tenant']).toBe('acme');
    expect(req.headers.authorization).toBe(`Bearer ${token}`);
  }

  const PATHS = [
    {
      path: 'static token (shared header set)',
      token: 'static-tok' as string | (() => Promise<string>),
      call: {},
    },
    { path: 'token function', token: async () => 'fn-tok', call: {} },
    { path: 'per-call headers', token: 'static-tok', call: { headers: { 'x-call': 'c1' } } },
  ] as const;

  describe.each(WIRES)('request headers, $name', ({ options }) => {
    describe.each(PATHS)('$path', ({ token, call }) => {
      const expected = typeof token === 'string' ? token : 'fn-tok';
      const client = () =>
        new ClaimsClient({
          baseUrl: server.url,
          accessToken: token,
          headers: { 'X-Tenant': 'acme' },
          userAgent: 'portal/2',
          ...options,
        });

      it('a JSON POST carries the base headers and content-type: application/json', async () => {
        server.handle((_r, res) => json(res, 201, { incidentId: 'i1' }));
        await client().incidents.create(incident, call);
        const [req] = server.requests as [Recorded];
        expectBase(req, expected);
        expect(req.headers['content-type']).toBe('application/json');
        expect(req.json).toEqual(incident);
        if ('headers' in call) expect(req.headers['x-call']).toBe('c1');
      });

      it('a GET carries the base headers and no content-type', async () => {
        server.handle((_r, res) => json(res, 200, []));
        await client().subscriptions.list(3, call);
        const [req] = server.requests as [Recorded];
        expectBase(req, expected);
        expect(req.headers['content-type']).toBeUndefined();
      });

      it('an upload carries the base headers and its multipart content-type', async () => {
        server.handle((_r, res) => json(res, 201, [{ filename: 'a.txt', attachmentId: 'a1' }]));
        await client().attachments.upload({ data: Buffer.from('hello'), filename: 'a.txt' }, call);
        const [req] = server.requests as [Recorded];
        expectBase(req, expected);
        expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      });
    });

    it('per-call headers win over the client headers, case-insensitively', async () => {
      const c = new ClaimsClient({
        baseUrl: server.url,
        accessToken: async () => 't',
        headers: { 'X-Tenant': 'acme' },
        ...options,
      });
      server.handle((_r, res) => json(res, 200, []));
      await c.subscriptions.list(3, { headers: { 'x-tenant': 'other' } });
      expect(server.requests[0]?.headers['x-tenant']).toBe('other');
    });
  });
});

/**
 * The 401 rule with a token FUNCTION: only a 401 makes the SDK ask the provider again and send
 * the request again, once; any other error answer neither fetches a token nor re-sends a POST.
 * The refresh does not use up one of the call's retries.
 */
describe('a token function', () => {
  const server = useRecordingServer();

  function counted(): { provider: () => Promise<string>; calls: () => number } {
    let n = 0;
    return {
      provider: async () => {
        n++;
        return `tok-${n}`;
      },
      calls: () => n,
    };
  }

  describe.each(WIRES)('token function, $name', ({ options }) => {
    const client = (accessToken: () => Promise<string>, maxRetries = 2) =>
      new ClaimsClient({ baseUrl: server.url, accessToken, maxRetries, timeoutMs: 5_000, ...options });

    it.each([500, 409, 422, 403, 503])(
      'a POST answered %i is sent once and the provider asked once',
      async (status) => {
        server.handle((_r, res) => json(res, status, { message: 'no' }));
        const token = counted();
        const error = await client(token.provider)
          .incidents.create(incident)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsApiError);
        expect((error as ClaimsApiError).status).toBe(status);
        expect(server.requests).toHaveLength(1);
        expect(token.calls()).toBe(1);
      },
    );

    it('a POST answered 401 asks the provider once more and is sent once more with the new token', async () => {
      server.handle((_r, res) => json(res, 401, { message: 'expired' }));
      const token = counted();
      const error = await client(token.provider)
        .incidents.create(incident)
        .catch((e: unknown) => e);
      expect((error as ClaimsApiError).status).toBe(401);
      expect(token.calls()).toBe(2);
      expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    });

    it('a 401 then 201 resolves with the second token', async () => {
      server.handle((_r, res) =>
        server.requests.length === 1 ? json(res, 401, {}) : json(res, 201, { incidentId: 'inc-1' }),
      );
      const token = counted();
      const created = await client(token.provider, 0).incidents.create(incident);
      expect(created.incidentId).toBe('inc-1');
      expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    });

    it('the 401 refresh does not use up a retry: 401, 503, 200 succeeds with maxRetries 1', async () => {
      const answers = [401, 503, 200];
      server.handle((_r, res) => json(res, answers[server.requests.length - 1] ?? 500, []));
      const token = counted();
      const list = await client(token.provider, 1).subscriptions.list(7);
      expect(list).toEqual([]);
      expect(server.requests).toHaveLength(3);
      expect(token.calls()).toBe(3);
    });

    it('with a static token a 401 is not re-sent', async () => {
      server.handle((_r, res) => json(res, 401, {}));
      const c = new ClaimsClient({ baseUrl: server.url, accessToken: 'static', ...options });
      await expect(c.incidents.create(incident)).rejects.toBeInstanceOf(AuthenticationError);
      expect(server.requests).toHaveLength(1);
    });
  });
});

/**
 * The request path (src/transport.ts) as the server sees it and as the caller gets it back:
 * the exact headers for each kind of call, the query string, which statuses are a success,
 * the outcome of an error answer, and a call stopped before it began. On both wires.
 */
describe('the requests sent', () => {
  const UA = expect.stringMatching(/^claims-notification-sdk\/\S+ node\/\S+$/);

  function answer(status: number, body = '') {
    return (_hit: unknown, _req: unknown, res: import('node:http').ServerResponse): void => {
      res.writeHead(status, body ? { 'content-type': 'application/json' } : {});
      res.end(body);
    };
  }

  /** The headers the server saw, less the connection's own (host, content-length, ...). */
  function sent(headers: Record<string, string | string[] | undefined>): Record<string, unknown> {
    const own = [
      'host',
      'connection',
      'content-length',
      'transfer-encoding',
      'accept-encoding',
      'accept-language',
      'sec-fetch-mode',
      'traceparent',
    ];
    return Object.fromEntries(Object.entries(headers).filter(([name]) => !own.includes(name)));
  }

  describe.each(WIRES)('$name', ({ options: wire }) => {
    it('a GET with a fixed token: accept, user-agent, authorization, and no content-type', async () => {
      await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
        await makeClient(server.url, wire).subscriptions.list(5);
        expect(sent(server.hits[0]?.headers ?? {})).toEqual({
          accept: 'application/json',
          'user-agent': UA,
          authorization: `Bearer ${FAULT_TOKEN}`,
        });
      });
    });

    it('a POST with a token function and headers of the call’s own: the same, plus content-type and those', async () => {
      await scenario(httpFaultServer(answer(201, '{"eventId":"E-1"}')), async (server) => {
        const client = makeClient(server.url, { ...wire, accessToken: async () => 'tok_from_fn' });
        await client.events.create('I-1', event, { headers: { 'x-correlation': 'c-1' } });
        expect(sent(server.hits[0]?.headers ?? {})).toEqual({
          accept: 'application/json',
          'user-agent': UA,
          authorization: 'Bearer tok_from_fn',
          'content-type': 'application/json',
          'x-correlation': 'c-1',
        });
        expect(JSON.parse(server.hits[0]?.body.toString() ?? '')).toEqual(event);
      });
    });

    it('a GET with a token function: no content-type either', async () => {
      await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
        await makeClient(server.url, { ...wire, accessToken: () => 'tok_fn' }).subscriptions.list(5);
        expect(server.hits[0]?.headers['content-type']).toBeUndefined();
        expect(server.hits[0]?.headers.authorization).toBe('Bearer tok_fn');
      });
    });

    it('an empty query leaves no "?" on the path; a query is encoded', async () => {
      await scenario(httpFaultServer(answer(200, '{}')), async (server) => {
        const client = makeClient(server.url, wire);
        await client.metadata.programmes({});
        await client.metadata.programmes({ country: 'GB & IE' });
        expect(server.hits.map((h) => h.path)).toEqual([
          '/metadata/programmes',
          '/metadata/programmes?country=GB+%26+IE',
        ]);
      });
    });

    it.each([
      [200, 'success'],
      [299, 'success'],
      [300, 'error'],
      [304, 'error'],
    ])('status %i is a %s', async (status, kind) => {
      await scenario(httpFaultServer(answer(status, status === 304 ? '' : '[]')), async (server) => {
        const result = await makeClient(server.url, { ...wire, maxRetries: 0 })
          .subscriptions.list(5)
          .then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
        if (kind === 'success') expect(result).toEqual({ value: [] });
        else {
          expect((result as { error: ClaimsApiError }).error.status).toBe(status);
          expect(outcomeOf((result as { error: unknown }).error)).toBe('unknown');
        }
      });
    });

    it.each([
      [400, 'rejected'],
      [404, 'rejected'],
      [499, 'rejected'],
      [500, 'unknown'],
      [501, 'unknown'],
    ])('an answer %i to a POST: outcome %s', async (status, outcome) => {
      await scenario(httpFaultServer(answer(status, '{"message":"no"}')), async (server) => {
        const error = (await makeClient(server.url, { ...wire, maxRetries: 0 })
          .events.create('I-1', event)
          .catch((e: unknown) => e)) as ClaimsApiError;
        expect(error.status).toBe(status);
        expect(outcomeOf(error)).toBe(outcome);
        expect(server.hits).toHaveLength(1);
      });
    });

    it.each([
      [400, 'rejected'],
      [500, 'unknown'],
    ])('aborted while an answer %i’s body is read: AbortError, outcome %s', async (status, outcome) => {
      const controller = new AbortController();
      await scenario(
        httpFaultServer((_hit, _req, res) => {
          res.writeHead(status, { 'content-type': 'application/json', 'content-length': '40' });
          res.write('{"message":');
          // The answer's head is out; its body stalls, and the caller gives up meanwhile.
          setTimeout(() => controller.abort(), 100);
        }),
        async (server) => {
          const error = await makeClient(server.url, { ...wire, maxRetries: 0, timeoutMs: 5_000 })
            .events.create('I-1', event, { signal: controller.signal })
            .catch((e: unknown) => e);
          expect((error as Error).name).toBe('AbortError');
          expect(outcomeOf(error)).toBe(outcome);
        },
      );
    });

    it('an already aborted signal: AbortError, the token function never asked, nothing sent', async () => {
      await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
        const provider = vi.fn(async () => 'tok_fn');
        const client = makeClient(server.url, { ...wire, accessToken: provider });
        const error = await client.subscriptions
          .list(5, { signal: AbortSignal.abort() })
          .catch((e: unknown) => e);
        expect((error as Error).name).toBe('AbortError');
        expect(outcomeOf(error)).toBe('not_sent');
        expect(provider).not.toHaveBeenCalled();
        expect(server.hits).toHaveLength(0);
      });
    });
  });

  describe('per-call options refused before anything is sent', () => {
    it.each([
      ['deadlineMs 0', { deadlineMs: 0 }, 'options.deadlineMs'],
      ['deadlineMs 1.5', { deadlineMs: 1.5 }, 'options.deadlineMs'],
      ['timeoutMs 0', { timeoutMs: 0 }, 'options.timeoutMs'],
      ['maxRetries 1.5', { maxRetries: 1.5 }, 'options.maxRetries'],
    ])('%s', async (_name, bad, path) => {
      await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
        const error = await makeClient(server.url)
          .subscriptions.list(5, bad)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsValidationError);
        expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual([path]);
        expect(server.hits).toHaveLength(0);
      });
    });
  });
});

/**
 * The request path's decisions that a caller sees in the result and in the logs: the token
 * provider's context and its failures, the Retry-After limit at its edge, a stepped call's
 * deadline checked like any call's, and logs written only at the level asked for.
 */
describe('decisions a caller sees', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function answer(status: number, body: string, headers: Record<string, string> = {}) {
    return (_hit: unknown, _req: unknown, res: import('node:http').ServerResponse): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
  }

  function captureLogger(): Logger & { lines: string[] } {
    const lines: string[] = [];
    const at =
      (level: string) =>
      (message: string): void => {
        lines.push(`${level} ${message}`);
      };
    return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }

  describe('the token provider', () => {
    it('is asked with forceRefresh false, then true after a 401 with the refused token', async () => {
      await scenario(
        httpFaultServer((hit, _req, res) =>
          hit.headers.authorization === 'Bearer second'
            ? answer(200, '[]')(hit, _req, res)
            : answer(401, '{"message":"expired"}')(hit, _req, res),
        ),
        async (server) => {
          const contexts: unknown[] = [];
          const client = makeClient(server.url, {
            accessToken: (context) => {
              contexts.push(context);
              return contexts.length === 1 ? 'first' : 'second';
            },
          });
          await expect(client.subscriptions.list(1)).resolves.toEqual([]);
          expect(contexts).toEqual([{ forceRefresh: false }, { forceRefresh: true, refusedToken: 'first' }]);
        },
      );
    });

    it('failing when asked again after a 401: "accessToken provider failed after a 401", the 401 not retried further', async () => {
      await scenario(httpFaultServer(answer(401, '{"message":"expired"}')), async (server) => {
        const cause = new Error('vault sealed');
        let asked = 0;
        const client = makeClient(server.url, {
          accessToken: () => {
            if (++asked === 2) throw cause;
            return 'first';
          },
        });
        const error = await client.subscriptions.list(1).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsError);
        expect(error).not.toBeInstanceOf(AuthenticationError);
        expect((error as Error).message).toBe('accessToken provider failed after a 401: Error: vault sealed');
        expect((error as Error).cause).toBe(cause);
        expect(server.hits).toHaveLength(1);
      });
    });

    it.each([
      ['an empty string', '', 'accessToken provider returned no token (expected a non-empty string)'],
      ['a number', 42, 'accessToken provider returned no token (expected a non-empty string)'],
      [
        'a token with a line break',
        'a\nb',
        'accessToken provider returned a token with characters a header cannot carry',
      ],
    ])('returning %s: a ClaimsError saying so, nothing sent', async (_name, token, message) => {
      await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
        const client = makeClient(server.url, { accessToken: () => token as string });
        const error = await client.subscriptions.list(1).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsError);
        expect((error as Error).message).toBe(message);
        expect(server.hits).toHaveLength(0);
      });
    });
  });

  describe('Retry-After at the limit (60 s)', () => {
    it('60 s is waited for: here the call’s 3 s deadline ends it first, as a deadline', async () => {
      await scenario(httpFaultServer(answer(503, '{}', { 'retry-after': '60' })), async (server) => {
        const pauses = capturePauses();
        const error = await makeClient(server.url, { deadlineMs: 3_000 })
          .subscriptions.list(1)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toContain('Deadline passed');
        expect((error as Error).cause).toBeInstanceOf(InternalServerError);
        // A wait past the deadline is not begun: the call ends at once.
        expect(pauses).toEqual([]);
        expect(server.hits).toHaveLength(1);
      });
    });

    it('61 s is not: the 503 itself, at once', async () => {
      await scenario(httpFaultServer(answer(503, '{}', { 'retry-after': '61' })), async (server) => {
        const error = await makeClient(server.url, { deadlineMs: 3_000 })
          .subscriptions.list(1)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InternalServerError);
        expect(server.hits).toHaveLength(1);
      });
    });
  });

  describe('a call made of steps (incidents.create)', () => {
    it('refuses an invalid deadlineMs before any step, as any call does', async () => {
      await scenario(httpFaultServer(answer(201, '{"incidentId":"I-1"}')), async (server) => {
        const error = await makeClient(server.url)
          .incidents.create({ ...incident, extendedFields: [] }, { deadlineMs: 0 })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsValidationError);
        expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual(['options.deadlineMs']);
        expect(server.hits).toHaveLength(0);
      });
    });
  });

  describe('a body JSON cannot carry', () => {
    it('is one issue on the body as a whole, saying why', async () => {
      await scenario(httpFaultServer(answer(201, '{}')), async (server) => {
        const error = await makeClient(server.url)
          .events.create('I-1', { ...event, extra: 1n } as typeof event)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsValidationError);
        expect((error as Error).message).toMatch(/cannot be sent as JSON.*BigInt/);
        expect((error as ClaimsValidationError).issues).toEqual([
          { path: '', message: 'cannot be sent as JSON: Do not know how to serialize a BigInt' },
        ]);
        expect(server.hits).toHaveLength(0);
      });
    });
  });

  describe('logs only at the level asked for', () => {
    function quietConsole() {
      return (['debug', 'info', 'warn', 'error', 'log'] as const).map((m) =>
        vi.spyOn(console, m).mockImplementation(() => undefined),
      );
    }

    it('logging off: a failed connection retried, a 401 asked again and a long Retry-After write nothing', async () => {
      const spies = quietConsole();
      const port = await closedPort();
      await expect(
        makeClient(`http://127.0.0.1:${port}`, { maxRetries: 1 }).subscriptions.list(1),
      ).rejects.toBeInstanceOf(ClaimsError);
      await scenario(httpFaultServer(answer(401, '{}')), async (server) => {
        await expect(
          makeClient(server.url, { accessToken: () => 'tok' }).subscriptions.list(1),
        ).rejects.toBeInstanceOf(AuthenticationError);
      });
      await scenario(httpFaultServer(answer(503, '{}', { 'retry-after': '120' })), async (server) => {
        await expect(makeClient(server.url).subscriptions.list(1)).rejects.toBeInstanceOf(
          InternalServerError,
        );
      });
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    });

    it('logging at info: the 401 asked again is a retry line; no debug lines', async () => {
      await scenario(httpFaultServer(answer(401, '{}')), async (server) => {
        const logger = captureLogger();
        await makeClient(server.url, { accessToken: () => 'tok_fn', logger, logLevel: 'info' })
          .subscriptions.list(1)
          .catch(() => undefined);
        expect(logger.lines).toEqual([
          `info claims-sdk: retrying GET ${server.url}/webhooks/1/subscriptions in 0 ms (attempt 2) after 401 (token provider asked again)`,
        ]);
      });
    });

    it('logging at warn: a failed connection retried writes nothing', async () => {
      const logger = captureLogger();
      const port = await closedPort();
      await makeClient(`http://127.0.0.1:${port}`, { maxRetries: 1, logger, logLevel: 'warn' })
        .subscriptions.list(1)
        .catch(() => undefined);
      expect(logger.lines).toEqual([]);
    });
  });

  /** fetch's failure with undici's error (and its code) inside, as a user's fetch gives it. */
  function fetchFailure(code: string): TypeError {
    return new TypeError('fetch failed', {
      cause: Object.assign(new Error(`${code} from the socket`), { code }),
    });
  }

  describe('the outcome of a call whose attempts failed differently', () => {
    it('a GET reset after sending, then refused: unknown (the first may have been acted on)', async () => {
      let calls = 0;
      const client = makeClient('http://127.0.0.1:9', {
        maxRetries: 1,
        fetch: async () => {
          throw fetchFailure(calls++ === 0 ? 'ECONNRESET' : 'ECONNREFUSED');
        },
      });
      const error = await client.subscriptions.list(1).catch((e: unknown) => e);
      expect(calls).toBe(2);
      expect(outcomeOf(error)).toBe('unknown');
    });

    it('a GET refused, then aborted during the backoff: not_sent', async () => {
      const controller = new AbortController();
      const client = makeClient('http://127.0.0.1:9', {
        maxRetries: 1,
        fetch: async () => {
          setTimeout(() => controller.abort(), 50);
          throw fetchFailure('ECONNREFUSED');
        },
      });
      const error = await client.subscriptions
        .list(1, { signal: controller.signal })
        .catch((e: unknown) => e);
      expect((error as Error).name).toBe('AbortError');
      expect(outcomeOf(error)).toBe('not_sent');
    });
  });
});

/**
 * A call made of steps (incidents.create with extendedFields: the form metadata look-up, then
 * the POST) shares one deadline: a step begins only while at least 1 ms of it is left, and
 * a step refused for time says `not_sent`. A fake clock stands for the time the look-up takes.
 */
describe("a stepped call's deadline", () => {
  beforeAll(async () => {
    // Loads the lazily imported schemas with real timers.
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      fetch: async () => Response.json([]),
    });
    await client.subscriptions.list(1);
  });
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A client whose metadata look-up takes `lookupMs` of the fake clock. */
  function client(lookupMs: number, sent: string[]): ClaimsClient {
    return new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      maxRetries: 0,
      fetch: async (url, init) => {
        sent.push(`${init.method} ${new URL(url).pathname}`);
        if (init.method === 'GET') {
          vi.advanceTimersByTime(lookupMs);
          return Response.json([]);
        }
        return Response.json({ incidentId: 'I-1' }, { status: 201 });
      },
    });
  }

  describe('the deadline of a stepped call', () => {
    it('1 ms left after the look-up: the POST is still sent', async () => {
      const sent: string[] = [];
      const created = await client(999, sent).incidents.create(
        { ...incident, extendedFields: [] },
        { deadlineMs: 1_000 },
      );
      expect(created).toEqual({ incidentId: 'I-1' });
      expect(sent).toEqual(['GET /metadata/incidents', 'POST /incidents']);
    });

    it('nothing left after the look-up: ClaimsTimeoutError, not_sent, the POST never sent', async () => {
      const sent: string[] = [];
      const error = await client(1_000, sent)
        .incidents.create({ ...incident, extendedFields: [] }, { deadlineMs: 1_000 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsTimeoutError);
      expect((error as Error).message).toBe(
        'Deadline passed: the call did not finish within deadlineMs (1000 ms)',
      );
      expect(outcomeOf(error)).toBe('not_sent');
      expect(sent).toEqual(['GET /metadata/incidents']);
    });
  });
});

/**
 * A streamed body (an upload) when the call is aborted while its source is being opened, or
 * just after: nothing is sent, the call rejects with the AbortError, and the source is
 * destroyed once it is open (a file handle is not left behind). Driven on the Transport
 * itself, whose `open()` and body watch the test controls.
 */
function transport(
  wire: Wire,
  watchBody: (body: Readable) => Readable = (body) => body,
  accessToken: string | AccessTokenProvider = 'tok',
): Transport {
  return played(wire, { accessToken, watchBody: (body) => watchBody(body as Readable) });
}

describe('an upload stopped around the opening of its source', () => {
  it('aborted while open() is pending: AbortError, nothing sent, the source destroyed once open', async () => {
    const wire = vi.fn<Wire>();
    const source = new Readable({ read() {} });
    let open: (value: { stream: Readable; headers: Record<string, string> }) => void = () => undefined;
    const stream: StreamBody = {
      replayable: true,
      open: () => new Promise((resolve) => (open = resolve)),
    };
    const controller = new AbortController();
    const call = transport(wire)
      .request({ method: 'POST', path: '/attachments', stream }, { signal: controller.signal })
      .catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const error = await call;
    expect((error as Error).name).toBe('AbortError');
    expect(outcomeOf(error)).toBe('not_sent');
    expect(source.destroyed).toBe(false);
    open({ stream: source, headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.destroyed).toBe(true);
    expect(wire).not.toHaveBeenCalled();
  });

  it('aborted once the source is open, before sending: AbortError, nothing sent, the body destroyed', async () => {
    const wire = vi.fn<Wire>();
    const source = new Readable({ read() {} });
    const controller = new AbortController();
    const stream: StreamBody = {
      replayable: true,
      open: async () => ({ stream: source, headers: {} }),
    };
    // The abort lands while the opened body is being set up for sending.
    const call = transport(wire, (body) => {
      controller.abort();
      return body;
    })
      .request({ method: 'POST', path: '/attachments', stream }, { signal: controller.signal })
      .catch((e: unknown) => e);
    const error = await call;
    expect((error as Error).name).toBe('AbortError');
    expect(source.destroyed).toBe(true);
    expect(wire).not.toHaveBeenCalled();
  });
});

/** An answer whose head came and whose body read fails with `failure`. */
function failingBody(status: number, failure: WireFailure): WireResponse {
  return { status, rawHeaders: {}, headers: () => ({}), text: () => Promise.reject(failure) };
}

describe('the one error of a failure a wire reports', () => {
  it('a 2xx body that cannot be decoded: ClaimsResponseValidationError naming the call, the reason as its issue, processed', async () => {
    const cause = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR' });
    const why = 'the body could not be decoded: incorrect header check (Z_DATA_ERROR)';
    const wire: Wire = async () => failingBody(201, new WireFailure('decode', why, 'maybe', cause));
    const error = await transport(wire)
      .request({ method: 'POST', path: '/incidents', body: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as Error).message).toBe(
      `Unexpected response from POST http://127.0.0.1:9/incidents: ${why}`,
    );
    expect((error as ClaimsResponseValidationError).issues).toEqual([{ path: '', message: why }]);
    expect((error as Error).cause).toBe(cause);
    expect(outcomeOf(error)).toBe('processed');
    expect(attemptOfError(error)).toEqual({ kind: 'unusable' });
  });

  it("a refusal before sending (a closed client): a ClaimsError in the wire's words, not_sent, its cause kept", async () => {
    const cause = new Error('Cannot find package undici');
    const words = 'The client is closed (client.close() was called): nothing was sent';
    const wire = vi.fn<Wire>(async () => {
      throw new WireFailure('refused', words, 'not_connected', cause);
    });
    const error = await transport(wire)
      .request({ method: 'GET', path: '/metadata/programmes' }, { maxRetries: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect(error).not.toBeInstanceOf(ClaimsConnectionError);
    expect((error as Error).message).toBe(words);
    expect((error as Error).cause).toBe(cause);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(attemptOfError(error)).toEqual({ kind: 'refused' });
    expect(wire).toHaveBeenCalledTimes(1);
  });

  it('a token provider that fails is told apart (the batch stops at once on it); an answer from the API is not', async () => {
    const failing = transport(vi.fn<Wire>(), undefined, () => Promise.reject(new Error('vault sealed')));
    const refused = await failing.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(isTokenProviderFailure(refused)).toBe(true);
    expect(attemptOfError(refused)).toEqual({ kind: 'refused' });
    const answered = await transport(async () => failingBody(404, new WireFailure('cut', 'x', 'maybe')))
      .request({ method: 'GET', path: '/x' })
      .catch((e: unknown) => e);
    expect(answered).toBeInstanceOf(NotFoundError);
    expect(isTokenProviderFailure(answered)).toBe(false);
    expect(isTokenProviderFailure(undefined)).toBe(false);
  });
});

/** An answer with this status and body text. */
function answered(status: number, text: string, headers: Record<string, string> = {}): WireResponse {
  return {
    status,
    rawHeaders: headers,
    headers: () => headers,
    text: async () => ({ text, truncated: false }),
  };
}

describe('the transport alone, on a wire the test plays', () => {
  it('a 2xx body that broke off: a connection error, unknown; one that stalled: a timeout, processed', async () => {
    const cut = await transport(async () =>
      failingBody(200, new WireFailure('cut', 'Connection failed: other side closed', 'maybe')),
    )
      .request({ method: 'POST', path: '/incidents', body: {} })
      .catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(cut)).toBe('unknown');
    expect(attemptOfError(cut)).toEqual({ kind: 'body_failed', stalled: false });
    const stalled = await transport(async () =>
      failingBody(
        200,
        new WireFailure('body_timeout', 'Request timed out: no progress for 1000 ms', 'maybe'),
      ),
    )
      .request({ method: 'POST', path: '/incidents', body: {} })
      .catch((e: unknown) => e);
    expect(stalled).toBeInstanceOf(ClaimsTimeoutError);
    expect(outcomeOf(stalled)).toBe('processed');
    expect(attemptOfError(stalled)).toEqual({ kind: 'body_failed', stalled: true });
  });

  it('a wire that rejects with an error of its own (a bug, a user fetch gone wrong): a connection error in its words', async () => {
    const error = await transport(async () => {
      throw new Error('boom');
    })
      .request({ method: 'GET', path: '/x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect((error as Error).message).toBe(
      'GET http://127.0.0.1:9/x: Connection failed: boom (the request may have been processed)',
    );
    expect(((error as Error).cause as Error).message).toBe('boom');
    expect(attemptOfError(error)).toEqual({ kind: 'failure', sent: 'maybe' });
  });

  it('a 2xx answer of the wrong shape: the attempt the batch reads is unusable (never repeated)', async () => {
    const error = await transport(async () => answered(200, '{}'))
      .request({ method: 'GET', path: '/x', responseSchema: z.object({ id: z.string() }) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect(attemptOfError(error)).toEqual({ kind: 'unusable' });
  });

  it('params the resource did not check are checked before anything is sent', async () => {
    const wire = vi.fn<Wire>();
    const error = await transport(wire)
      .request({ method: 'GET', path: '/x', params: { query: [z.string(), 42] } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues[0]?.path).toBe('query');
    expect(wire).not.toHaveBeenCalled();
  });

  it('a one-shot upload stream is never sent twice, even on a 429 that asks for no wait, with retries left', async () => {
    const wire = vi.fn<Wire>(async () => answered(429, '', { 'retry-after': '0' }));
    const stream: StreamBody = {
      replayable: false,
      open: async () => ({ stream: new Readable({ read() {} }), headers: {} }),
    };
    const error = await transport(wire)
      .request({ method: 'POST', path: '/attachments', stream }, { maxRetries: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(wire).toHaveBeenCalledTimes(1);
  });

  it('steps(): each step gets the caller’s options with the deadline left', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const next = transport(vi.fn<Wire>()).steps({ deadlineMs: 1_000, maxRetries: 1 });
      vi.advanceTimersByTime(300);
      expect(next()).toEqual({ deadlineMs: 700, maxRetries: 1 });
    } finally {
      vi.useRealTimers();
    }
  });
});

/** A Transport on a wire the test plays, with any config the test gives (logs, tracing, limits). */
function played(wire: Wire, config: Partial<TransportConfig> = {}): Transport {
  return new Transport({
    baseUrl: 'http://127.0.0.1:9',
    accessToken: 'tok',
    timeoutMs: 1_000,
    deadlineMs: 5_000,
    maxRetries: 0,
    headers: {},
    userAgent: 'test',
    maxResponseBytes: 1_000,
    wire,
    watchBody: (body) => body,
    ...config,
  });
}

/** A log at `level` whose lines the test reads (the message only). */
function capturedLog(level: 'debug' | 'info' | 'warn'): { log: RequestLog; lines: string[] } {
  const lines: string[] = [];
  const at =
    (name: string) =>
    (message: string): void => {
      lines.push(`${name} ${message}`);
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log: new RequestLog(logger, level), lines };
}

/** A wire failure of a kept-alive connection found dead before anything was written. */
const deadConnection = (): WireFailure =>
  new WireFailure('connection', 'Connection failed: other side closed', 'dead_connection');
/** A wire failure after the request may have left (a reset). */
const resetAfterSending = (): WireFailure =>
  new WireFailure('connection', 'Connection failed: read ECONNRESET', 'maybe');

/** A wire that waits for the call to stop, then fails as a wire does when its request is aborted. */
const untilStopped: Wire = (request) =>
  new Promise((_resolve, reject) => {
    request.signal.addEventListener('abort', () => reject(new WireFailure('stopped', 'stopped', 'maybe')));
  });

describe('the transport alone: what each attempt sends, and what a stopped call says', () => {
  it('a dead kept-alive connection is resent at once on a fresh connection, and only that attempt is fresh', async () => {
    const pauses = capturePauses();
    const wire = vi
      .fn<Wire>()
      .mockRejectedValueOnce(deadConnection())
      .mockResolvedValueOnce(answered(503, ''))
      .mockResolvedValueOnce(answered(200, '[]'));
    const { log, lines } = capturedLog('info');
    await expect(
      played(wire, { maxRetries: 1, log }).request({ method: 'POST', path: '/x', body: {} }),
    ).rejects.toBeInstanceOf(InternalServerError);
    // The POST's 503 is not retried: two requests, the second on a fresh connection.
    expect(wire.mock.calls.map(([request]) => request.freshConnection)).toEqual([false, true]);
    expect(lines).toEqual([
      'info claims-sdk: retrying POST http://127.0.0.1:9/x in 0 ms (attempt 2) after a dead kept-alive connection, nothing written (now on a fresh connection)',
    ]);
    expect(pauses).toEqual([]);

    const get = await played(wire, { maxRetries: 1 }).request({ method: 'GET', path: '/x' });
    expect(get).toEqual([]);
  });

  it('a GET: dead connection, 503, 200: fresh only for the resend, not for the retry after it', async () => {
    const pauses = capturePauses();
    const wire = vi
      .fn<Wire>()
      .mockRejectedValueOnce(deadConnection())
      .mockResolvedValueOnce(answered(503, ''))
      .mockResolvedValueOnce(answered(200, '[]'));
    await expect(played(wire, { maxRetries: 1 }).request({ method: 'GET', path: '/x' })).resolves.toEqual([]);
    expect(wire.mock.calls.map(([request]) => request.freshConnection)).toEqual([false, true, false]);
    // The resend is at once and uses no retry: the one retry is the 503's.
    expect(pauses).toHaveLength(1);
  });

  it('a token provider: a resend on a fresh connection asks as before; a 401 asks anew, on a kept connection', async () => {
    let asked = 0;
    const provider = vi.fn<AccessTokenProvider>(() => `tok_fn${++asked}`);
    const wire = vi
      .fn<Wire>()
      .mockRejectedValueOnce(deadConnection())
      .mockResolvedValueOnce(answered(401, ''))
      .mockResolvedValueOnce(answered(200, '[]'));
    await expect(
      played(wire, { accessToken: provider }).request({ method: 'GET', path: '/x' }),
    ).resolves.toEqual([]);
    expect(provider.mock.calls).toEqual([
      [{ forceRefresh: false }],
      [{ forceRefresh: false }],
      [{ forceRefresh: true, refusedToken: 'tok_fn2' }],
    ]);
    expect(wire.mock.calls.map(([request]) => request.freshConnection)).toEqual([false, true, false]);
  });

  it('a retry after a 503 asks the token provider as the first attempt did, with no refused token', async () => {
    capturePauses();
    const provider = vi.fn<AccessTokenProvider>(() => 'tok_fn');
    const wire = vi
      .fn<Wire>()
      .mockResolvedValueOnce(answered(503, ''))
      .mockResolvedValueOnce(answered(200, '[]'));
    await played(wire, { maxRetries: 1, accessToken: provider }).request({ method: 'GET', path: '/x' });
    expect(provider.mock.calls).toEqual([[{ forceRefresh: false }], [{ forceRefresh: false }]]);
    expect(wire.mock.calls.map(([request]) => request.headers.authorization)).toEqual([
      'Bearer tok_fn',
      'Bearer tok_fn',
    ]);
  });

  it('the span is named by the route, wraps the wire, and hears of each retry with its wait and reason', async () => {
    const pauses = capturePauses();
    const named: string[] = [];
    const retries: Array<[number, string]> = [];
    let wrapped = 0;
    const trace: TraceCall = (method, route) => {
      named.push(`${method} ${route}`);
      return (run) =>
        run({
          wire: (inner) => (request) => {
            wrapped++;
            return inner(request);
          },
          retry: (delayMs, reason) => retries.push([delayMs, reason]),
        });
    };
    const wire = vi
      .fn<Wire>()
      .mockRejectedValueOnce(deadConnection())
      .mockResolvedValueOnce(answered(503, ''))
      .mockResolvedValueOnce(answered(200, '[{"id":"S-1"}]'));
    const transport = played(wire, { maxRetries: 1, trace });
    await expect(
      transport.request({
        method: 'GET',
        path: '/incidents/I-1/events',
        route: '/incidents/{incidentId}/events',
      }),
    ).resolves.toEqual([{ id: 'S-1' }]);
    expect(named).toEqual(['GET /incidents/{incidentId}/events']);
    expect(wrapped).toBe(3);
    expect(retries).toEqual([
      [0, 'dead connection'],
      [pauses[0], '503'],
    ]);
    // Without a route, the span is named by the path.
    await transport.request({ method: 'GET', path: '/metadata/programmes' }).catch(() => undefined);
    expect(named).toEqual(['GET /incidents/{incidentId}/events', 'GET /metadata/programmes']);
  });

  it('logs at debug: each attempt as it starts and ends (a failure by the class it will be, a status), and the retry between', async () => {
    const pauses = capturePauses();
    const wire = vi
      .fn<Wire>()
      .mockRejectedValueOnce(new Error('boom'))
      .mockResolvedValueOnce(answered(503, ''))
      .mockResolvedValueOnce(answered(200, '[]'));
    const { log, lines } = capturedLog('debug');
    await played(wire, { maxRetries: 2, log }).request({ method: 'GET', path: '/x' });
    const url = 'http://127.0.0.1:9/x';
    const [first, second] = pauses.map(Math.round);
    expect(lines.map((line) => line.replace(/ -> (.*) in [\d.]+ ms/, ' -> $1 in ? ms'))).toEqual([
      `debug claims-sdk: GET ${url} (attempt 1)`,
      `debug claims-sdk: GET ${url} -> ClaimsConnectionError: Connection failed: boom in ? ms (attempt 1)`,
      `info claims-sdk: retrying GET ${url} in ${first} ms (attempt 2) after ClaimsConnectionError`,
      `debug claims-sdk: GET ${url} (attempt 2)`,
      `debug claims-sdk: GET ${url} -> 503 in ? ms (attempt 2)`,
      `info claims-sdk: retrying GET ${url} in ${second} ms (attempt 3) after 503`,
      `debug claims-sdk: GET ${url} (attempt 3)`,
      `debug claims-sdk: GET ${url} -> 200 in ? ms (attempt 3)`,
    ]);
  });

  it('logs at warn why a 503 is not retried when the server asks for a wait past 60 s', async () => {
    const wire = vi.fn<Wire>(async () => answered(503, '', { 'retry-after': '120' }));
    const { log, lines } = capturedLog('warn');
    await expect(
      played(wire, { maxRetries: 2, log }).request({ method: 'GET', path: '/x' }),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect(lines).toEqual([
      'warn claims-sdk: not retrying GET http://127.0.0.1:9/x after 503: the server asked to wait 120000 ms (more than 60000 ms)',
    ]);
    expect(wire).toHaveBeenCalledTimes(1);
  });

  it('an upload whose attempt fails, or is answered with an error, has its body destroyed', async () => {
    for (const wire of [
      async () => {
        throw resetAfterSending();
      },
      async () => answered(429, '', { 'retry-after': '0' }),
    ] satisfies Wire[]) {
      const source = new Readable({ read() {} });
      const stream: StreamBody = { replayable: false, open: async () => ({ stream: source, headers: {} }) };
      await expect(
        played(wire, { maxRetries: 2 }).request({ method: 'POST', path: '/attachments', stream }),
      ).rejects.toBeInstanceOf(ClaimsError);
      expect(source.destroyed).toBe(true);
    }
  });

  it('aborted while the request is in flight: AbortError, unknown, and no retry announced', async () => {
    const controller = new AbortController();
    const retries: string[] = [];
    const { log, lines } = capturedLog('info');
    const call = played(
      (request) => {
        setTimeout(() => controller.abort(), 0);
        return untilStopped(request);
      },
      {
        maxRetries: 2,
        log,
        trace: () => (run) => run({ wire: (w) => w, retry: (_ms, reason) => retries.push(reason) }),
      },
    ).request({ method: 'GET', path: '/x' }, { signal: controller.signal });
    const error = await call.catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(outcomeOf(error)).toBe('unknown');
    expect(lines).toEqual([]);
    expect(retries).toEqual([]);
  });

  it.each([
    [404, 'rejected'],
    [503, 'unknown'],
  ] as const)('aborted while the body of a %i is read: AbortError, %s', async (status, outcome) => {
    const controller = new AbortController();
    const wire: Wire = async (request) => {
      setTimeout(() => controller.abort(), 0);
      return {
        status,
        rawHeaders: {},
        headers: () => ({}),
        text: () => untilStopped(request) as never,
      };
    };
    // No retry left: the outcome is this attempt's alone.
    const error = await played(wire)
      .request({ method: 'GET', path: '/x' }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(outcomeOf(error)).toBe(outcome);
  });

  it('a GET reset after sending, then aborted during the backoff: unknown (the first may have been acted on)', async () => {
    const controller = new AbortController();
    abortOnPause(controller);
    const wire = vi.fn<Wire>(async () => {
      throw resetAfterSending();
    });
    const error = await played(wire, { maxRetries: 1 })
      .request({ method: 'GET', path: '/x' }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(outcomeOf(error)).toBe('unknown');
    expect(wire).toHaveBeenCalledTimes(1);
  });

  it('a token provider failing: not_sent on the first attempt; unknown once an earlier attempt may have acted', async () => {
    const first = await played(vi.fn<Wire>(), {
      accessToken: () => {
        throw new Error('vault sealed');
      },
    })
      .request({ method: 'GET', path: '/x' })
      .catch((e: unknown) => e);
    expect((first as Error).message).toBe('accessToken provider failed: Error: vault sealed');
    expect(outcomeOf(first)).toBe('not_sent');

    capturePauses();
    let asked = 0;
    const later = await played(
      vi.fn<Wire>(async () => {
        throw resetAfterSending();
      }),
      {
        maxRetries: 1,
        accessToken: () => {
          if (++asked === 2) throw new Error('vault sealed');
          return 'tok_fn';
        },
      },
    )
      .request({ method: 'GET', path: '/x' })
      .catch((e: unknown) => e);
    expect((later as Error).message).toBe(
      'accessToken provider failed: Error: vault sealed (the request may have been processed)',
    );
    expect(outcomeOf(later)).toBe('unknown');
  });

  it('a token provider failing after a 401 with words that quote the refused token: the token is redacted', async () => {
    const refused = 'tok_refused_by_the_api_8c1f';
    let asked = 0;
    const error = await played(async () => answered(401, ''), {
      accessToken: () => {
        if (++asked === 2) throw new Error(`cannot refresh ${refused}`);
        return refused;
      },
    })
      .request({ method: 'GET', path: '/x' })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^accessToken provider failed after a 401: Error: cannot refresh /,
    );
    expect((error as Error).message).not.toContain(refused);
    // Its error, kept as the cause, shows it no more: not in its words, nor in a field of its own.
    expect(inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(refused);
  });

  it('a token provider failing after a 401 with an error that keeps the refused token in a field and a cause: neither shows it', async () => {
    const refused = 'tok_refused_by_the_api_8c1f';
    let asked = 0;
    const thrown = Object.assign(new Error('cannot refresh', { cause: new Error(`revoked: ${refused}`) }), {
      token: refused,
    });
    const error = await played(async () => answered(401, ''), {
      accessToken: () => {
        if (++asked === 2) throw thrown;
        return refused;
      },
    })
      .request({ method: 'GET', path: '/x' })
      .catch((e: unknown) => e);
    expect((error as Error).cause).toBe(thrown);
    expect(thrown).toMatchObject({ token: '[REDACTED]', cause: { message: 'revoked: [REDACTED]' } });
    expect(inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(refused);
  });

  it('a token provider that never answers: a timeout after timeoutMs that names it, nothing sent', async () => {
    const wire = vi.fn<Wire>();
    const error = await played(wire, { accessToken: () => new Promise<string>(() => undefined) })
      .request({ method: 'GET', path: '/x' }, { timeoutMs: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toBe(
      'GET http://127.0.0.1:9/x: Request timed out: the accessToken provider made no progress for 20 ms',
    );
    expect(outcomeOf(error)).toBe('not_sent');
    expect(wire).not.toHaveBeenCalled();
  });

  it("the provider's timeout ends with its answer: a slower request after it is the wire's to time, not the provider's", async () => {
    // A wire that answers after 200 ms, unless the call stops first.
    const wire: Wire = (request) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(answered(200, '[]')), 200);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new WireFailure('stopped', 'stopped', 'maybe'));
        });
      });
    await expect(
      played(wire, { accessToken: async () => 'tok_fn' }).request(
        { method: 'GET', path: '/x' },
        { timeoutMs: 50 },
      ),
    ).resolves.toEqual([]);
  });

  it('a call, answered or failed, stops listening to the caller’s signal', async () => {
    const controller = new AbortController();
    await played(async () => answered(200, '[]')).request(
      { method: 'GET', path: '/x' },
      { signal: controller.signal },
    );
    await played(async () => answered(500, ''))
      .request({ method: 'GET', path: '/x' }, { signal: controller.signal })
      .catch(() => undefined);
    expect(waitingOn(controller.signal)).toBe(0);
  });

  it('baseUrl is the one the client was given (quoted by the calls that describe themselves)', () => {
    expect(played(vi.fn<Wire>(), { baseUrl: 'https://claims.example.com/api' }).baseUrl).toBe(
      'https://claims.example.com/api',
    );
  });
});
