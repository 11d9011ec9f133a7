/**
 * What the sandbox serves the inspector page (without a browser): the page and its files with
 * a strict policy, the live feed, details, downloads; never a token or a webhook header value.
 */
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { FAULT_ROUTES } from '../../src/testing/core/faults/route-pattern.js';
import { DEFAULT_LIMITS } from '../../src/testing/core/limits.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { MAX_WATCHERS } from '../../src/testing/node/event-stream.js';
import { homeIncident, type LocalServer, raw, startLocalServer } from './helpers.js';

/** Reads a server-sent event stream until `enough` says so (or 5 s pass); the events, parsed. */
async function watch(url: string, enough: (events: Array<{ event: string; data: unknown }>) => boolean) {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  const events: Array<{ event: string; data: unknown }> = [];
  let raw = '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + 5_000;
  // One read in flight at a time: a read given up on would swallow the chunk it gets.
  let pending = reader.read();
  while (!enough(events) && Date.now() < deadline) {
    const next = await Promise.race([
      pending,
      new Promise<'wait'>((resolve) => setTimeout(() => resolve('wait'), 200)),
    ]);
    if (next === 'wait') continue;
    if (next.done) break;
    pending = reader.read();
    raw += decoder.decode(next.value, { stream: true });
    for (let end = raw.indexOf('\n\n'); end >= 0; end = raw.indexOf('\n\n')) {
      const block = raw.slice(0, end);
      raw = raw.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) events.push({ event, data: JSON.parse(data) });
    }
  }
  pending.catch(() => undefined);
  controller.abort();
  return { res, events };
}

describe('the inspector’s server side', () => {
  let sandbox: Sandbox;
  let receiver: LocalServer;
  let client: ClaimsClient;
  beforeAll(async () => {
    sandbox = await createSandbox({ token: 'tok-inspector-123' });
    receiver = await startLocalServer(() => ({ body: 'thanks' }));
    client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token, maxRetries: 0 });
  });
  afterAll(async () => {
    await client.close();
    await receiver.close();
    await sandbox.close();
  });

  it('serves the page at inspectorUrl, its script and style, under a strict policy', async () => {
    expect(sandbox.inspectorUrl).toBe(`${sandbox.url}/_sandbox/`);
    const redirect = await fetch(`${sandbox.url}/_sandbox`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/_sandbox/']);
    const page = await fetch(sandbox.inspectorUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toContain('<script src="inspector.js" defer></script>');
    expect(html).not.toMatch(/<script>|\sstyle="|\son[a-z]+="/);
    const script = await fetch(`${sandbox.inspectorUrl}inspector.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const code = await script.text();
    expect(() => new Script(code)).not.toThrow();
    expect(code).not.toContain('innerHTML');
    const style = await fetch(`${sandbox.inspectorUrl}inspector.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const head = await fetch(sandbox.inspectorUrl, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('GET /_sandbox/state has what the page draws', async () => {
    const { body } = await raw(sandbox, 'GET', '/_sandbox/state', { token: null });
    expect(body).toMatchObject({ routes: FAULT_ROUTES, limits: DEFAULT_LIMITS, chaos: null, faults: [] });
    expect(Object.keys((body as { counts: object }).counts).sort()).toEqual(
      [
        'attachments',
        'calls',
        'deliveries',
        'dropped',
        'events',
        'incidents',
        'storedBytes',
        'webhooks',
      ].sort(),
    );
  });

  it('streams the state, then each change, with no secret in the stream', async () => {
    const { webhookId } = sandbox.createWebhook({
      url: `${receiver.url}/hook`,
      headerName: 'X-Hook-Secret',
      headerValue: 'webhook-secret-value',
    });
    await client.subscriptions.create(webhookId, { webhookEvent: 'New Event' });
    const stream = watch(`${sandbox.url}/_sandbox/events`, (events) =>
      events.some((e) => e.event === 'changes' && JSON.stringify(e.data).includes('"status":"delivered"')),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { incidentId } = await client.incidents.create({
      ...homeIncident,
      description: 'echoes tok-inspector-123',
    });
    await client.events.create(incidentId, {
      eventType: 'Event Log Entry',
      category: 'Other',
      detail: 'webhook-secret-value',
    });
    await client.webhooks.update(webhookId, { headerValue: 'webhook-secret-value' });
    const { res, events } = await stream;
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(events[0]?.event).toBe('state');
    const text = JSON.stringify(events);
    expect(text).toContain('POST /incidents');
    expect(text).toContain(incidentId);
    expect(text).toContain('"status":"delivered"');
    expect(text).not.toContain('tok-inspector-123');
    expect(text).not.toContain('webhook-secret-value');
    const changes = events
      .filter((e) => e.event === 'changes')
      .map((e) => e.data as { calls: Array<{ route: string }> });
    expect(changes.flatMap((c) => c.calls.map((call) => call.route))).toEqual(
      expect.arrayContaining(['POST /incidents', 'POST /incidents/{incidentId}/events']),
    );
  });

  it('details of an incident and its files; downloads are attachments, never shown inline', async () => {
    const [uploaded] = await client.attachments.upload({
      data: Buffer.from('<script>alert(1)</script>'),
      filename: 'évidence "1".html',
      contentType: 'text/html',
    });
    const attachmentId = uploaded?.attachmentId as string;
    const { incidentId } = await client.incidents.create({
      ...homeIncident,
      attachments: [{ attachmentId, description: 'page' }],
    });
    const detail = await raw(sandbox, 'GET', `/_sandbox/incidents/${incidentId}`, { token: null });
    expect(detail.body).toMatchObject({
      incidentId,
      events: [
        {
          eventType: 'Event Log Entry',
          attachments: [
            {
              attachmentId,
              filename: 'évidence "1".html',
              contentType: 'text/html',
              bytes: 25,
              status: 'stored',
              description: 'page',
            },
          ],
        },
      ],
    });
    const file = await fetch(`${sandbox.url}/_sandbox/attachments/${attachmentId}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/octet-stream');
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="_vidence _1_.html"; filename*=UTF-8''%C3%A9vidence%20%221%22.html`,
    );
    expect(file.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(await file.text()).toBe('<script>alert(1)</script>');
    const missing = await raw(sandbox, 'GET', '/_sandbox/attachments/nope', { token: null });
    expect(missing).toMatchObject({ status: 404, body: { message: 'No attachment "nope"' } });
  });

  it(`lets ${MAX_WATCHERS} pages watch at once, and says so to one more`, async () => {
    const controllers = Array.from({ length: MAX_WATCHERS }, () => new AbortController());
    // One stream may still be open from an earlier test: leave room for it.
    const opened = await Promise.all(
      controllers.map((c) => fetch(`${sandbox.url}/_sandbox/events`, { signal: c.signal })),
    );
    const statuses = opened.map((r) => r.status);
    const extra = await fetch(`${sandbox.url}/_sandbox/events`);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(MAX_WATCHERS - 1);
    expect(extra.status).toBe(503);
    expect(await extra.text()).toBe(`At most ${MAX_WATCHERS} pages may watch at once`);
    for (const c of controllers) c.abort();
  });
});
