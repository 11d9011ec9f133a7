import { z } from 'zod';
import type { FilterField, FilterOperator, WebhookEvent } from '../constants.js';
import { NonEmptyString, ReturnedNumericId } from './common.js';
import { documentedKeys, nearTypoCheck } from './near-typos.js';

/**
 * One filter condition (spec 2.8): a delivery happens only when the event's field `name`
 * compares true with `value`.
 *
 * @example
 * const condition: FilterCondition = { name: 'category', operator: 'equals', value: 'Report: Final' };
 */
export interface FilterCondition {
  /** The event field to test: `'eventType'` or `'category'` (documented, `FilterFields`), or another string. */
  name: FilterField;
  /** How to compare: `'equals'` (documented, `FilterOperators`; exact and case-sensitive), or another string. */
  operator: FilterOperator;
  /** The value to compare with, e.g. `'Report: Final'`. */
  value: string;
}

/** The filters of a subscription: every condition must hold for a delivery. */
export interface SubscriptionFilters {
  /** The conditions, all of which must hold. */
  fields: readonly FilterCondition[];
}

export const FilterConditionSchema = z.looseObject({
  name: NonEmptyString,
  operator: NonEmptyString,
  value: z.string(),
});

export const SubscriptionFiltersSchema = z.looseObject({ fields: z.array(FilterConditionSchema) });

/**
 * The body of `subscriptions.create` (spec 4.7). Fields the SDK does not document: see the
 * `extraBody` call option.
 *
 * @example
 * const body: SubscriptionCreate = {
 *   name: 'final-reports',
 *   webhookEvent: 'New Event',
 *   filters: { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] },
 * };
 */
export interface SubscriptionCreate {
  /** A name to recognise the subscription by, e.g. `'final-reports'`. */
  name?: string;
  /** The event to deliver: `'New Event'` (documented, `WebhookEvents`) or another non-empty string. */
  webhookEvent: WebhookEvent;
  /** Whether deliveries are made; `false` pauses the subscription. @default true (the server's default) */
  isActive?: boolean;
  /** Conditions on the event; without them every event of `webhookEvent` is delivered. */
  filters?: SubscriptionFilters;
}

/**
 * A partial update of a subscription (spec 4.9): only the fields given change; at least one
 * must be given.
 *
 * @example
 * await client.subscriptions.update(12, 34, { isActive: false });
 */
export interface SubscriptionPatch {
  /** A new name. */
  name?: string;
  /** A new event to deliver: `'New Event'` (documented) or another non-empty string. */
  webhookEvent?: WebhookEvent;
  /** `false` pauses deliveries, `true` resumes them. */
  isActive?: boolean;
  /** New conditions, replacing the old ones. */
  filters?: SubscriptionFilters;
}

/** The documented keys of {@link SubscriptionCreate}. */
export const SUBSCRIPTION_CREATE_KEYS = documentedKeys<SubscriptionCreate>({
  name: true,
  webhookEvent: true,
  isActive: true,
  filters: true,
});
/** The documented keys of {@link SubscriptionPatch}. */
export const SUBSCRIPTION_PATCH_KEYS = documentedKeys<SubscriptionPatch>({
  name: true,
  webhookEvent: true,
  isActive: true,
  filters: true,
});

export const SubscriptionCreateSchema = z
  .looseObject({
    name: z.string().optional(),
    webhookEvent: NonEmptyString,
    isActive: z.boolean().optional(),
    filters: SubscriptionFiltersSchema.optional(),
  })
  .check(nearTypoCheck(SUBSCRIPTION_CREATE_KEYS));

export const SubscriptionPatchSchema = z
  .looseObject({
    name: z.string().optional(),
    webhookEvent: NonEmptyString.optional(),
    isActive: z.boolean().optional(),
    filters: SubscriptionFiltersSchema.optional(),
  })
  .check(nearTypoCheck(SUBSCRIPTION_PATCH_KEYS))
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), {
    message: 'is empty: give at least one of name, webhookEvent, isActive, filters',
  });

/**
 * The answer to `subscriptions.create`. `subscriptionId` is a `number`, or the `string` of its
 * exact digits when it is past 2^53 (see {@link NumericId}).
 */
export const SubscriptionCreatedSchema = z.looseObject({ subscriptionId: ReturnedNumericId });
/** What `subscriptions.create` resolves to: the new subscription's id, plus any other field sent. */
export type SubscriptionCreated = z.infer<typeof SubscriptionCreatedSchema>;

/**
 * A subscription as listed (spec 2.8). Its ids are `number`s, or `string`s of their exact
 * digits when past 2^53 (see {@link NumericId}).
 */
export const SubscriptionSchema = z.looseObject({
  webhookSubscriptionId: ReturnedNumericId,
  webhookId: ReturnedNumericId,
  name: z.string().nullable().optional(),
  webhookEvent: z.string() as z.ZodType<WebhookEvent, string>,
  isActive: z.boolean(),
  filters: SubscriptionFiltersSchema.nullable().optional(),
});
/**
 * A subscription as `subscriptions.list` gives it: `webhookSubscriptionId`, `webhookId`,
 * `name`, `webhookEvent`, its own `isActive` and `filters`, plus any other field sent.
 */
export type Subscription = z.infer<typeof SubscriptionSchema>;

export const SubscriptionListSchema = z.array(SubscriptionSchema);
