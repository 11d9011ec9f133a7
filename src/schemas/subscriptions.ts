import { z } from 'zod';
import type { OpenString, WebhookEvent } from '../constants.js';
import { NonEmptyString, ReturnedNumericId } from './common.js';

/** One filter condition (spec 2.8). */
export const FilterConditionSchema = z.looseObject({
  name: NonEmptyString as z.ZodType<OpenString<'eventType' | 'category'>, string>,
  operator: NonEmptyString as z.ZodType<OpenString<'equals'>, string>,
  value: z.string(),
});
export type FilterCondition = z.infer<typeof FilterConditionSchema>;

export const SubscriptionFiltersSchema = z.looseObject({ fields: z.array(FilterConditionSchema) });
export type SubscriptionFilters = z.infer<typeof SubscriptionFiltersSchema>;

/** The body of `subscriptions.create` (spec 4.7). */
export const SubscriptionCreateSchema = z.looseObject({
  name: z.string().optional(),
  webhookEvent: NonEmptyString as z.ZodType<WebhookEvent, string>,
  isActive: z.boolean().optional(),
  filters: SubscriptionFiltersSchema.optional(),
});
export type SubscriptionCreate = z.input<typeof SubscriptionCreateSchema>;

/** A partial update of a subscription (spec 4.9); only the fields given change. */
export const SubscriptionPatchSchema = z
  .looseObject({
    name: z.string().optional(),
    webhookEvent: (NonEmptyString as z.ZodType<WebhookEvent, string>).optional(),
    isActive: z.boolean().optional(),
    filters: SubscriptionFiltersSchema.optional(),
  })
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), {
    message: 'is empty: give at least one of name, webhookEvent, isActive, filters',
  });
export type SubscriptionPatch = z.input<typeof SubscriptionPatchSchema>;

/**
 * The answer to `subscriptions.create`. `subscriptionId` is a `number`, or the `string` of its
 * exact digits when it is past 2^53 (see {@link NumericId}).
 */
export const SubscriptionCreatedSchema = z.looseObject({ subscriptionId: ReturnedNumericId });
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
export type Subscription = z.infer<typeof SubscriptionSchema>;

export const SubscriptionListSchema = z.array(SubscriptionSchema);
