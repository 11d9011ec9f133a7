import * as z from 'zod/mini';
import type { FilterField, FilterOperator, WebhookEvent } from '../constants.js';
import { NonEmptyString, type NumericId, ReturnedNumericId } from './common.js';
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
    name: z.optional(z.string()),
    webhookEvent: NonEmptyString,
    isActive: z.optional(z.boolean()),
    filters: z.optional(SubscriptionFiltersSchema),
  })
  .check(nearTypoCheck(SUBSCRIPTION_CREATE_KEYS));

export const SubscriptionPatchSchema = z
  .looseObject({
    name: z.optional(z.string()),
    webhookEvent: z.optional(NonEmptyString),
    isActive: z.optional(z.boolean()),
    filters: z.optional(SubscriptionFiltersSchema),
  })
  .check(
    nearTypoCheck(SUBSCRIPTION_PATCH_KEYS),
    z.refine((patch) => Object.values(patch).some((v) => v !== undefined), {
      message: 'is empty: give at least one of name, webhookEvent, isActive, filters',
    }),
  );

/**
 * The answer to `subscriptions.create`. `subscriptionId` is a `number`, or the `string` of its
 * exact digits when it is past 2^53 (see {@link NumericId}).
 */
export const SubscriptionCreatedSchema = z.looseObject({ subscriptionId: ReturnedNumericId });
/**
 * What `subscriptions.create` resolves to: the new subscription's id, plus any other field
 * sent. Written out (equal to the schema's type, a type test checks) because `.d.ts` files
 * drop a schema's field TSDoc.
 */
export type SubscriptionCreated = {
  /** The new subscription's id: a `number`, or its exact digits past 2^53; for `subscriptions.update`. */
  subscriptionId: NumericId;
  /** Any other field the server sent, kept as sent. */
  [key: string]: unknown;
};

/**
 * A subscription as listed (spec 2.8). Its ids are `number`s, or `string`s of their exact
 * digits when past 2^53 (see {@link NumericId}).
 */
export const SubscriptionSchema = z.looseObject({
  webhookSubscriptionId: ReturnedNumericId,
  webhookId: ReturnedNumericId,
  name: z.optional(z.nullable(z.string())),
  webhookEvent: z.string() as z.ZodMiniType<WebhookEvent, string>,
  isActive: z.boolean(),
  filters: z.optional(z.nullable(SubscriptionFiltersSchema)),
});
/**
 * A subscription as `subscriptions.list` gives it: `webhookSubscriptionId`, `webhookId`,
 * `name`, `webhookEvent`, its own `isActive` and `filters`, plus any other field sent.
 * Written out (equal to the schema's type, a type test checks) because `.d.ts` files drop a
 * schema's field TSDoc.
 */
export type Subscription = {
  /** The subscription's id (a `number`, or its exact digits past 2^53), for `subscriptions.update`. */
  webhookSubscriptionId: NumericId;
  /** The webhook it delivers to. */
  webhookId: NumericId;
  /** Its name, e.g. `'final-reports'`; `null` or absent when it has none. */
  name?: string | null | undefined;
  /** The event it is for, e.g. `'New Event'`. */
  webhookEvent: WebhookEvent;
  /** Whether the subscription is active (delivers). */
  isActive: boolean;
  /** The conditions a delivery must meet (all of them); `null` or absent when there are none. */
  filters?:
    | {
        /** The conditions, e.g. `[{ name: 'category', operator: 'equals', value: 'Report: Final' }]`. */
        fields: Array<{
          /** The field compared, e.g. `'eventType'` or `'category'`. */
          name: string;
          /** How it is compared, e.g. `'equals'`. */
          operator: string;
          /** The value compared with, e.g. `'Report: Final'`. */
          value: string;
          /** Any other field the server sent, kept as sent. */
          [key: string]: unknown;
        }>;
        /** Any other field the server sent, kept as sent. */
        [key: string]: unknown;
      }
    | null
    | undefined;
  /** Any other field the server sent, kept as sent. */
  [key: string]: unknown;
};

export const SubscriptionListSchema = z.array(SubscriptionSchema);
