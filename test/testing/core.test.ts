/**
 * The sandbox core in-process (no server): how a call is read, answered, faulted and recorded,
 * the token endpoint, uploads a few at a time, redelivery and reset, and the control routes
 * under `/_sandbox/` with the views the inspector draws from.
 */
import { describe, expect, it, vi } from 'vitest';
import type { SandboxChange } from '../../src/testing/core/changes.js';
import { handleControl, isControlPath } from '../../src/testing/core/control-routes.js';
import { LISTED } from '../../src/testing/core/inspector-view.js';
import { SandboxCore, type SandboxRequest } from '../../src/testing/index.js';
import { homeIncident, startLocalServer } from './helpers.js';

const head = (core: SandboxCore, init: Partial<SandboxRequest> & { path: string }) => ({
  method: 'POST',
  query: new URLSearchParams(),
  ...init,
  headers: { authorization: `Bearer ${core.token}`, 'content-type': 'application/json', ...init.headers },
});
const send = (core: SandboxCore, init: Partial<SandboxRequest> & { path: string }) =>
  core.handle({ body: new Uint8Array(), ...head(core, init) });
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const control = (
  core: SandboxCore,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  handleControl(core, {
    method,
    path,
    query: new URLSearchParams(),
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? new Uint8Array() : typeof body === 'string' ? Buffer.from(body) : json(body),
  });
const parsed = (answer: { body: string | undefined }) => JSON.parse(answer.body ?? 'null');

describe('the core, call by call', () => {
  it('reads a body only once the call is known to be allowed, and only up to its limit', async () => {
    const core = new SandboxCore({ limits: { maxJsonBodyBytes: 20 } });
    const asked: number[] = [];
    const reader = async (limit: number) => {
      asked.push(limit);
      return json(homeIncident);
    };
    const refused = await core.serve(
      head(core, { path: '/incidents', headers: { authorization: 'Bearer nope' } }),
      reader,
    );
    const unknown = await core.serve(head(core, { path: '/nowhere' }), reader);
    const announced = await core.serve(
      head(core, { path: '/incidents', headers: { 'content-length': '21' } }),
      reader,
    );
    expect([refused.status, unknown.status, announced.status, asked]).toEqual([401, 404, 413, []]);
    const exact = await core.serve(
      head(core, { path: '/incidents', headers: { 'content-length': '20' } }),
      reader,
    );
    expect([exact.status, asked]).toEqual([201, [20]]);
    const upload = new SandboxCore({ maxAttachmentBytes: 10 });
    await upload.serve(head(upload, { path: '/attachments' }), async (limit) => {
      asked.push(limit);
      return new Uint8Array();
    });
    expect(asked.at(-1)).toBe(4 * 10 + 1024 * 1024);
    expect(core.calls.map((c) => [c.route, c.status, c.request.body.bytes])).toEqual([
      ['POST /incidents', 401, 0],
      ['POST /nowhere', 404, 0],
      ['POST /incidents', 413, 0],
      ['POST /incidents', 201, JSON.stringify(homeIncident).length],
    ]);
  });

  it('answers a body over the limit 413, and a failure of its own 500, never rejecting', async () => {
    const core = new SandboxCore({ limits: { maxJsonBodyBytes: 5 } });
    const big = await send(core, { path: '/incidents', body: json({ a: 1 }) } as never);
    expect([big.status, parsed(big)]).toEqual([
      413,
      { message: 'The body is larger than 5 bytes', code: 'payload_too_large' },
    ]);
    const failing = await core.serve(head(core, { path: '/incidents' }), async () => {
      throw new Error('the disk caught fire');
    });
    expect([failing.status, parsed(failing)]).toEqual([
      500,
      { message: 'Sandbox failure: the disk caught fire', code: 'internal_error' },
    ]);
    expect(core.calls.at(-1)).toMatchObject({ status: 500, processed: false });
  });

  it('records a reset before the call with no status and no answer; after it, status and answer', async () => {
    const core = new SandboxCore();
    core.faults.next({ route: 'POST /incidents', fault: { reset: 'before' } });
    core.faults.next({ route: 'POST /incidents', fault: { reset: 'after' } });
    const before = await send(core, { path: '/incidents', body: json(homeIncident) } as never);
    const after = await send(core, { path: '/incidents', body: json(homeIncident) } as never);
    expect([before.network, after.network, after.status]).toEqual([
      { kind: 'reset' },
      { kind: 'reset' },
      201,
    ]);
    const [first, second] = core.calls;
    expect(first).toMatchObject({ status: null, processed: false, fault: { reset: 'before' } });
    expect(first).not.toHaveProperty('response');
    expect(second).toMatchObject({
      status: 201,
      processed: true,
      response: { headers: { 'content-type': 'application/json; charset=utf-8' } },
    });
    expect([before.callId, after.callId]).toEqual([1, 2]);
    expect(core.incidents).toHaveLength(1);
  });

  it('records a delayed call before the wait, then its whole time; a caller gone ends the wait', async () => {
    // The wait and the call's time on a fake clock: exact, however loaded the machine is.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const core = new SandboxCore();
      const changes: SandboxChange[] = [];
      core.onChange((c) => changes.push(c));
      core.faults.next({ route: 'GET /metadata/programmes', fault: { delayMs: 200 }, times: 2 });
      let answered = false;
      const pending = send(core, { method: 'GET', path: '/metadata/programmes' }).then(() => {
        answered = true;
      });
      await vi.advanceTimersByTimeAsync(50);
      expect(core.calls).toMatchObject([{ status: 200, fault: { delayMs: 200 }, ms: 0 }]);
      await vi.advanceTimersByTimeAsync(149);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await pending;
      expect(core.calls[0]?.ms).toBe(200);
      expect(changes.filter((c) => c.kind === 'call')).toEqual([
        { kind: 'call', id: 1 },
        { kind: 'call', id: 1 },
      ]);
      const gone = new AbortController();
      let cutShort = false;
      const cut = core
        .handle({
          ...head(core, { method: 'GET', path: '/metadata/programmes' }),
          body: new Uint8Array(),
          signal: gone.signal,
        })
        .then(() => {
          cutShort = true;
        });
      gone.abort();
      // No time passes: the wait ends with the caller.
      await vi.advanceTimersByTimeAsync(0);
      expect(cutShort).toBe(true);
      await cut;
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('callEnded stretches a call’s time to the end of its answer, and ignores unknown ids', async () => {
    const core = new SandboxCore();
    const answer = await send(core, { method: 'GET', path: '/metadata/programmes' });
    core.callEnded(answer.callId, performance.now() - 5_000);
    expect(core.calls[0]?.ms).toBeGreaterThanOrEqual(5_000);
    core.callEnded(answer.callId, performance.now());
    expect(core.calls[0]?.ms).toBeGreaterThanOrEqual(5_000);
    core.callEnded(undefined, 0);
    core.callEnded(999, 0);
    expect(core.call(999)).toBeUndefined();
  });

  it('the token endpoint: its own route name, limit and faults; its tokens are accepted', async () => {
    const core = new SandboxCore({ oauth: { clientId: 'c', clientSecret: 's3cret-value' } });
    const asked: number[] = [];
    const form = Buffer.from('grant_type=client_credentials&client_id=c&client_secret=s3cret-value');
    const token = await core.serve(
      {
        method: 'POST',
        path: '/oauth/token',
        query: new URLSearchParams(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      async (limit) => {
        asked.push(limit);
        return form;
      },
    );
    expect([token.status, asked]).toEqual([200, [64 * 1024]]);
    const issued = parsed(token).access_token as string;
    expect(core.authorises(`Bearer ${issued}`)).toBe(true);
    expect(core.authorises(`bearer   ${core.token}`)).toBe(true);
    expect(core.authorises('Bearer other')).toBe(false);
    expect(core.authorises(undefined)).toBe(false);
    expect(new SandboxCore().authorises(`Bearer ${issued}`)).toBe(false);
    core.faults.next({ route: 'POST /oauth/token', fault: { status: 503 } });
    const faulted = await core.handle({
      method: 'POST',
      path: '/oauth/token',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(faulted.status).toBe(503);
    expect(core.calls.map((c) => [c.route, c.status])).toEqual([
      ['POST /oauth/token', 200],
      ['POST /oauth/token', 503],
    ]);
    expect(core.oauth?.requests).toBe(1);
  });

  it('reads uploads a few at a time', async () => {
    const core = new SandboxCore({ limits: { maxParallelUploads: 1 } });
    let release: (body: Uint8Array) => void = () => undefined;
    const reads: string[] = [];
    const first = core.serve(head(core, { path: '/attachments' }), () => {
      reads.push('first');
      return new Promise((resolve) => {
        release = resolve;
      });
    });
    const second = core.serve(head(core, { path: '/attachments' }), async () => {
      reads.push('second');
      return new Uint8Array();
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reads).toEqual(['first']);
    release(new Uint8Array());
    await Promise.all([first, second]);
    expect(reads).toEqual(['first', 'second']);
  });

  it('refuses limits of the wrong shape when it is made', () => {
    expect(() => new SandboxCore({ limits: { maxCalls: 0 } })).toThrow(
      'Invalid sandbox options: limits.maxCalls must be a positive integer',
    );
  });
});

describe('redelivery and reset, in the core', () => {
  it('redelivers, and a reset forgets everything but the token, metadata and limits', async () => {
    const receiver = await startLocalServer();
    try {
      const core = new SandboxCore({ token: 'keep-me', limits: { maxCalls: 50 } });
      const { webhookId } = core.createWebhook({ url: receiver.url });
      await send(core, {
        path: `/webhooks/${webhookId}/subscriptions`,
        body: json({ webhookEvent: 'New Event' }),
      } as never);
      const created = parsed(await send(core, { path: '/incidents', body: json(homeIncident) } as never));
      await send(core, {
        path: `/incidents/${created.incidentId}/events`,
        body: json({ eventType: 'E', category: 'C', detail: 'd' }),
      } as never);
      await core.settled();
      const [delivery] = core.deliveries;
      const again = await core.redeliver(delivery?.deliveryId as string);
      expect(again).toMatchObject({ attempt: 2, status: 'delivered' });
      const changes: string[] = [];
      core.onChange((c) => changes.push(c.kind));
      core.faults.next({ route: 'POST /incidents', fault: { status: 500 } });
      core.reset();
      expect(changes).toEqual(['faults', 'faults', 'reset']);
      expect([
        core.incidents,
        core.deliveries,
        core.calls,
        core.faults.pending,
        core.webhooks,
        core.attachments,
      ]).toEqual([[], [], [], [], [], []]);
      expect([core.token, core.limits.maxCalls, core.metadata.programmes.length > 0, core.dropped]).toEqual([
        'keep-me',
        50,
        true,
        { calls: 0, deliveries: 0 },
      ]);
      expect(core.createWebhook({ url: receiver.url })).toEqual({ webhookId: 1 });
    } finally {
      await receiver.close();
    }
  });
});

describe('the control routes', () => {
  it('are the paths under /_sandbox, in any case', () => {
    expect(['/_sandbox', '/_sandbox/', '/_SANDBOX/state', '/_sandbox/a/b'].every(isControlPath)).toBe(true);
    expect(['/_sandboxes', '/x/_sandbox', '/', '/_sandbo'].some(isControlPath)).toBe(false);
  });

  it('list calls, one call, faults; queue, clear, reset; every answer uncached', async () => {
    const core = new SandboxCore();
    await send(core, { method: 'GET', path: '/metadata/programmes' });
    const calls = await control(core, 'GET', '/_sandbox/calls');
    expect([calls.status, calls.headers['cache-control'], parsed(calls).calls]).toEqual([
      200,
      'no-store',
      core.calls,
    ]);
    const one = await control(core, 'GET', '/_SANDBOX/calls/1');
    expect(parsed(one)).toEqual(core.calls[0]);
    expect(parsed(await control(core, 'GET', '/_sandbox/calls/2'))).toEqual({
      message: 'No call 2',
      code: 'not_found',
    });
    const queued = await control(core, 'POST', '/_sandbox/faults', {
      route: 'POST /incidents',
      fault: { status: 500 },
      times: 2,
    });
    expect([queued.status, parsed(queued)]).toEqual([
      201,
      { faults: [{ route: 'POST /incidents', fault: { status: 500 }, remaining: 2, text: '500' }] },
    ]);
    expect(parsed(await control(core, 'GET', '/_sandbox/faults'))).toEqual(parsed(queued));
    expect(
      await control(core, 'POST', '/_sandbox/faults', 'route=x', { 'content-type': 'text/plain' }),
    ).toMatchObject({ status: 415 });
    expect(await control(core, 'POST', '/_sandbox/faults', undefined, {})).toMatchObject({ status: 415 });
    const broken = await control(core, 'POST', '/_sandbox/faults', '{"route":');
    expect(parsed(broken)).toEqual({ message: 'The body is not valid JSON', code: 'invalid_json' });
    const bad = await control(core, 'POST', '/_sandbox/faults', { route: 'POST /x', fault: { status: 500 } });
    expect([bad.status, parsed(bad).code, parsed(bad).details[0].path]).toEqual([
      400,
      'invalid_fault',
      'route',
    ]);
    const cleared = await control(core, 'DELETE', '/_sandbox/faults');
    expect([cleared.status, parsed(cleared), core.faults.pending]).toEqual([200, { faults: [] }, []]);
    const reset = await control(core, 'POST', '/_sandbox/reset');
    expect([reset.status, parsed(reset), core.calls]).toEqual([200, { reset: true }, []]);
    const wrong = await control(core, 'PATCH', '/_sandbox/reset');
    expect([wrong.status, wrong.headers.allow, parsed(wrong).message]).toEqual([
      405,
      'POST',
      'PATCH is not allowed here (use POST)',
    ]);
    expect(parsed(await control(core, 'GET', '/_sandbox/x/y/z'))).toEqual({
      message: 'No route GET /_sandbox/x/y/z',
      code: 'not_found',
    });
    expect((await control(core, 'GET', '/_sandbox/%E0%A4%A')).status).toBe(400);
  });

  it('state: counts, limits, routes, chaos and the newest entries', async () => {
    const core = new SandboxCore({ chaos: { rate: 0, seed: 3 } });
    for (let i = 0; i < LISTED + 5; i++) await send(core, { method: 'GET', path: '/metadata/programmes' });
    const state = parsed(await control(core, 'GET', '/_sandbox/state'));
    expect(state.chaos).toEqual({ rate: 0, seed: 3 });
    expect(state.calls).toHaveLength(LISTED);
    expect(state.calls[0].id).toBe(6);
    expect(state.calls[0]).toEqual({
      id: 6,
      at: expect.any(String),
      method: 'GET',
      route: 'GET /metadata/programmes',
      path: '/metadata/programmes',
      status: 200,
      processed: true,
      fault: null,
      ms: expect.any(Number),
    });
    expect(state.counts).toEqual({
      calls: LISTED + 5,
      incidents: 0,
      events: 0,
      attachments: 0,
      storedBytes: 0,
      deliveries: 0,
      webhooks: 0,
      dropped: { calls: 0, deliveries: 0 },
    });
    expect(typeof state.version).toBe('string');
  });

  it('incident and delivery details, with secrets blanked and files described', async () => {
    const receiver = await startLocalServer(() => ({ body: 'thanks: hv-123456' }));
    try {
      const core = new SandboxCore({ token: 'tok-ctl-1' });
      const { webhookId } = core.createWebhook({
        url: `${receiver.url}/?api_key=k9`,
        headerName: 'X-Check',
        headerValue: 'hv-123456',
      });
      await send(core, {
        path: `/webhooks/${webhookId}/subscriptions`,
        body: json({ webhookEvent: 'New Event' }),
      } as never);
      const multipart =
        '--b\r\nContent-Disposition: form-data; name=""; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--\r\n';
      const [file] = parsed(
        await send(core, {
          path: '/attachments',
          headers: { 'content-type': 'multipart/form-data; boundary=b' },
          body: Buffer.from(multipart),
        } as never),
      );
      const created = parsed(
        await send(core, {
          path: '/incidents',
          body: json({
            ...homeIncident,
            description: 'says tok-ctl-1',
            attachments: [
              { attachmentId: file.attachmentId, description: 'the file' },
              { attachmentId: file.attachmentId },
            ],
          }),
        } as never),
      );
      await core.settled();
      const detail = parsed(await control(core, 'GET', `/_sandbox/incidents/${created.incidentId}`));
      expect(detail).toMatchObject({
        incidentId: created.incidentId,
        description: 'says [REDACTED]',
        extendedFields: [],
        body: { description: 'says [REDACTED]' },
        events: [
          {
            eventType: 'Event Log Entry',
            category: 'Other',
            attachments: [
              {
                attachmentId: file.attachmentId,
                filename: 'a.txt',
                contentType: 'text/plain',
                source: 'upload',
                status: 'stored',
                bytes: 5,
                description: 'the file',
              },
              { attachmentId: file.attachmentId, description: null },
            ],
          },
        ],
      });
      expect(parsed(await control(core, 'GET', '/_sandbox/incidents/nope'))).toEqual({
        message: 'No incident "nope"',
        code: 'not_found',
      });
      const [delivery] = core.deliveries;
      const attempts = parsed(
        await control(core, 'GET', `/_sandbox/deliveries/${delivery?.deliveryId}`),
      ).attempts;
      expect(attempts).toEqual([
        {
          deliveryId: delivery?.deliveryId,
          attempt: 1,
          at: delivery?.at,
          webhookId,
          subscriptionId: 1,
          url: `${receiver.url}/?api_key=REDACTED`,
          status: 'delivered',
          responseStatus: 200,
          responseBody: 'thanks: [REDACTED]',
          error: null,
          headers: {
            'content-type': 'application/json',
            'user-agent': expect.stringMatching(/^claims-sandbox\//),
            'x-check': '[REDACTED]',
          },
          payload: expect.objectContaining({ webhookEvent: 'New Event', deliveryId: delivery?.deliveryId }),
        },
      ]);
      const again = parsed(
        await control(core, 'POST', `/_sandbox/deliveries/${delivery?.deliveryId}/redeliver`),
      );
      expect([again.attempt, again.status]).toEqual([2, 'delivered']);
      const state = parsed(await control(core, 'GET', '/_sandbox/state'));
      expect(state.incidents).toEqual([
        {
          incidentId: created.incidentId,
          createdAt: expect.any(String),
          programmeCode: 'PRG-HOME',
          policyTypeCode: 'HOME-STD',
          policyCountry: 'GB',
          incidentDate: '2026-01-31',
          description: 'says [REDACTED]',
          events: 1,
        },
      ]);
      expect(state.deliveries.map((d: { attempt: number }) => d.attempt)).toEqual([1, 2]);
      expect(JSON.stringify(state)).not.toMatch(/tok-ctl-1|hv-123456|k9/);
    } finally {
      await receiver.close();
    }
  });
});
