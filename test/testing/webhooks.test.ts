import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, UnprocessableEntityError } from '../../src/index.js';
import { NewEventDeliverySchema } from '../../src/testing/index.js';
import { homeIncident, type LocalServer, raw, startLocalServer, useSandbox } from './helpers.js';

const event = (category: string, eventType = 'Event Log Entry') => ({
  eventType,
  category,
  detail: `a ${category} event`,
});

describe('sandbox webhooks and deliveries', () => {
  const ctx = useSandbox();
  let receiver: LocalServer;
  let status = 200;

  beforeAll(async () => {
    receiver = await startLocalServer(() => ({ status }));
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    status = 200;
  });

  /** A new webhook pointing at the receiver, so each test sees only its own deliveries. */
  async function hook(path: string, extra: { headerName?: string; headerValue?: string } = {}) {
    const res = await raw(ctx.sandbox, 'POST', '/webhooks', {
      json: { url: `${receiver.url}${path}`, ...extra },
    });
    expect(res.status).toBe(201);
    return (res.body as { webhookId: number }).webhookId;
  }
  const receivedAt = (path: string) => receiver.received.filter((r) => r.path === path);

  async function newIncidentWithEvents(...categories: string[]) {
    const { incidentId } = await ctx.client.incidents.create(homeIncident);
    for (const category of categories) await ctx.client.events.create(incidentId, event(category));
    await ctx.sandbox.settled();
    return incidentId;
  }

  it('POSTs New Event with the extra header and the documented payload', async () => {
    const webhookId = await hook('/payload', { headerName: 'X-Hook-Secret', headerValue: 'sh-secret' });
    const { subscriptionId } = await ctx.client.subscriptions.create(webhookId, {
      webhookEvent: 'New Event',
    });
    const incidentId = await newIncidentWithEvents('Other');

    const [delivery] = receivedAt('/payload');
    expect(delivery?.method).toBe('POST');
    expect(delivery?.headers['x-hook-secret']).toBe('sh-secret');
    expect(delivery?.headers['content-type']).toBe('application/json');
    const payload = NewEventDeliverySchema.parse(JSON.parse(delivery?.body ?? ''));
    expect(payload).toMatchObject({
      webhookEvent: 'New Event',
      webhookId,
      subscriptionId,
      data: {
        incidentId,
        eventType: 'Event Log Entry',
        category: 'Other',
        detail: 'a Other event',
        attachments: [],
      },
    });
    const logged = ctx.sandbox.deliveries.find((d) => d.deliveryId === payload.deliveryId);
    expect(logged).toMatchObject({ status: 'delivered', responseStatus: 200, webhookId, subscriptionId });
  });

  it('honours equals filters on category and eventType (all conditions must hold)', async () => {
    const webhookId = await hook('/filters');
    await ctx.client.subscriptions.create(webhookId, {
      webhookEvent: 'New Event',
      filters: {
        fields: [
          { name: 'category', operator: 'equals', value: 'Report: Final' },
          { name: 'eventType', operator: 'equals', value: 'Event Log Entry' },
        ],
      },
    });
    const { incidentId } = await ctx.client.incidents.create(homeIncident);
    await ctx.client.events.create(incidentId, event('Other'));
    await ctx.client.events.create(incidentId, event('Report: Final', 'Note'));
    await ctx.client.events.create(incidentId, event('Report: Final'));
    await ctx.client.events.create(incidentId, event('report: final'));
    await ctx.sandbox.settled();
    const got = receivedAt('/filters').map((r) => NewEventDeliverySchema.parse(JSON.parse(r.body)).data);
    expect(got.map((d) => [d.eventType, d.category])).toEqual([['Event Log Entry', 'Report: Final']]);
  });

  it('delivers the automatic event of an incident created with attachments', async () => {
    const webhookId = await hook('/auto');
    await ctx.client.subscriptions.create(webhookId, { webhookEvent: 'New Event' });
    const { incidentId } = await ctx.client.incidents.create({
      ...homeIncident,
      attachments: [
        { file: { data: Buffer.from('photo'), filename: 'ceiling.jpg' }, description: 'Ceiling' },
      ],
    });
    await ctx.sandbox.settled();
    const events = ctx.sandbox.incident(incidentId)?.events ?? [];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: 'Event Log Entry',
      category: 'Other',
      attachments: [{ filename: 'ceiling.jpg', description: 'Ceiling', attachmentId: expect.any(String) }],
    });
    const [delivery] = receivedAt('/auto');
    expect(NewEventDeliverySchema.parse(JSON.parse(delivery?.body ?? '')).data).toMatchObject({
      incidentId,
      eventId: events[0]?.eventId,
      attachments: [{ filename: 'ceiling.jpg', description: 'Ceiling' }],
    });
  });

  it('a disabled subscription gets nothing; re-enabled, it gets deliveries again', async () => {
    const webhookId = await hook('/sub-gate');
    const { subscriptionId } = await ctx.client.subscriptions.create(webhookId, {
      webhookEvent: 'New Event',
      isActive: false,
    });
    await newIncidentWithEvents('Other');
    expect(receivedAt('/sub-gate')).toHaveLength(0);
    await ctx.client.subscriptions.update(webhookId, subscriptionId, { isActive: true });
    await newIncidentWithEvents('Other');
    expect(receivedAt('/sub-gate')).toHaveLength(1);
  });

  it('a disabled webhook gates all its subscriptions, keeping their own isActive', async () => {
    const webhookId = await hook('/hook-gate');
    await ctx.client.subscriptions.create(webhookId, { name: 'a', webhookEvent: 'New Event' });
    await ctx.client.subscriptions.create(webhookId, { name: 'b', webhookEvent: 'New Event' });
    await ctx.client.webhooks.update(webhookId, { isActive: false });
    await newIncidentWithEvents('Other');
    expect(receivedAt('/hook-gate')).toHaveLength(0);
    expect((await ctx.client.subscriptions.list(webhookId)).map((s) => s.isActive)).toEqual([true, true]);

    await ctx.client.webhooks.update(webhookId, { isActive: true });
    await newIncidentWithEvents('Other');
    expect(receivedAt('/hook-gate')).toHaveLength(2);
  });

  it('webhook updates change only the fields given', async () => {
    const webhookId = await hook('/old', { headerName: 'X-Token', headerValue: 'one' });
    await ctx.client.subscriptions.create(webhookId, { webhookEvent: 'New Event' });
    const patched = await raw(ctx.sandbox, 'PATCH', `/webhooks/${webhookId}`, {
      json: { url: `${receiver.url}/new` },
    });
    expect(patched).toMatchObject({
      status: 200,
      body: {
        webhookId,
        url: `${receiver.url}/new`,
        headerName: 'X-Token',
        headerValue: 'one',
        isActive: true,
      },
    });
    await ctx.client.webhooks.update(webhookId, { headerValue: 'two' });
    await newIncidentWithEvents('Other');
    expect(receivedAt('/old')).toHaveLength(0);
    expect(receivedAt('/new')[0]?.headers['x-token']).toBe('two');
  });

  it('subscription updates change only the fields given; a new webhookEvent drops old filters', async () => {
    const webhookId = await hook('/partial');
    const filters = { fields: [{ name: 'category', operator: 'equals', value: 'Other' }] };
    const { subscriptionId } = await ctx.client.subscriptions.create(webhookId, {
      name: 'mine',
      webhookEvent: 'New Event',
      filters,
    });
    await ctx.client.subscriptions.update(webhookId, subscriptionId, { name: 'renamed' });
    expect((await ctx.client.subscriptions.list(webhookId))[0]).toMatchObject({
      name: 'renamed',
      webhookEvent: 'New Event',
      isActive: true,
      filters,
    });
    await ctx.client.subscriptions.update(webhookId, subscriptionId, { webhookEvent: 'Incident Closed' });
    expect((await ctx.client.subscriptions.list(webhookId))[0]).toMatchObject({
      webhookEvent: 'Incident Closed',
      filters: { fields: [] },
    });
    await newIncidentWithEvents('Other');
    expect(receivedAt('/partial')).toHaveLength(0);
  });

  it('refuses duplicate names (409), unsupported filters (422) and unknown ids (404)', async () => {
    const webhookId = await hook('/errors');
    await ctx.client.subscriptions.create(webhookId, { name: 'taken', webhookEvent: 'New Event' });
    await expect(
      ctx.client.subscriptions.create(webhookId, { name: 'taken', webhookEvent: 'New Event' }),
    ).rejects.toBeInstanceOf(ConflictError);
    const bad = await ctx.client.subscriptions
      .create(webhookId, {
        webhookEvent: 'New Event',
        filters: { fields: [{ name: 'detail', operator: 'contains', value: 'x' }] },
      })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(UnprocessableEntityError);
    expect(
      ((bad as UnprocessableEntityError).body as { details: Array<{ code: string }> }).details.map(
        (d) => d.code,
      ),
    ).toEqual(['unsupported_operator', 'unsupported_filter']);
    await expect(ctx.client.webhooks.update(99_999, { isActive: true })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(ctx.client.subscriptions.list(99_999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      ctx.client.subscriptions.update(webhookId, 99_999, { isActive: true }),
    ).rejects.toBeInstanceOf(NotFoundError);
    const noUrl = await raw(ctx.sandbox, 'POST', '/webhooks', { json: { url: 'ftp://example.com' } });
    expect(noUrl).toMatchObject({ status: 422, body: { details: [{ path: 'url' }] } });
  });

  it('records a failed delivery when the receiver answers non-2xx or cannot be reached', async () => {
    status = 503;
    const webhookId = await hook('/failing');
    await ctx.client.subscriptions.create(webhookId, { webhookEvent: 'New Event' });
    const { webhookId: deadId } = ctx.sandbox.createWebhook({ url: 'http://127.0.0.1:9/closed-port' });
    await ctx.client.subscriptions.create(deadId, { webhookEvent: 'New Event' });
    await newIncidentWithEvents('Other');
    const failed = ctx.sandbox.deliveries.filter((d) => d.webhookId === webhookId || d.webhookId === deadId);
    expect(failed.map((d) => d.status)).toEqual(['failed', 'failed']);
    expect(failed[0]).toMatchObject({ responseStatus: 503, error: 'the receiver answered 503' });
    expect(failed[1]?.error).toBeTruthy();
    // The dead webhook must not disturb the other tests.
    await ctx.client.webhooks.update(deadId, { isActive: false });
  });

  it('createWebhook() checks its input', () => {
    expect(() => ctx.sandbox.createWebhook({ url: 'not a url' })).toThrow(/url/);
  });
});
