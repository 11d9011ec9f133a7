import { describe, expect, it } from 'vitest';
import {
  ClaimsResponseValidationError,
  ClaimsValidationError,
  FilterFields,
  FilterOperators,
  WebhookEvents,
} from '../../src/index.js';
import { TOKEN, useMockApi } from '../helpers/msw.js';
import { routeNamingClient } from '../helpers/route-names.js';

const api = useMockApi();

const filters = {
  fields: [{ name: FilterFields.Category, operator: FilterOperators.Equals, value: 'Report: Final' }],
};

describe('subscriptions', () => {
  it('create POSTs the body and returns subscriptionId', async () => {
    api.reply(() => ({ status: 201, json: { subscriptionId: 55, createdAt: '2026-11-21' } }));
    const result = await api.client().subscriptions.create(7, {
      name: 'final-reports',
      webhookEvent: WebhookEvents.NewEvent,
      filters,
    });
    expect(result).toEqual({ subscriptionId: 55, createdAt: '2026-11-21' });
    expect(api.seen[0]).toMatchObject({
      method: 'POST',
      path: '/webhooks/7/subscriptions',
      body: { name: 'final-reports', webhookEvent: 'New Event', filters },
    });
    expect(api.seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('list GETs the subscriptions with unknown fields preserved', async () => {
    const listed = [
      {
        webhookSubscriptionId: 55,
        webhookId: 7,
        name: 'final-reports',
        webhookEvent: 'New Event',
        isActive: true,
        filters,
        lastDeliveredAt: null,
      },
    ];
    api.reply(() => ({ json: listed }));
    await expect(api.client().subscriptions.list(7)).resolves.toEqual(listed);
    expect(api.seen[0]).toMatchObject({ method: 'GET', path: '/webhooks/7/subscriptions', body: undefined });
    expect(api.seen[0]?.headers['content-type']).toBeUndefined();
  });

  it('list rejects an answer that is not a list of subscriptions', async () => {
    api.reply(() => ({ json: [{ webhookSubscriptionId: 'x' }] }));
    await expect(api.client().subscriptions.list(7)).rejects.toBeInstanceOf(ClaimsResponseValidationError);
  });

  it('update PATCHes /webhooks/{webhookId}/subscriptions/{subscriptionId} with only the given fields', async () => {
    api.reply(() => ({ status: 200 }));
    await expect(api.client().subscriptions.update(7, 55, { isActive: false })).resolves.toBeUndefined();
    expect(api.seen[0]).toMatchObject({
      method: 'PATCH',
      path: '/webhooks/7/subscriptions/55',
      body: { isActive: false },
    });
  });
});

describe('subscriptions: what is refused before sending, and what an update answers', () => {
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    return (error as ClaimsValidationError).issues.map((i) => i.path);
  };

  it('names the argument at fault: the webhook id, the subscription id, a documented field in extraBody', async () => {
    const c = api.client();
    const event = { webhookEvent: 'New Event' };
    expect(await refusal(c.subscriptions.create('x' as never, event))).toEqual(['webhookId']);
    expect(await refusal(c.subscriptions.create(7, event, { extraBody: { webhookEvent: 'x' } }))).toEqual([
      'extraBody.webhookEvent',
    ]);
    expect(await refusal(c.subscriptions.update('x' as never, 55, { isActive: false }))).toEqual([
      'webhookId',
    ]);
    expect(await refusal(c.subscriptions.update(7, 'y' as never, { isActive: false }))).toEqual([
      'subscriptionId',
    ]);
    expect(
      await refusal(c.subscriptions.update(7, 55, { isActive: false }, { extraBody: { isActive: true } })),
    ).toEqual(['extraBody.isActive']);
    expect(api.seen).toEqual([]);
  });

  it('plan names a bad webhook id before it reads the desired state', async () => {
    const c = api.client();
    expect(await refusal(c.subscriptions.plan(-1, [{ webhookEvent: 'New Event' } as never]))).toEqual([
      'webhookId',
    ]);
    expect(api.seen).toEqual([]);
  });

  it('update resolves to undefined whatever JSON the answer holds (its body is not handed back)', async () => {
    api.reply(() => ({ status: 200, json: { isActive: false, webhookSubscriptionId: 55 } }));
    await expect(api.client().subscriptions.update(7, 55, { isActive: false })).resolves.toBeUndefined();
  });
});

describe('subscription calls as a trace names them', () => {
  it('by their route template, not the ids', async () => {
    const { client, routes } = routeNamingClient(async (_url, init) =>
      init.method === 'POST'
        ? Response.json({ subscriptionId: 55 }, { status: 201 })
        : init.method === 'PATCH'
          ? new Response(null, { status: 204 })
          : Response.json([]),
    );
    await client.subscriptions.create(7, { webhookEvent: 'New Event' });
    await client.subscriptions.list(7);
    await client.subscriptions.update(7, 55, { isActive: false });
    expect(routes).toEqual([
      'POST /webhooks/{webhookId}/subscriptions',
      'GET /webhooks/{webhookId}/subscriptions',
      'PATCH /webhooks/{webhookId}/subscriptions/{subscriptionId}',
    ]);
  });
});
