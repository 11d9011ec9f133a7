/**
 * Bounded work and state: the token is checked from the headers before any body is read,
 * bodies are read with a cap, uploads are read a few at a time, and what the sandbox holds is
 * capped with a clear answer (`403 sandbox_full`) until `sandbox.reset()`.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaimsClient, outcomeOf, PermissionDeniedError } from '../../src/index.js';
import { DEFAULT_LIMITS } from '../../src/testing/core/limits.js';
import { MAX_WAITING } from '../../src/testing/core/slots.js';
import { createSandbox, type Sandbox, SandboxCore } from '../../src/testing/index.js';
import { homeIncident, raw, startLocalServer } from './helpers.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function sandboxWith(options: Parameters<typeof createSandbox>[0]): Promise<Sandbox> {
  const sandbox = await createSandbox(options);
  open.push(sandbox);
  return sandbox;
}

/** A raw connection: write a request head (and some body), read the answer's head when it comes. */
function rawSocket(sandbox: Sandbox): { socket: Socket; answer: Promise<string> } {
  const socket = connect(Number(new URL(sandbox.url).port), '127.0.0.1');
  socket.on('error', () => undefined);
  let text = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) resolve(text);
    });
    socket.on('close', () => resolve(text));
  });
  open.push({ close: async () => void socket.destroy() });
  return { socket, answer };
}

function head(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('the token before the body', () => {
  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer wrong' }],
  ])('%s: answered 401 at once, with 100 MiB announced and not one byte sent', async (_name, auth) => {
    const sandbox = await sandboxWith({});
    const { socket, answer } = rawSocket(sandbox);
    socket.write(
      head('POST', '/incidents', {
        ...auth,
        'content-type': 'application/json',
        'content-length': 100 * 1024 * 1024,
      }),
    );
    const text = await within(answer, 2_000);
    expect(text).not.toBe('pending');
    expect(statusOf(text as string)).toBe(401);
    expect(sandbox.calls.at(-1)).toMatchObject({
      route: 'POST /incidents',
      status: 401,
      request: { body: { bytes: 0 } },
    });
  });

  it('an unknown route and an announced body over the cap are answered before reading too', async () => {
    const sandbox = await sandboxWith({ limits: { maxJsonBodyBytes: 1024 } });
    const auth = { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' };
    const unknown = rawSocket(sandbox);
    unknown.socket.write(head('POST', '/nowhere', { ...auth, 'content-length': 10_000_000 }));
    expect(statusOf((await within(unknown.answer, 2_000)) as string)).toBe(404);
    const big = rawSocket(sandbox);
    big.socket.write(head('POST', '/incidents', { ...auth, 'content-length': 1025 }));
    const text = (await within(big.answer, 2_000)) as string;
    expect(statusOf(text)).toBe(413);
    expect(text).toContain('"code":"payload_too_large"');
  });

  it('a chunked body is read up to the cap, then refused 413', async () => {
    const sandbox = await sandboxWith({ limits: { maxJsonBodyBytes: 1024 } });
    const { socket, answer } = rawSocket(sandbox);
    socket.write(
      head('POST', '/incidents', {
        authorization: `Bearer ${sandbox.token}`,
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
      }),
    );
    const chunk = 'x'.repeat(600);
    socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(await within(answer, 200)).toBe('pending');
    socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const text = (await within(answer, 2_000)) as string;
    expect(statusOf(text)).toBe(413);
    expect(sandbox.calls.at(-1)).toMatchObject({ status: 413, processed: false });
  });

  it('the msw handlers and the core refuse the same sizes (the core decides)', async () => {
    const core = new SandboxCore({ token: 't', limits: { maxJsonBodyBytes: 10 } });
    const answer = await core.handle({
      method: 'POST',
      path: '/incidents',
      query: new URLSearchParams(),
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: Buffer.from('{"aaaaaaaaaa":1}'),
    });
    expect([answer.status, JSON.parse(answer.body ?? '')]).toEqual([
      413,
      { message: 'The body is larger than 10 bytes', code: 'payload_too_large' },
    ]);
  });
});

describe('uploads, a few at a time', () => {
  const boundary = 'b0undary';
  const partHead = `--${boundary}\r\nContent-Disposition: form-data; name=""; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const upload = (sandbox: Sandbox, data: string) => {
    const body = `${partHead}${data}${tail}`;
    const conn = rawSocket(sandbox);
    conn.socket.write(
      head('POST', '/attachments', {
        authorization: `Bearer ${sandbox.token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': body.length,
      }),
    );
    return { ...conn, body };
  };

  it('reads at most maxParallelUploads at once; the next waits for a slot', async () => {
    const sandbox = await sandboxWith({ limits: { maxParallelUploads: 2 } });
    const a = upload(sandbox, 'first');
    const b = upload(sandbox, 'second');
    a.socket.write(a.body.slice(0, 10));
    b.socket.write(b.body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const c = upload(sandbox, 'third');
    c.socket.write(c.body);
    expect(await within(c.answer, 300)).toBe('pending');
    a.socket.write(a.body.slice(10));
    expect(statusOf((await within(a.answer, 2_000)) as string)).toBe(201);
    expect(statusOf((await within(c.answer, 2_000)) as string)).toBe(201);
    b.socket.write(b.body.slice(10));
    expect(statusOf((await within(b.answer, 2_000)) as string)).toBe(201);
    expect(sandbox.calls.map((call) => call.status)).toEqual([201, 201, 201]);
  });

  it(`answers 429 (Retry-After: 1) when ${MAX_WAITING} uploads wait already`, async () => {
    const sandbox = await sandboxWith({ limits: { maxParallelUploads: 1 } });
    const first = upload(sandbox, 'held');
    first.socket.write(first.body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = Array.from({ length: MAX_WAITING }, () => upload(sandbox, 'w'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = upload(sandbox, 'one too many');
    const text = (await within(refused.answer, 2_000)) as string;
    expect(statusOf(text)).toBe(429);
    expect(text).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(text).toContain('"code":"too_many_uploads"');
    for (const w of waiting) w.socket.destroy();
    first.socket.write(first.body.slice(10));
    expect(statusOf((await within(first.answer, 2_000)) as string)).toBe(201);
  });
});

describe('what the sandbox holds', () => {
  const body = (extra: object = {}) => ({ ...homeIncident, ...extra });

  it('has documented defaults', () => {
    expect(new SandboxCore().limits).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toEqual({
      maxIncidents: 10_000,
      maxEvents: 100_000,
      maxAttachments: 10_000,
      maxStoredBytes: 268_435_456,
      maxWebhooks: 1_000,
      maxSubscriptions: 10_000,
      maxCalls: 1_000,
      maxDeliveries: 10_000,
      maxParallelUploads: 4,
      maxJsonBodyBytes: 10_485_760,
    });
  });

  it.each([
    [{ maxIncidents: 0 }, 'limits.maxIncidents must be a positive integer'],
    [{ maxCalls: 1.5 }, 'limits.maxCalls must be a positive integer'],
    [{ maxThings: 3 }, 'limits.maxThings is not a limit'],
  ])('refuses limits %j', (limits, message) => {
    expect(() => new SandboxCore({ limits: limits as never })).toThrow(message);
  });

  it('refuses a claim past maxIncidents with 403 sandbox_full (rejected: nothing stored), until a reset', async () => {
    const sandbox = await sandboxWith({ limits: { maxIncidents: 2 } });
    const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token, maxRetries: 0 });
    await client.incidents.create(body());
    await client.incidents.create(body());
    const error = await client.incidents.create(body()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(outcomeOf(error)).toBe('rejected');
    expect((error as Error).message).toContain(
      'The sandbox is full: it holds 2 incidents (limits.maxIncidents); nothing was stored. Empty it with sandbox.reset() or POST /_sandbox/reset',
    );
    expect(sandbox.incidents).toHaveLength(2);
    expect(sandbox.calls.at(-1)).toMatchObject({ status: 403, processed: false });
    sandbox.reset();
    await expect(client.incidents.create(body())).resolves.toHaveProperty('incidentId');
    await client.close();
  });

  it('counts events, attachments and bytes; a call is stored whole or not at all', async () => {
    const files = await startLocalServer(() => ({ body: 'file body' }));
    open.push(files);
    const sandbox = await sandboxWith({ limits: { maxEvents: 2, maxAttachments: 3, maxStoredBytes: 2_000 } });
    const event = { eventType: 'E', category: 'C', detail: 'd' };
    const { body: created } = await raw(sandbox, 'POST', '/incidents', {
      json: body({ attachments: [{ url: `${files.url}/a.txt` }] }),
    });
    const { incidentId } = created as { incidentId: string };
    // The automatic event and one url attachment are counted with the incident.
    expect(sandbox.core.usage).toMatchObject({ incidents: 1, events: 1, attachments: 1 });
    expect((await raw(sandbox, 'POST', `/incidents/${incidentId}/events`, { json: event })).status).toBe(201);
    const full = await raw(sandbox, 'POST', `/incidents/${incidentId}/events`, { json: event });
    expect(full).toMatchObject({
      status: 403,
      body: { code: 'sandbox_full', message: expect.stringContaining('2 events (limits.maxEvents)') },
    });
    expect(sandbox.incident(incidentId)?.events).toHaveLength(2);

    const multipart = (n: number, size: number) => {
      const parts = Array.from(
        { length: n },
        (_, i) =>
          `--b\r\nContent-Disposition: form-data; name=""; filename="${i}.bin"\r\n\r\n${'z'.repeat(size)}\r\n`,
      );
      return `${parts.join('')}--b--\r\n`;
    };
    const headers = { 'content-type': 'multipart/form-data; boundary=b' };
    const tooMany = await raw(sandbox, 'POST', '/attachments', { body: multipart(3, 1), headers });
    expect(tooMany).toMatchObject({
      status: 403,
      body: { message: expect.stringContaining('3 attachments (limits.maxAttachments)') },
    });
    const tooBig = await raw(sandbox, 'POST', '/attachments', { body: multipart(1, 5_000), headers });
    expect(tooBig).toMatchObject({
      status: 403,
      body: { message: expect.stringContaining('(limits.maxStoredBytes)') },
    });
    expect(sandbox.core.usage.attachments).toBe(1);
    expect((await raw(sandbox, 'POST', '/attachments', { body: multipart(2, 1), headers })).status).toBe(201);
    expect(sandbox.core.usage.attachments).toBe(3);
  });

  it('a download past maxStoredBytes fails, and says why', async () => {
    const files = await startLocalServer(() => ({ body: 'y'.repeat(3_000) }));
    open.push(files);
    const sandbox = await sandboxWith({ limits: { maxStoredBytes: 2_000 } });
    const { body: created } = await raw(sandbox, 'POST', '/incidents', {
      json: body({ attachments: [{ url: `${files.url}/big.bin` }] }),
    });
    await sandbox.settled();
    const [linked] =
      sandbox.incident((created as { incidentId: string }).incidentId)?.events[0]?.attachments ?? [];
    expect(sandbox.attachment(linked?.attachmentId as string)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('The sandbox is full'),
    });
  });

  it('caps webhooks and subscriptions, keeps the newest deliveries, and reset empties all', async () => {
    const receiver = await startLocalServer();
    open.push(receiver);
    const sandbox = await sandboxWith({ limits: { maxWebhooks: 1, maxSubscriptions: 1, maxDeliveries: 2 } });
    const { webhookId } = sandbox.createWebhook({ url: receiver.url });
    expect(() => sandbox.createWebhook({ url: receiver.url })).toThrow(
      'it holds 1 webhooks (limits.maxWebhooks)',
    );
    expect((await raw(sandbox, 'POST', '/webhooks', { json: { url: receiver.url } })).status).toBe(403);
    expect(
      (
        await raw(sandbox, 'POST', `/webhooks/${webhookId}/subscriptions`, {
          json: { webhookEvent: 'New Event' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await raw(sandbox, 'POST', `/webhooks/${webhookId}/subscriptions`, {
          json: { webhookEvent: 'New Event' },
        })
      ).status,
    ).toBe(403);
    const { body: created } = await raw(sandbox, 'POST', '/incidents', { json: homeIncident });
    const { incidentId } = created as { incidentId: string };
    for (let i = 0; i < 3; i++)
      await raw(sandbox, 'POST', `/incidents/${incidentId}/events`, {
        json: { eventType: 'E', category: 'C', detail: `${i}` },
      });
    await sandbox.settled();
    expect(sandbox.deliveries.map((d) => d.payload.data.detail)).toEqual(['1', '2']);
    expect(sandbox.core.dropped.deliveries).toBe(1);

    sandbox.faults.next({ route: 'POST /incidents', fault: { status: 500 } });
    sandbox.reset();
    expect([
      sandbox.incidents,
      sandbox.deliveries,
      sandbox.calls,
      sandbox.faults.pending,
      sandbox.core.webhooks,
    ]).toEqual([[], [], [], [], []]);
    expect(sandbox.core.usage).toMatchObject({ incidents: 0, events: 0, attachments: 0, storedBytes: 0 });
    expect(sandbox.createWebhook({ url: receiver.url })).toEqual({ webhookId: 1 });
    expect((await raw(sandbox, 'GET', '/metadata/programmes')).status).toBe(200);
  });
});
