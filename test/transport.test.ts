import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
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
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from '../src/index.js';
import { Transport } from '../src/transport.js';
import { event, incident } from './helpers/fixtures.js';
import { json, useRecordingServer } from './helpers/recording-server.js';

const TOKEN = 'tok_live_transport_5ecr3t';

const server = useRecordingServer();

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

  it('after a 401 is asked once more and the request (even a POST) is sent once more', async () => {
    let calls = 0;
    server.handle((r, res) =>
      r.headers.authorization === 'Bearer fresh'
        ? json(res, 201, { incidentId: 'I-9' })
        : json(res, 401, { message: 'token expired' }),
    );
    const c = client({ accessToken: async () => (++calls === 1 ? 'stale' : 'fresh') });
    await expect(c.incidents.create(incident)).resolves.toEqual({ incidentId: 'I-9' });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer stale', 'Bearer fresh']);
  });

  it('gives up with AuthenticationError after the second 401', async () => {
    server.handle((_r, res) => json(res, 401, { message: 'no' }));
    const c = client({ accessToken: () => 'always-bad' });
    await expect(c.subscriptions.list(1)).rejects.toBeInstanceOf(AuthenticationError);
    expect(server.requests).toHaveLength(2);
  });

  it('does not repeat a 401 for a static token', async () => {
    server.handle((_r, res) => json(res, 401, { message: 'no' }));
    await expect(client().subscriptions.list(1)).rejects.toBeInstanceOf(AuthenticationError);
    expect(server.requests).toHaveLength(1);
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
    const started = Date.now();
    const error = (await client()
      .subscriptions.list(1)
      .catch((e: unknown) => e)) as ClaimsApiError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.headers['retry-after']).toBe('120');
    expect(server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('waits as long as Retry-After says', async () => {
    failThenSucceed(1, 429, { 'retry-after': '1' });
    const started = Date.now();
    await client().subscriptions.list(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  it('backs off exponentially without Retry-After', async () => {
    let n = 0;
    server.handle((_r, res) => (n++ < 1 ? json(res, 503, {}) : json(res, 200, [])));
    const started = Date.now();
    await client().subscriptions.list(1);
    // first retry waits 0.5 s minus at most 25% jitter
    expect(Date.now() - started).toBeGreaterThanOrEqual(370);
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
    const started = Date.now();
    const error = await c.incidents.create(incident).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(error).not.toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect((error as Error).cause).toBeDefined();
    // one backoff (>= 375 ms) proves the second attempt happened
    expect(Date.now() - started).toBeGreaterThanOrEqual(370);
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
    const started = Date.now();
    await expect(
      client({ timeoutMs: 10_000 }).subscriptions.list(1, { timeoutMs: 150, maxRetries: 0 }),
    ).rejects.toBeInstanceOf(ClaimsTimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('abort', () => {
  it('rejects with the platform AbortError and sends nothing when already aborted', async () => {
    const error = await client()
      .subscriptions.list(1, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(server.requests).toHaveLength(0);
  });

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

  it('aborts a wait between retries', async () => {
    server.handle((_r, res) => json(res, 503, {}, { 'retry-after': '30' }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = Date.now();
    const error = await client()
      .subscriptions.list(1, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(2000);
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

  it('a fetch that writes to its init headers does not change later requests', async () => {
    server.handle((_r, res) => json(res, 200, []));
    let first = true;
    const c = client({
      fetch: (url: string, init: RequestInit) => {
        if (first) (init.headers as Record<string, string>)['x-once'] = '1';
        first = false;
        return globalThis.fetch(url, init);
      },
    });
    await c.subscriptions.list(1);
    await c.subscriptions.list(1);
    expect(server.requests.map((r) => r.headers['x-once'])).toEqual(['1', undefined]);
  });

  it('a body JSON cannot carry is a ClaimsValidationError, and nothing is sent', async () => {
    const error = await client()
      .events.create('I-1', { ...event, extra: 1n } as typeof event)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as Error).message).toMatch(/cannot be sent as JSON.*BigInt/);
    expect(server.requests).toHaveLength(0);
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
