import { randomUUID } from 'node:crypto';
import { errorMessage } from '../../internal/error-message.js';
import { VERSION } from '../../version.js';
import type { NewEventDelivery } from './delivery-payload.js';
import type { SandboxEvent } from './incidents.js';
import type { OutboundFetch } from './outbound.js';
import type { PendingWork } from './pending.js';
import { NEW_EVENT, type SandboxSubscription, type SandboxWebhook } from './webhooks.js';

/** One delivery attempt to a webhook url, as the test can read it from `sandbox.deliveries`. */
export interface SandboxDelivery {
  /** The delivery's own id (a UUID), also sent in the payload as `deliveryId`. */
  deliveryId: string;
  /** The webhook delivered to, as `sandbox.createWebhook` returned it. */
  webhookId: number;
  /** The subscription whose filters matched (its `webhookSubscriptionId`). */
  subscriptionId: number;
  /** The webhook's `url` the POST went to. */
  url: string;
  /** The headers sent, the webhook's extra header included. */
  headers: Record<string, string>;
  /** The JSON body POSTed: the `New Event` and the event it is about. */
  payload: NewEventDelivery;
  /** `pending` until the receiver answers; `delivered` for a 2xx answer, else `failed`. */
  status: 'pending' | 'delivered' | 'failed';
  /** The receiver's status code, when it answered. */
  responseStatus?: number;
  /** Why the delivery failed, when it got no answer or a non-2xx one. */
  error?: string;
}

/**
 * Sends `New Event` deliveries: one POST per matching subscription, in the background, one
 * attempt each (the spec says nothing about retries), bounded by a timeout.
 */
export class Deliverer {
  readonly log: SandboxDelivery[] = [];

  constructor(
    private readonly fetch: OutboundFetch,
    private readonly pending: PendingWork,
    private readonly timeoutMs: number,
  ) {}

  newEvent(
    event: SandboxEvent,
    targets: Array<{ webhook: SandboxWebhook; subscription: SandboxSubscription }>,
  ): void {
    for (const { webhook, subscription } of targets) {
      const deliveryId = randomUUID();
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': `claims-sandbox/${VERSION}`,
      };
      if (webhook.headerName) headers[webhook.headerName.toLowerCase()] = webhook.headerValue ?? '';
      const delivery: SandboxDelivery = {
        deliveryId,
        webhookId: webhook.webhookId,
        subscriptionId: subscription.webhookSubscriptionId,
        url: webhook.url,
        headers,
        payload: {
          webhookEvent: NEW_EVENT,
          deliveryId,
          webhookId: webhook.webhookId,
          subscriptionId: subscription.webhookSubscriptionId,
          occurredAt: new Date().toISOString(),
          data: {
            incidentId: event.incidentId,
            eventId: event.eventId,
            eventType: event.eventType,
            category: event.category,
            detail: event.detail,
            createdAt: event.createdAt,
            attachments: event.attachments.map((a) => ({ ...a })),
          },
        },
        status: 'pending',
      };
      this.log.push(delivery);
      this.pending.track(this.#send(delivery));
    }
  }

  async #send(delivery: SandboxDelivery): Promise<void> {
    try {
      const response = await this.fetch(delivery.url, {
        method: 'POST',
        headers: delivery.headers,
        body: JSON.stringify(delivery.payload),
        redirect: 'manual',
        signal: AbortSignal.any([this.pending.signal, AbortSignal.timeout(this.timeoutMs)]),
      });
      delivery.responseStatus = response.status;
      await response.arrayBuffer().catch(() => undefined);
      const ok = response.status >= 200 && response.status <= 299;
      delivery.status = ok ? 'delivered' : 'failed';
      if (!ok) delivery.error = `the receiver answered ${response.status}`;
    } catch (error) {
      delivery.status = 'failed';
      const cause = error instanceof Error ? (error.cause as Error | undefined) : undefined;
      delivery.error = cause?.message ?? errorMessage(error);
    }
  }
}
