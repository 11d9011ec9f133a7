/**
 * The fault queue as a test writes to it: shapes refused with every problem named, routes
 * checked against the API's, first-queued first-hit, counts, and the same over HTTP
 * (`POST /_sandbox/faults`) for tests in other languages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsValidationError } from '../../src/index.js';
import { describeFault, processesCall } from '../../src/testing/core/faults/fault.js';
import { MAX_QUEUED_FAULTS } from '../../src/testing/core/faults/fault-queue.js';
import { FAULT_ROUTES, parseRoute } from '../../src/testing/core/faults/route-pattern.js';
import { createSandbox, type Sandbox, SandboxCore, type SandboxFaultRule } from '../../src/testing/index.js';
import { homeIncident, raw } from './helpers.js';

function refusal(rule: unknown): ClaimsValidationError {
  const core = new SandboxCore();
  try {
    core.faults.next(rule as SandboxFaultRule);
  } catch (error) {
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(core.faults.pending).toEqual([]);
    return error as ClaimsValidationError;
  }
  throw new Error('not refused');
}

describe('sandbox.faults.next', () => {
  it('queues each kind as given, with its count', () => {
    const core = new SandboxCore();
    const kinds = [
      { status: 503, retryAfter: 2, body: 'down' },
      { status: 200 },
      { delayMs: 0 },
      { reset: 'before' },
      { reset: 'after' },
      { timeout: 'after' },
      { truncate: { afterBytes: 0 } },
      { drip: { bytes: 1, everyMs: 1 } },
    ] as const;
    for (const fault of kinds) core.faults.next({ route: 'POST /incidents', fault });
    core.faults.next({ route: '  get   /metadata/programmes ', fault: { status: 500 }, times: 3 });
    expect(core.faults.pending).toEqual([
      ...kinds.map((fault) => ({ route: 'POST /incidents', fault, remaining: 1 })),
      { route: 'get   /metadata/programmes', fault: { status: 500 }, remaining: 3 },
    ]);
  });

  it('keeps its own copy: changing the object given afterwards changes nothing', () => {
    const core = new SandboxCore();
    const fault = { truncate: { afterBytes: 3 } };
    core.faults.next({ route: 'POST /incidents', fault });
    fault.truncate.afterBytes = 99;
    expect(core.faults.pending[0]?.fault).toEqual({ truncate: { afterBytes: 3 } });
    const [copy] = core.faults.pending as Array<{ fault: { truncate: { afterBytes: number } } }>;
    if (copy) copy.fault.truncate.afterBytes = 7;
    expect(core.faults.pending[0]?.fault).toEqual({ truncate: { afterBytes: 3 } });
  });

  it('says which kinds there are when a fault is none of them', () => {
    expect(refusal({ route: 'POST /incidents', fault: { reset: 'during' } }).message).toBe(
      "Invalid sandbox fault: fault: must be one of { status, retryAfter?, body? }, { delayMs }, { reset: 'before' | 'after' }, { timeout: 'after' }, { truncate: { afterBytes } }, { drip: { bytes, everyMs } }",
    );
    expect(refusal({ route: 'POST /incidents', fault: { status: 302 } }).message).toBe(
      'Invalid sandbox fault: fault.status: must be 200-299 (processed) or 400-599 (refused)',
    );
  });

  it.each([
    [{ route: 'POST /incidents', fault: {} }, 'fault'],
    [{ route: 'POST /incidents', fault: { status: 302 } }, 'fault'],
    [{ route: 'POST /incidents', fault: { status: 199 } }, 'fault'],
    [{ route: 'POST /incidents', fault: { status: 600 } }, 'fault'],
    [{ route: 'POST /incidents', fault: { status: 503.5 } }, 'fault'],
    [{ route: 'POST /incidents', fault: { status: 503, retryAfter: -1 } }, 'fault'],
    [{ route: 'POST /incidents', fault: { status: 503, retryAfter: 'a\r\nb' } }, 'fault'],
    [{ route: 'POST /incidents', fault: { status: 503, body: 'x'.repeat(70_000) } }, 'fault'],
    [{ route: 'POST /incidents', fault: { delayMs: 600_001 } }, 'fault'],
    [{ route: 'POST /incidents', fault: { delayMs: -1 } }, 'fault'],
    [{ route: 'POST /incidents', fault: { reset: 'during' } }, 'fault'],
    [{ route: 'POST /incidents', fault: { timeout: 'before' } }, 'fault'],
    [{ route: 'POST /incidents', fault: { truncate: { afterBytes: -1 } } }, 'fault'],
    [{ route: 'POST /incidents', fault: { drip: { bytes: 0, everyMs: 10 } } }, 'fault'],
    [{ route: 'POST /incidents', fault: { drip: { bytes: 1, everyMs: 60_001 } } }, 'fault'],
    [{ route: 'POST /incidents', fault: { delayMs: 5, reset: 'after' } }, 'fault'],
    [{ route: 'POST /incidents', fault: { status: 503 }, times: 0 }, 'times'],
    [{ route: 'POST /incidents', fault: { status: 503 }, times: 1.5 }, 'times'],
    [{ route: 'POST /incidents', fault: { status: 503 }, extra: 1 }, ''],
    [{ route: '', fault: { status: 503 } }, 'route'],
    [{ fault: { status: 503 } }, 'route'],
  ])('refuses rule %#, naming "%s"', (rule, path) => {
    const error = refusal(rule);
    expect(error.issues.some((i) => i.path === path || i.path.startsWith(`${path}.`))).toBe(true);
    expect(error.message).toMatch(/^Invalid sandbox fault: /);
  });

  it('refuses a route the API does not have, and lists the routes', () => {
    const error = refusal({ route: 'POST /incident', fault: { status: 503 } });
    expect(error.issues).toEqual([
      {
        path: 'route',
        message: `no route "POST /incident"; the routes are: ${FAULT_ROUTES.join(', ')}`,
      },
    ]);
    expect(refusal({ route: 'DELETE /incidents', fault: { status: 503 } }).issues[0]?.message).toContain(
      'no route',
    );
    expect(refusal({ route: 'POST incidents', fault: { status: 503 } }).issues[0]?.message).toBe(
      'must be "METHOD /path", e.g. "POST /incidents"',
    );
    expect(refusal({ route: 'POST /incidents/x', fault: { status: 503 } }).issues[0]?.message).toContain(
      'no route',
    );
  });

  it('reads routes as templates ({id} or :id), concrete paths, in any case', () => {
    for (const route of [
      'POST /incidents/{incidentId}/events',
      'POST /incidents/:incidentId/events',
      'post /Incidents/abc/EVENTS',
      'PATCH /webhooks/{id}/subscriptions/7',
      'POST /oauth/token',
      'POST /incidents/',
    ]) {
      expect(typeof parseRoute(route), route).toBe('object');
    }
    expect(parseRoute('POST /incidents/%E0%A4%A/events')).toEqual({
      method: 'POST',
      segments: ['incidents', '%E0%A4%A', 'events'],
    });
  });

  it('refuses more than the most faults queued at once', () => {
    const core = new SandboxCore();
    for (let i = 0; i < MAX_QUEUED_FAULTS; i++)
      core.faults.next({ route: 'POST /incidents', fault: { status: 500 } });
    expect(() => core.faults.next({ route: 'POST /incidents', fault: { status: 500 } })).toThrow(
      `${MAX_QUEUED_FAULTS} faults are queued already: clear() them first`,
    );
    core.faults.clear();
    expect(core.faults.pending).toEqual([]);
  });

  it('words each fault, and says which are processed first', () => {
    expect(describeFault({ status: 503 })).toBe('503');
    expect(describeFault({ status: 429, retryAfter: 2 })).toBe('429 (Retry-After: 2)');
    expect(describeFault({ delayMs: 20 })).toBe('delay 20 ms');
    expect(describeFault({ reset: 'before' })).toBe('reset before');
    expect(describeFault({ timeout: 'after' })).toBe('time-out after');
    expect(describeFault({ truncate: { afterBytes: 4 } })).toBe('cut after 4 bytes');
    expect(describeFault({ drip: { bytes: 2, everyMs: 9 } })).toBe('drip 2 bytes every 9 ms');
    expect(
      [{ status: 299 }, { status: 400 }, { reset: 'before' }, { reset: 'after' }, { delayMs: 1 }].map((f) =>
        processesCall(f as never),
      ),
    ).toEqual([true, false, false, true, true]);
  });
});

describe('faults hit the calls they name, in order', () => {
  it('first queued, first hit; a call of another route passes; counts run down', async () => {
    const core = new SandboxCore({ token: 't' });
    const auth = { authorization: 'Bearer t', 'content-type': 'application/json' };
    const send = (method: string, path: string, body = '') =>
      core.handle({ method, path, query: new URLSearchParams(), headers: auth, body: Buffer.from(body) });
    core.faults.next({ route: 'POST /incidents', fault: { status: 500 }, times: 2 });
    core.faults.next({ route: 'POST /incidents', fault: { status: 502 } });
    core.faults.next({ route: 'GET /metadata/programmes', fault: { status: 504 } });
    const incident = JSON.stringify(homeIncident);
    expect((await send('GET', '/metadata/programmes')).status).toBe(504);
    expect((await send('GET', '/metadata/programmes')).status).toBe(200);
    expect([
      (await send('POST', '/incidents', incident)).status,
      core.faults.pending.map((p) => p.remaining),
    ]).toEqual([500, [1, 1]]);
    expect((await send('POST', '/incidents', incident)).status).toBe(500);
    expect((await send('POST', '/incidents', incident)).status).toBe(502);
    expect((await send('POST', '/incidents', incident)).status).toBe(201);
    expect(core.incidents).toHaveLength(1);
  });

  it('a call refused before its route is known (401, 404, 405) takes no fault', async () => {
    const core = new SandboxCore({ token: 't' });
    core.faults.next({ route: 'POST /incidents', fault: { status: 500 } });
    const call = (method: string, path: string, token = 't') =>
      core.handle({
        method,
        path,
        query: new URLSearchParams(),
        headers: { authorization: `Bearer ${token}` },
        body: new Uint8Array(),
      });
    expect((await call('POST', '/incidents', 'wrong')).status).toBe(401);
    expect((await call('GET', '/incidents')).status).toBe(405);
    expect((await call('POST', '/nowhere')).status).toBe(404);
    expect(core.faults.pending).toHaveLength(1);
    expect(core.calls.map((c) => [c.route, c.status, c.fault])).toEqual([
      ['POST /incidents', 401, undefined],
      ['GET /incidents', 405, undefined],
      ['POST /nowhere', 404, undefined],
    ]);
  });

  it('a status fault answers with its own body: a string as text, anything else as JSON, and Retry-After', async () => {
    const core = new SandboxCore({ token: 't' });
    const get = () =>
      core.handle({
        method: 'GET',
        path: '/metadata/programmes',
        query: new URLSearchParams(),
        headers: { authorization: 'Bearer t' },
        body: new Uint8Array(),
      });
    core.faults.next({
      route: 'GET /metadata/programmes',
      fault: { status: 502, body: '<html>Bad gateway</html>', retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT' },
    });
    core.faults.next({
      route: 'GET /metadata/programmes',
      fault: { status: 409, body: { message: 'busy', detail: [1] } },
    });
    core.faults.next({ route: 'GET /metadata/programmes', fault: { status: 200, retryAfter: 3 } });
    core.faults.next({ route: 'GET /metadata/programmes', fault: { status: 203, body: [] } });
    const html = await get();
    expect(html).toMatchObject({ status: 502, body: '<html>Bad gateway</html>' });
    expect(html.headers).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT',
    });
    expect(html.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const conflict = await get();
    expect([conflict.status, JSON.parse(conflict.body ?? ''), conflict.headers['content-type']]).toEqual([
      409,
      { message: 'busy', detail: [1] },
      'application/json; charset=utf-8',
    ]);
    const ok = await get();
    expect([ok.status, ok.headers['retry-after'], JSON.parse(ok.body ?? '')]).toEqual([
      200,
      '3',
      core.metadata.programmes,
    ]);
    const other = await get();
    expect([other.status, other.body]).toEqual([203, '[]']);
    expect(core.calls.map((c) => c.processed)).toEqual([false, false, true, true]);
  });
});

describe('POST /_sandbox/faults and the other control routes', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox();
  });
  afterAll(() => sandbox.close());

  it('queues a fault without a token, and lists it', async () => {
    const res = await raw(sandbox, 'POST', '/_sandbox/faults', {
      token: null,
      json: { route: 'POST /incidents', fault: { reset: 'after' }, times: 2 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      faults: [{ route: 'POST /incidents', fault: { reset: 'after' }, remaining: 2, text: 'reset after' }],
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect((await raw(sandbox, 'GET', '/_sandbox/faults', { token: null })).body).toEqual(res.body);
    expect(sandbox.faults.pending).toEqual([
      { route: 'POST /incidents', fault: { reset: 'after' }, remaining: 2 },
    ]);
    expect(await raw(sandbox, 'DELETE', '/_sandbox/faults', { token: null })).toMatchObject({
      status: 200,
      body: { faults: [] },
    });
    expect(sandbox.faults.pending).toEqual([]);
  });

  it('refuses a bad fault with 400 invalid_fault and its problems; a non-JSON body with 415', async () => {
    const bad = await raw(sandbox, 'POST', '/_sandbox/faults', {
      token: null,
      json: { route: 'POST /nope', fault: { status: 42 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'invalid_fault',
      details: [{ path: 'fault.status', code: 'invalid' }],
    });
    const route = await raw(sandbox, 'POST', '/_sandbox/faults', {
      token: null,
      json: { route: 'POST /nope', fault: { status: 500 } },
    });
    expect(route.body).toMatchObject({
      code: 'invalid_fault',
      details: [{ path: 'route', message: expect.stringContaining('no route "POST /nope"') }],
    });
    const form = await raw(sandbox, 'POST', '/_sandbox/faults', {
      token: null,
      body: 'route=POST+/incidents',
      headers: { 'content-type': 'text/plain' },
    });
    expect(form).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
    const broken = await raw(sandbox, 'POST', '/_sandbox/faults', {
      token: null,
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken).toMatchObject({ status: 400, body: { code: 'invalid_json' } });
    const big = await raw(sandbox, 'POST', '/_sandbox/faults', {
      token: null,
      body: 'x'.repeat(70_000),
      headers: { 'content-type': 'application/json' },
    });
    expect(big).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
  });

  it('answers 404 and 405 under /_sandbox/ as the API does', async () => {
    expect(await raw(sandbox, 'GET', '/_sandbox/nothing', { token: null })).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
    const wrong = await raw(sandbox, 'PUT', '/_sandbox/faults', { token: null });
    expect(wrong).toMatchObject({ status: 405, body: { code: 'method_not_allowed' } });
    expect(wrong.headers.get('allow')).toBe('GET, POST, DELETE');
    expect(await raw(sandbox, 'GET', '/_sandbox/calls/999999', { token: null })).toMatchObject({
      status: 404,
      body: { message: 'No call 999999' },
    });
    expect(await raw(sandbox, 'GET', '/_sandbox/incidents/nope', { token: null })).toMatchObject({
      status: 404,
    });
    expect(await raw(sandbox, 'GET', '/_sandbox/deliveries/nope', { token: null })).toMatchObject({
      status: 404,
    });
    expect(await raw(sandbox, 'POST', '/_sandbox/deliveries/nope/redeliver', { token: null })).toMatchObject({
      status: 404,
      body: { message: 'No delivery "nope"' },
    });
  });

  it('GET /_sandbox/calls lists the calls, token redacted; POST /_sandbox/reset empties the sandbox', async () => {
    await raw(sandbox, 'POST', '/incidents', { json: homeIncident });
    const calls = await raw(sandbox, 'GET', '/_sandbox/calls', { token: null });
    const listed = (
      calls.body as { calls: Array<{ route: string; request: { headers: Record<string, string> } }> }
    ).calls;
    expect(listed.at(-1)).toMatchObject({
      route: 'POST /incidents',
      request: { headers: { authorization: 'Bearer [REDACTED]' } },
    });
    expect(JSON.stringify(calls.body)).not.toContain(sandbox.token);
    expect(sandbox.incidents.length).toBeGreaterThan(0);
    expect(await raw(sandbox, 'POST', '/_sandbox/reset', { token: null })).toMatchObject({
      status: 200,
      body: { reset: true },
    });
    expect([sandbox.incidents, sandbox.calls]).toEqual([[], []]);
  });
});
