/**
 * `claims-notification-sdk/webhooks`: receivers of the claims system's deliveries for each
 * framework, thin adapters over one receive path (header check, bounded raw body, JSON and
 * schema, once-only handling). Importing it loads no framework, and nothing of Node: it runs
 * on workerd, Deno, Bun and Vercel Edge too.
 */

export type { WebhookHeaders, WebhookVerifyOptions } from '../internal/webhook-delivery.js';
export type { DeliveryStore } from './delivery-store.js';
export {
  type FastifyInstanceLike,
  type FastifyReplyLike,
  type FastifyWebhooksOptions,
  fastifyWebhooks,
} from './fastify.js';
export { generateHeaderValue } from './header-value.js';
export { createLambdaHandler, type LambdaHttpEvent, type LambdaHttpResult } from './lambda.js';
export { MemoryDeliveryStore, type MemoryDeliveryStoreOptions } from './memory-store.js';
export { createNodeMiddleware, type NodeRequestLike, type NodeResponseLike } from './node.js';
export type { DeduplicateOptions, DeliveryContext, OnDelivery, WebhookReceiverOptions } from './options.js';
export { createWebMiddleware } from './web.js';
