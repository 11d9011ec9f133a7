import { json, readJson, SandboxHttpError } from '../http.js';
import {
  SubscriptionCreateBody,
  SubscriptionPatchBody,
  WebhookCreateBody,
  WebhookPatchBody,
} from '../schemas.js';
import type { RouteHandler } from './context.js';

/** A numeric id from the path, or a 400. */
function numericId(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d{1,15}$/.test(value)) {
    throw new SandboxHttpError(400, 'invalid_id', `${name} must be numeric, got "${value}"`);
  }
  return Number(value);
}

/** POST /webhooks → 201 `{ webhookId }`. A sandbox-only extension: the spec shows no create. */
export const createWebhook: RouteHandler = (req, _params, ctx) => {
  const webhook = ctx.webhooks.create(readJson(req, WebhookCreateBody));
  return json(201, { webhookId: webhook.webhookId });
};

/** PATCH /webhooks/{webhookId} → 200 with the webhook; only the fields given change. */
export const updateWebhook: RouteHandler = (req, [id], ctx) => {
  const webhookId = numericId(id, 'webhookId');
  ctx.webhooks.get(webhookId);
  return json(200, ctx.webhooks.update(webhookId, readJson(req, WebhookPatchBody)));
};

/** POST /webhooks/{webhookId}/subscriptions → 201 `{ subscriptionId }`. */
export const createSubscription: RouteHandler = (req, [id], ctx) => {
  const webhookId = numericId(id, 'webhookId');
  ctx.webhooks.get(webhookId);
  const subscription = ctx.webhooks.createSubscription(webhookId, readJson(req, SubscriptionCreateBody));
  return json(201, { subscriptionId: subscription.webhookSubscriptionId });
};

/** GET /webhooks/{webhookId}/subscriptions → 200, the subscriptions (spec 2.8 fields). */
export const listSubscriptions: RouteHandler = (_req, [id], ctx) =>
  json(200, ctx.webhooks.listSubscriptions(numericId(id, 'webhookId')));

/** PATCH /webhooks/{webhookId}/subscriptions/{subscriptionId} → 200 with the subscription. */
export const updateSubscription: RouteHandler = (req, [id, subId], ctx) => {
  const webhookId = numericId(id, 'webhookId');
  const subscriptionId = numericId(subId, 'subscriptionId');
  ctx.webhooks.get(webhookId);
  return json(
    200,
    ctx.webhooks.updateSubscription(webhookId, subscriptionId, readJson(req, SubscriptionPatchBody)),
  );
};
