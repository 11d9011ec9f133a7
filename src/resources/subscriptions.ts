import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
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
  create(
    webhookId: NumericId,
    body: SubscriptionCreate,
    options?: CallOptions,
  ): ClaimsPromise<SubscriptionCreated> {
    return claimsPromise((sink) => this.#create(webhookId, body, options, sink));
  }

  async #create(
    webhookId: NumericId,
    body: SubscriptionCreate,
    options: CallOptions | undefined,
    sink: ResponseSink,
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
      sink,
    );
  }

  /** Lists a webhook's subscriptions: GET `/webhooks/{webhookId}/subscriptions`. */
  list(webhookId: NumericId, options?: CallOptions): ClaimsPromise<Subscription[]> {
    return claimsPromise((sink) => this.#list(webhookId, options, sink));
  }

  async #list(
    webhookId: NumericId,
    options: CallOptions | undefined,
    sink: ResponseSink,
  ): Promise<Subscription[]> {
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
      sink,
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
  ): ClaimsPromise<void> {
    return claimsPromise((sink) => this.#update(webhookId, subscriptionId, patch, options, sink));
  }

  async #update(
    webhookId: NumericId,
    subscriptionId: NumericId,
    patch: SubscriptionPatch,
    options: CallOptions | undefined,
    sink: ResponseSink,
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
      sink,
    );
  }
}
