import { path } from '../internal/path.js';
import { NumericId } from '../schemas/common.js';
import {
  type Subscription,
  type SubscriptionCreate,
  type SubscriptionCreated,
  SubscriptionCreatedSchema,
  SubscriptionCreateSchema,
  SubscriptionListSchema,
  type SubscriptionPatch,
  SubscriptionPatchSchema,
} from '../schemas/subscriptions.js';
import type { CallOptions } from '../transport.js';
import { Resource } from './resource.js';

export class Subscriptions extends Resource {
  /** Subscribes a webhook to an event: POST `/webhooks/{webhookId}/subscriptions`. */
  create(
    webhookId: NumericId,
    body: SubscriptionCreate,
    options?: CallOptions,
  ): Promise<SubscriptionCreated> {
    return this.transport.request(
      {
        method: 'POST',
        path: path`/webhooks/${webhookId}/subscriptions`,
        params: { webhookId: [NumericId, webhookId] },
        body,
        bodySchema: SubscriptionCreateSchema,
        responseSchema: SubscriptionCreatedSchema,
      },
      options,
    );
  }

  /** Lists a webhook's subscriptions: GET `/webhooks/{webhookId}/subscriptions`. */
  list(webhookId: NumericId, options?: CallOptions): Promise<Subscription[]> {
    return this.transport.request(
      {
        method: 'GET',
        path: path`/webhooks/${webhookId}/subscriptions`,
        params: { webhookId: [NumericId, webhookId] },
        responseSchema: SubscriptionListSchema,
      },
      options,
    );
  }

  /**
   * Updates a subscription: PATCH `/webhooks/{webhookId}/subscriptions/{subscriptionId}`.
   * Only the fields given change.
   */
  update(
    webhookId: NumericId,
    subscriptionId: NumericId,
    patch: SubscriptionPatch,
    options?: CallOptions,
  ): Promise<void> {
    return this.transport.request<void>(
      {
        method: 'PATCH',
        path: path`/webhooks/${webhookId}/subscriptions/${subscriptionId}`,
        params: { webhookId: [NumericId, webhookId], subscriptionId: [NumericId, subscriptionId] },
        body: patch,
        bodySchema: SubscriptionPatchSchema,
        responseBody: 'none',
      },
      options,
    );
  }
}
