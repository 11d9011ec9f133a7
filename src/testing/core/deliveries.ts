import { randomUUID } from 'node:crypto';
import { VERSION } from '../../version.js';
import type { Changes } from './changes.js';
import type { NewEventDelivery } from './delivery-payload.js';
import { SandboxHttpError } from './http.js';
import type { SandboxEvent } from './incidents.js';
import { OutboundError, type OutboundFetch, type OutboundResponse, sendOutbound } from './outbound.js';
import type { PendingWork } from './pending.js';
import type { TargetGuard } from './target-guard.js';
import { NEW_EVENT, type SandboxSubscription, type SandboxWebhook } from './webhooks.js';

/** How much of a receiver's answer is kept, in bytes. */
const MAX_ANSWER_BYTES = 4_096;

/** One delivery attempt to a webhook url, as the test can read it from `sandbox.deliveries`. */
export interface SandboxDelivery {
  /** The delivery's own id (a UUID), also sent in the payload as `deliveryId`; the same for every attempt. */
  deliveryId: string;
  /** 1 for the first attempt; 2, 3… for each redelivery (`sandbox.redeliver(deliveryId)`). */
  attempt: number;
  /** When the attempt was sent: an ISO 8601 UTC timestamp. */
  at: string;
  /** The webhook delivered to, as `sandbox.createWebhook` returned it. */
  webhookId: number;
  /** The subscription whose filters matched (its `webhookSubscriptionId`). */
  subscriptionId: number;
  /** The webhook's `url` the POST went to. */
  url: string;
  /** The headers sent, the webhook's extra header included. */
  headers: Record<string, string>;
  /** The JSON body POSTed: the `New Event` and the event it is about (the same for every attempt). */
  payload: NewEventDelivery;
  /** `pending` until the receiver answers; `delivered` for a 2xx answer, else `failed`. */
  status: 'pending' | 'delivered' | 'failed';
  /** The receiver's status code, when it answered. */
  responseStatus?: number;
  /** The start of the receiver's answer (at most 4,096 bytes, as UTF-8 text), when it answered. */
  responseBody?: string;
  /** Why the delivery failed, when it got no answer or a non-2xx one. */
  error?: string;
}

/**
 * Sends `New Event` deliveries: one POST per matching subscription, in the background, one
 * attempt each (the spec says nothing about retries), bounded by a timeout; more attempts on
 * demand ({@link redeliver}). Keeps the newest `maxDeliveries` attempts.
 */
export class Deliverer {
  #log: SandboxDelivery[] = [];
  /** Attempts dropped to keep within the limit. */
  dropped = 0;

  constructor(
    private readonly fetch: OutboundFetch,
    private readonly guard: TargetGuard,
    private readonly pending: () => PendingWork,
    private readonly timeoutMs: number,
    private readonly maxDeliveries: number,
    private readonly changes: Changes,
  ) {}

  /** Every attempt kept, oldest first. */
  get log(): readonly SandboxDelivery[] {
    return this.#log;
  }

  /** The attempts of one delivery, oldest first (`[]` when none is kept). */
  attempts(deliveryId: string): SandboxDelivery[] {
    return this.#log.filter((d) => d.deliveryId === deliveryId);
  }

  /** Forgets every attempt (`sandbox.reset()`). */
  clear(): void {
    this.#log = [];
    this.dropped = 0;
  }

  newEvent(
    event: SandboxEvent,
    targets: Array<{ webhook: SandboxWebhook; subscription: SandboxSubscription }>,
  ): void {
    for (const { webhook, subscription } of targets) {
      const deliveryId = randomUUID();
      const payload: NewEventDelivery = {
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
      };
      this.pending().track(
        this.#send(this.#attempt(webhook, subscription.webhookSubscriptionId, payload, 1)),
      );
    }
  }

  /**
   * Sends a delivery again, with the same payload (the same `deliveryId`), to its webhook's
   * url and header as they are now, whether or not the webhook is active. Resolves once the
   * receiver answered (or the attempt failed).
   * @throws SandboxHttpError 404 when no attempt of the delivery is kept, or its webhook is gone.
   */
  async redeliver(
    deliveryId: string,
    webhook: (webhookId: number) => SandboxWebhook | undefined,
  ): Promise<SandboxDelivery> {
    const previous = this.#log.findLast((d) => d.deliveryId === deliveryId);
    if (!previous) throw new SandboxHttpError(404, 'not_found', `No delivery "${deliveryId}"`);
    const target = webhook(previous.webhookId);
    if (!target)
      throw new SandboxHttpError(404, 'not_found', `The webhook of delivery "${deliveryId}" is gone`);
    const attempt = Math.max(...this.attempts(deliveryId).map((d) => d.attempt)) + 1;
    const record = this.#attempt(target, previous.subscriptionId, structuredClone(previous.payload), attempt);
    const sent = this.#send(record);
    this.pending().track(sent);
    await sent;
    return record;
  }

  #attempt(
    webhook: SandboxWebhook,
    subscriptionId: number,
    payload: NewEventDelivery,
    attempt: number,
  ): SandboxDelivery {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `claims-sandbox/${VERSION}`,
    };
    if (webhook.headerName) headers[webhook.headerName.toLowerCase()] = webhook.headerValue ?? '';
    const record: SandboxDelivery = {
      deliveryId: payload.deliveryId,
      attempt,
      at: new Date().toISOString(),
      webhookId: webhook.webhookId,
      subscriptionId,
      url: webhook.url,
      headers,
      payload,
      status: 'pending',
    };
    this.#log.push(record);
    const excess = this.#log.length - this.maxDeliveries;
    if (excess > 0) {
      this.#log.splice(0, excess);
      this.dropped += excess;
    }
    this.changes.emit({ kind: 'delivery', id: record.deliveryId });
    return record;
  }

  async #send(delivery: SandboxDelivery): Promise<void> {
    try {
      const response = await sendOutbound(
        this.fetch,
        this.guard,
        delivery.url,
        {
          method: 'POST',
          headers: delivery.headers,
          body: JSON.stringify(delivery.payload),
          signal: AbortSignal.any([this.pending().signal, AbortSignal.timeout(this.timeoutMs)]),
        },
        false,
      );
      delivery.responseStatus = response.status;
      delivery.responseBody = await answerText(response);
      const ok = response.status >= 200 && response.status <= 299;
      delivery.status = ok ? 'delivered' : 'failed';
      if (!ok) delivery.error = `the receiver answered ${response.status}`;
    } catch (error) {
      delivery.status = 'failed';
      delivery.error = `the receiver could not be reached: ${error instanceof OutboundError ? error.message : 'no answer'}`;
    }
    this.changes.emit({ kind: 'delivery', id: delivery.deliveryId });
  }
}

/** The start of an answer's body as text; the rest is not read. */
async function answerText(response: OutboundResponse): Promise<string> {
  const reader = response.body?.getReader?.();
  if (!reader) {
    const whole = await response.arrayBuffer().catch(() => new ArrayBuffer(0));
    return Buffer.from(whole).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value === undefined) continue;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // An answer cut short: what arrived is kept.
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}
