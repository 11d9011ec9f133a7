import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import { parseInput } from '../internal/parse-input.js';
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
import { type BodyCallOptions, withExtraBody } from './extra-body.js';
import { Resource } from './resource.js';

/** Webhook subscriptions (`client.subscriptions`): `create`, `list`, `update`. */
export class Subscriptions extends Resource {
  /**
   * Subscribes a webhook to an event: POST `/webhooks/{webhookId}/subscriptions`. Fields the
   * SDK does not document go in `options.extraBody`.
   *
   * @example
   * const { subscriptionId } = await client.subscriptions.create(12, {
   *   webhookEvent: 'New Event',
   *   filters: { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] },
   * });
   * @param webhookId the webhook's numeric id (a string of digits is accepted too).
   * @returns `{ subscriptionId, ...any other field the server sent }`.
   * @throws ClaimsValidationError listing every problem; then nothing was sent.
   */
  create(
    webhookId: NumericId,
    body: SubscriptionCreate,
    options?: BodyCallOptions,
  ): ClaimsPromise<SubscriptionCreated> {
    return claimsPromise((sink) => this.#create(webhookId, body, options, sink));
  }

  async #create(
    webhookId: NumericId,
    body: SubscriptionCreate,
    options: BodyCallOptions | undefined,
    sink: ResponseSink,
  ): Promise<SubscriptionCreated> {
    const s = await schemas();
    const [, parsed] = parseInput<SubscriptionCreate>([
      ['webhookId', s.NumericId, webhookId],
      ['', s.SubscriptionCreateSchema, body],
      ['extraBody', s.extraBodySchema(s.SUBSCRIPTION_CREATE_KEYS), options?.extraBody],
    ]);
    return this.transport.request(
      {
        method: 'POST',
        path: path`/webhooks/${webhookId}/subscriptions`,
        route: '/webhooks/{webhookId}/subscriptions',
        body: withExtraBody(parsed as SubscriptionCreate, options?.extraBody),
        responseSchema: s.SubscriptionCreatedSchema,
      },
      options,
      sink,
    );
  }

  /**
   * Lists a webhook's subscriptions: GET `/webhooks/{webhookId}/subscriptions`.
   *
   * @example
   * for (const sub of await client.subscriptions.list(12)) console.log(sub.webhookSubscriptionId, sub.isActive);
   * @param webhookId the webhook's numeric id (a string of digits is accepted too).
   * @returns every subscription of the webhook, each with its own `isActive`.
   */
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
   * Only the fields given change. Fields the SDK does not document go in `options.extraBody`.
   *
   * @example
   * await client.subscriptions.update(12, 34, { isActive: false });
   * @returns `undefined` once the server accepted the change (its answer's body is ignored).
   * @throws ClaimsValidationError for an empty or invalid patch; then nothing was sent.
   */
  update(
    webhookId: NumericId,
    subscriptionId: NumericId,
    patch: SubscriptionPatch,
    options?: BodyCallOptions,
  ): ClaimsPromise<void> {
    return claimsPromise((sink) => this.#update(webhookId, subscriptionId, patch, options, sink));
  }

  async #update(
    webhookId: NumericId,
    subscriptionId: NumericId,
    patch: SubscriptionPatch,
    options: BodyCallOptions | undefined,
    sink: ResponseSink,
  ): Promise<void> {
    const s = await schemas();
    const [, , parsed] = parseInput<SubscriptionPatch>([
      ['webhookId', s.NumericId, webhookId],
      ['subscriptionId', s.NumericId, subscriptionId],
      ['', s.SubscriptionPatchSchema, patch],
      ['extraBody', s.extraBodySchema(s.SUBSCRIPTION_PATCH_KEYS), options?.extraBody],
    ]);
    return this.transport.request<void>(
      {
        method: 'PATCH',
        path: path`/webhooks/${webhookId}/subscriptions/${subscriptionId}`,
        route: '/webhooks/{webhookId}/subscriptions/{subscriptionId}',
        body: withExtraBody(parsed as SubscriptionPatch, options?.extraBody),
        responseBody: 'none',
      },
      options,
      sink,
    );
  }
}
