import type { WebhookVerifyOptions } from '../internal/webhook-delivery.js';
import type { DeliveryStore } from './delivery-store.js';

/** How a receiver runs each delivery's handler at most once. */
export interface DeduplicateOptions<T = unknown> {
  /**
   * The delivery's identity, from its payload: copies of one delivery give the same key,
   * different deliveries different keys, e.g. `(payload) => payload.deliveryId` for the
   * sandbox's payload. A non-empty string; a throw or anything else is answered 500.
   */
  key: (payload: T) => string;
  /**
   * Where keys are kept.
   * @default a `MemoryDeliveryStore` of this receiver (one process)
   */
  store?: DeliveryStore;
  /**
   * How long a key stays held while its handler runs, in milliseconds: if the process dies
   * mid-handler, a copy arriving after this is processed. Longer than your slowest handler.
   * @default 300000 (5 minutes)
   */
  leaseMs?: number;
}

/** Options of every receiver of `claims-notification-sdk/webhooks`. */
export interface WebhookReceiverOptions<T = unknown> extends WebhookVerifyOptions<T> {
  /**
   * Largest body read, in bytes; a bigger one (by its `Content-Length`, or as it arrives) is
   * answered 413 and no more of it is kept.
   * @default 1048576 (1 MiB)
   */
  maxBodyBytes?: number;
  /** Runs the handler once per delivery key; without it every copy runs the handler. */
  deduplicate?: DeduplicateOptions<T>;
  /**
   * Told of every failure answered 500 (the handler threw, a body parser got the body first,
   * the store failed), with the error, and of store failures after a 200. Never throws back.
   * @default logs with `console.error`
   */
  onError?: (error: unknown) => void;
}

/** What the handler gets beside the payload. */
export interface DeliveryContext {
  /**
   * The delivery's request headers, without the webhook's secret header (already checked,
   * and kept out of your logs).
   */
  headers: Headers;
  /** The delivery's `deduplicate.key`, when deduplicating. */
  key: string | undefined;
}

/**
 * Your handler of one verified delivery. The receiver answers 200 once it resolves, and 500
 * when it throws (then a deduplicated delivery's key is released, so a copy runs it again).
 */
export type OnDelivery<T = unknown> = (payload: T, context: DeliveryContext) => unknown;
