import { path } from '../internal/path.js';
import type { NumericId } from '../schemas/common.js';
import { schemas } from '../schemas/load.js';
import type {
  Subscription,
  SubscriptionCreate,
  SubscriptionCreated,
  SubscriptionPatch,
} from '../schemas/subscriptions.js';
import type { CallOptions } from '../transport.js';
import { Resource } from './resource.js';

export class Subscriptions extends Resource {
  /** Subscribes a webhook to an event: POST `/webhooks/{webhookId}/subscriptions`. */
  async create(
    webhookId: NumericId,
    body: SubscriptionCreate,
    options?: CallOptions,
  ): Promise<SubscriptionCreated> {
    const s = await schemas();
    return this.transport.request(
      {
        method: 'POST',
        path: path`/webhooks/${webhookId}/subscriptions`,
        route: '/webhooks/{webhookId}/subscriptions',
        params: { webhookId: [s.NumericId, webhookId] },
        body,
        bodySchema: s.SubscriptionCreateSchema,
        responseSchema: s.SubscriptionCreatedSchema,
      },
      options,
    );
  }

  /** Lists a webhook's subscriptions: GET `/webhooks/{webhookId}/subscriptions`. */
  async list(webhookId: NumericId, options?: CallOptions): Promise<Subscription[]> {
    const s = await schemas();
    return this.transport.request(
      {
        method: 'GET',
        path: path`/webhooks/${webhookId}/subscriptions`,
        route: '/webhooks/{webhookId}/subscriptions',
        params: { webhookId: [s.NumericId, webhookId] },
        responseSchema: s.SubscriptionListSchema,
      },
      options,
    );
  }

  /**
   * Updates a subscription: PATCH `/webhooks/{webhookId}/subscriptions/{subscriptionId}`.
   * Only the fields given change.
   */
  async update(
    webhookId: NumericId,
    subscriptionId: NumericId,
    patch: SubscriptionPatch,
    options?: CallOptions,
  ): Promise<void> {
    const s = await schemas();
    return this.transport.request<void>(
      {
        method: 'PATCH',
        path: path`/webhooks/${webhookId}/subscriptions/${subscriptionId}`,
        route: '/webhooks/{webhookId}/subscriptions/{subscriptionId}',
        params: { webhookId: [s.NumericId, webhookId], subscriptionId: [s.NumericId, subscriptionId] },
        body: patch,
        bodySchema: s.SubscriptionPatchSchema,
        responseBody: 'none',
      },
      options,
    );
  }
}
