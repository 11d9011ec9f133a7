/**
 * Sending a delivery again on demand (`sandbox.redeliver(id)`, `POST
 * /_sandbox/deliveries/{id}/redeliver`), so a receiver's handling of a copy (deduplication,
 * a rotated header) can be tried locally: the same payload, to the webhook as it is now.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { deliverOneEvent, type LocalServer, raw, startLocalServer } from './helpers.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function deliverOnce(reply: Parameters<typeof startLocalServer>[0] = () => ({ body: 'ok' })) {
  const receiver: LocalServer = await startLocalServer(reply);
  const sandbox: Sandbox = await createSandbox();
  cleanups.push(
    () => receiver.close(),
    () => sandbox.close(),
  );
  const { webhookId } = sandbox.createWebhook({
    url: `${receiver.url}/hook`,
    headerName: 'X-Hook-Secret',
    headerValue: 'first-secret',
  });
  await deliverOneEvent(sandbox, webhookId);
  const [first] = sandbox.deliveries;
  if (!first) throw new Error('no delivery');
  return { receiver, sandbox, webhookId, first };
}

describe('redelivery', () => {
  it('sends the same payload again, as a new attempt, to the webhook’s url and header as they are now', async () => {
    const { receiver, sandbox, webhookId, first } = await deliverOnce();
    expect(first).toMatchObject({ attempt: 1, status: 'delivered', responseStatus: 200, responseBody: 'ok' });
    await raw(sandbox, 'PATCH', `/webhooks/${webhookId}`, {
      json: { headerValue: 'next-secret', isActive: false },
    });
    const again = await sandbox.redeliver(first.deliveryId);
    expect(again).toMatchObject({
      deliveryId: first.deliveryId,
      attempt: 2,
      status: 'delivered',
      payload: first.payload,
    });
    expect(receiver.received).toHaveLength(2);
    const [one, two] = receiver.received;
    expect(two?.body).toBe(one?.body);
    expect(JSON.parse(two?.body ?? '').deliveryId).toBe(first.deliveryId);
    expect([one?.headers['x-hook-secret'], two?.headers['x-hook-secret']]).toEqual([
      'first-secret',
      'next-secret',
    ]);
    expect(sandbox.deliveries.map((d) => [d.deliveryId, d.attempt])).toEqual([
      [first.deliveryId, 1],
      [first.deliveryId, 2],
    ]);
    expect((await sandbox.redeliver(first.deliveryId)).attempt).toBe(3);
  });

  it('over HTTP without a token, answering the attempt with the header value blanked', async () => {
    const { receiver, sandbox, first } = await deliverOnce();
    const answer = await raw(sandbox, 'POST', `/_sandbox/deliveries/${first.deliveryId}/redeliver`, {
      token: null,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      deliveryId: first.deliveryId,
      attempt: 2,
      status: 'delivered',
      responseStatus: 200,
      headers: { 'content-type': 'application/json', 'x-hook-secret': '[REDACTED]' },
    });
    expect(JSON.stringify(answer.body)).not.toContain('first-secret');
    expect(receiver.received).toHaveLength(2);
    const listed = await raw(sandbox, 'GET', `/_sandbox/deliveries/${first.deliveryId}`, { token: null });
    expect((listed.body as { attempts: Array<{ attempt: number }> }).attempts.map((a) => a.attempt)).toEqual([
      1, 2,
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('first-secret');
  });

  it('records a receiver’s refusal, with the start of its answer', async () => {
    let n = 0;
    const { sandbox, first } = await deliverOnce(() =>
      n++ === 0 ? { body: 'ok' } : { status: 409, body: 'x'.repeat(10_000) },
    );
    const again = await sandbox.redeliver(first.deliveryId);
    expect(again).toMatchObject({
      status: 'failed',
      responseStatus: 409,
      error: 'the receiver answered 409',
    });
    expect(again.responseBody).toBe('x'.repeat(4_096));
  });

  it('404 for a delivery it does not hold (unknown, or gone after a reset)', async () => {
    const { sandbox, first } = await deliverOnce();
    await expect(sandbox.redeliver('nope')).rejects.toMatchObject({
      status: 404,
      message: 'No delivery "nope"',
    });
    sandbox.reset();
    await expect(sandbox.redeliver(first.deliveryId)).rejects.toMatchObject({ status: 404 });
  });
});
