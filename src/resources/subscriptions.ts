import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import { onFirstUse } from '../internal/on-first-use.js';
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
import type { DesiredSubscriptions } from './desired-subscriptions.js';
import { type BodyCallOptions, withExtraBody } from './extra-body.js';
import { Resource } from './resource.js';
import type { AppliedChange, SubscriptionApplyResult } from './subscription-apply.js';
import type { SubscriptionPlan } from './subscription-plan.js';
import { Webhooks } from './webhooks.js';

/** Options of `subscriptions.plan`: the call options of its one list call, and: */
export interface SubscriptionPlanOptions extends CallOptions {
  /** Also disable active subscriptions without a name (by default they are left alone). @default false */
  includeUnnamed?: boolean;
}

/** Options of `subscriptions.apply`: the call options of each of its calls, and: */
export interface SubscriptionApplyOptions extends CallOptions {
  /** Told of each change once it is made (e.g. to print progress). */
  onChange?: (change: AppliedChange) => void;
}

/** The planning code of `plan` and `apply`, loaded on first use (see subscriptions-as-code.ts). */
const loadPlanning = onFirstUse(() => import('./subscriptions-as-code.js'));

/** Webhook subscriptions (`client.subscriptions`): `create`, `list`, `update`, and `plan` / `apply`. */
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

  /**
   * Plans what makes the webhook's subscriptions match `desired` (subscriptions as code):
   * live subscriptions are matched by `name`; a missing one is created, one that differs is
   * updated (only the fields that differ; filters compared as sets), and an active one whose
   * name is not desired is disabled (the API has no delete). Subscriptions without a name are
   * left alone unless `includeUnnamed`. Sends nothing but one list call.
   *
   * @example
   * const plan = await client.subscriptions.plan(12, [
   *   { name: 'final-reports', webhookEvent: 'New Event', filters: { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] } },
   * ]);
   * if (plan.changes.length > 0) await client.subscriptions.apply(plan);
   * @param desired the subscriptions as they should be, or `{ webhook?, subscriptions }`.
   * @throws ClaimsValidationError for a bad `desired` (every problem named); nothing was sent.
   * @throws SubscriptionPlanError (`duplicate_names`) when two live subscriptions share a name.
   */
  async plan(
    webhookId: NumericId,
    desired: DesiredSubscriptions,
    options?: SubscriptionPlanOptions,
  ): Promise<SubscriptionPlan> {
    const { includeUnnamed, ...call } = options ?? {};
    const [s, { checkDesired, fingerprintOf, planSubscriptions }] = await Promise.all([
      schemas(),
      loadPlanning(),
    ]);
    parseInput([['webhookId', s.NumericId, webhookId]]);
    const checked = checkDesired(desired, {
      subscription: s.SubscriptionCreateSchema,
      webhook: s.WebhookPatchSchema,
    });
    const live = await this.list(webhookId, call);
    const fingerprint = await fingerprintOf(live);
    return planSubscriptions({ webhookId, desired: checked, live, fingerprint, includeUnnamed });
  }

  /**
   * Carries out a plan from {@link Subscriptions.plan} (also one saved as JSON and read back): refuses it
   * when the live subscriptions changed since it was made, sets the webhook's own settings
   * when the plan has them (the API cannot read them back), then creates, updates and
   * disables. A plan that changed anything is stale once applied: a second `apply` of it is
   * refused; plan again (which then finds nothing to do).
   * @throws SubscriptionPlanError (`stale_plan`) when the live subscriptions changed.
   * @throws the failing call's error at the first failure; the changes before it are made.
   */
  async apply(plan: SubscriptionPlan, options?: SubscriptionApplyOptions): Promise<SubscriptionApplyResult> {
    const { onChange, ...call } = options ?? {};
    const webhooks = new Webhooks(this.transport);
    const { applyPlan } = await loadPlanning();
    return applyPlan(
      plan,
      {
        list: (id) => this.list(id, call),
        create: (id, body) => this.create(id, body, call),
        update: (id, subscriptionId, patch) => this.update(id, subscriptionId, patch, call),
        updateWebhook: (id, patch) => webhooks.update(id, patch, call),
      },
      onChange,
    );
  }
}
