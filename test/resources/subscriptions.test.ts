import { describe, expect, it } from 'vitest';
import {
  ClaimsResponseValidationError,
  FilterFields,
  FilterOperators,
  WebhookEvents,
} from '../../src/index.js';
import { TOKEN, useMockApi } from '../helpers/msw.js';

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
