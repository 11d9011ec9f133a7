import { SandboxHttpError, validationFailed } from './http.js';
import { sandboxFull } from './limits.js';
import type {
  FiltersBody,
  SubscriptionCreateBody,
  SubscriptionPatchBody,
  WebhookCreateBody,
  WebhookPatchBody,
} from './schemas.js';
import type { SandboxErrorDetail } from './types.js';

/** The one webhook event the spec documents. */
export const NEW_EVENT = 'New Event';
/** Fields of a `New Event` a filter may test, and the one operator the spec documents. */
const NEW_EVENT_FILTER_FIELDS = ['eventType', 'category'];
const EQUALS = 'equals';

/** A webhook as the sandbox holds it. */
export interface SandboxWebhook {
  webhookId: number;
  url: string;
  headerName: string | null;
  headerValue: string | null;
  isActive: boolean;
}

/** A subscription, in the shape `GET /webhooks/{id}/subscriptions` lists it (spec 2.8). */
export interface SandboxSubscription {
  webhookSubscriptionId: number;
  webhookId: number;
  name: string | null;
  webhookEvent: string;
  isActive: boolean;
  filters: FiltersBody;
}

/** Webhooks and their subscriptions, with the spec's enable/disable rules. */
export class WebhookStore {
  readonly #webhooks = new Map<number, SandboxWebhook>();
  readonly #subscriptions = new Map<number, SandboxSubscription>();
  #nextWebhookId = 1;
  #nextSubscriptionId = 1;
  /** Every header value webhooks have had (the newest 10,000): an old one is still a secret. */
  readonly #headerValues = new Set<string>();

  constructor(private readonly limits: { maxWebhooks: number; maxSubscriptions: number }) {}

  /** Forgets every webhook and subscription; ids start from 1 again (`sandbox.reset()`). */
  clear(): void {
    this.#webhooks.clear();
    this.#subscriptions.clear();
    this.#headerValues.clear();
    this.#nextWebhookId = 1;
    this.#nextSubscriptionId = 1;
  }

  /** Every webhook (copies), for the inspector. */
  list(): SandboxWebhook[] {
    return [...this.#webhooks.values()].map((w) => ({ ...w }));
  }

  /** Every header value a webhook has had, for the sandbox to keep out of what it shows. */
  headerValues(): Iterable<string> {
    return this.#headerValues;
  }

  #remember(value: string | null | undefined): void {
    if (!value) return;
    this.#headerValues.delete(value);
    this.#headerValues.add(value);
    if (this.#headerValues.size > 10_000)
      this.#headerValues.delete(this.#headerValues.values().next().value as string);
  }

  /** The webhook, or `undefined`. */
  find(webhookId: number): SandboxWebhook | undefined {
    const webhook = this.#webhooks.get(webhookId);
    return webhook && { ...webhook };
  }

  create(body: WebhookCreateBody): SandboxWebhook {
    if (this.#webhooks.size >= this.limits.maxWebhooks) {
      throw sandboxFull('webhooks', 'maxWebhooks', this.limits.maxWebhooks);
    }
    const webhook: SandboxWebhook = {
      webhookId: this.#nextWebhookId++,
      url: body.url,
      headerName: body.headerName ?? null,
      headerValue: body.headerValue ?? null,
      isActive: body.isActive ?? true,
    };
    this.#webhooks.set(webhook.webhookId, webhook);
    this.#remember(webhook.headerValue);
    return { ...webhook };
  }

  /** The webhook, or a 404. */
  get(webhookId: number): SandboxWebhook {
    const webhook = this.#webhooks.get(webhookId);
    if (!webhook) throw new SandboxHttpError(404, 'not_found', `No webhook ${webhookId}`);
    return webhook;
  }

  /** Changes only the fields given (spec 4.6). */
  update(webhookId: number, patch: WebhookPatchBody): SandboxWebhook {
    const webhook = this.get(webhookId);
    if (patch.url !== undefined) webhook.url = patch.url;
    if (patch.headerName !== undefined) webhook.headerName = patch.headerName;
    if (patch.headerValue !== undefined) webhook.headerValue = patch.headerValue;
    this.#remember(webhook.headerValue);
    if (patch.isActive !== undefined) webhook.isActive = patch.isActive;
    return { ...webhook };
  }

  createSubscription(webhookId: number, body: SubscriptionCreateBody): SandboxSubscription {
    this.get(webhookId);
    const filters = body.filters ?? { fields: [] };
    this.#check(webhookId, undefined, body.name, body.webhookEvent, filters);
    if (this.#subscriptions.size >= this.limits.maxSubscriptions) {
      throw sandboxFull('subscriptions', 'maxSubscriptions', this.limits.maxSubscriptions);
    }
    const subscription: SandboxSubscription = {
      webhookSubscriptionId: this.#nextSubscriptionId++,
      webhookId,
      name: body.name ?? null,
      webhookEvent: body.webhookEvent,
      isActive: body.isActive ?? true,
      filters,
    };
    this.#subscriptions.set(subscription.webhookSubscriptionId, subscription);
    return structuredClone(subscription);
  }

  /** A webhook's subscriptions, each with its own `isActive` (the webhook's is not folded in). */
  listSubscriptions(webhookId: number): SandboxSubscription[] {
    this.get(webhookId);
    return [...this.#subscriptions.values()]
      .filter((s) => s.webhookId === webhookId)
      .map((s) => structuredClone(s));
  }

  /**
   * Changes only the fields given (spec 4.9). A new `webhookEvent` without new `filters`
   * drops the old filters: they test fields of the old event's payload.
   */
  updateSubscription(
    webhookId: number,
    subscriptionId: number,
    patch: SubscriptionPatchBody,
  ): SandboxSubscription {
    this.get(webhookId);
    const subscription = this.#subscriptions.get(subscriptionId);
    if (!subscription || subscription.webhookId !== webhookId) {
      throw new SandboxHttpError(
        404,
        'not_found',
        `Webhook ${webhookId} has no subscription ${subscriptionId}`,
      );
    }
    const event = patch.webhookEvent ?? subscription.webhookEvent;
    const filters =
      patch.filters ?? (event === subscription.webhookEvent ? subscription.filters : { fields: [] });
    this.#check(webhookId, subscriptionId, patch.name, event, filters);
    if (patch.name !== undefined) subscription.name = patch.name;
    if (patch.isActive !== undefined) subscription.isActive = patch.isActive;
    subscription.webhookEvent = event;
    subscription.filters = filters;
    return structuredClone(subscription);
  }

  /**
   * Where an event goes: every enabled subscription to it under an enabled webhook whose
   * filters all match (spec 6.4: `isActive: false` on either means no delivery).
   */
  targets(
    webhookEvent: string,
    fields: Record<string, string>,
  ): Array<{ webhook: SandboxWebhook; subscription: SandboxSubscription }> {
    const out = [];
    for (const subscription of this.#subscriptions.values()) {
      const webhook = this.#webhooks.get(subscription.webhookId);
      if (!webhook?.isActive || !subscription.isActive || subscription.webhookEvent !== webhookEvent)
        continue;
      const matches = subscription.filters.fields.every(
        (condition) => condition.operator === EQUALS && fields[condition.name] === condition.value,
      );
      if (matches) out.push({ webhook: { ...webhook }, subscription: structuredClone(subscription) });
    }
    return out;
  }

  #check(
    webhookId: number,
    subscriptionId: number | undefined,
    name: string | undefined,
    webhookEvent: string,
    filters: FiltersBody,
  ): void {
    if (name !== undefined && name !== '') {
      const taken = [...this.#subscriptions.values()].some(
        (s) => s.webhookId === webhookId && s.name === name && s.webhookSubscriptionId !== subscriptionId,
      );
      if (taken) {
        throw new SandboxHttpError(
          409,
          'conflict',
          `Webhook ${webhookId} already has a subscription named "${name}"`,
        );
      }
    }
    const problems: SandboxErrorDetail[] = [];
    filters.fields.forEach((condition, i) => {
      if (condition.operator !== EQUALS) {
        problems.push({
          path: `filters.fields[${i}].operator`,
          code: 'unsupported_operator',
          message: `operator "${condition.operator}" is not supported (only "${EQUALS}")`,
        });
      }
      if (webhookEvent === NEW_EVENT && !NEW_EVENT_FILTER_FIELDS.includes(condition.name)) {
        problems.push({
          path: `filters.fields[${i}].name`,
          code: 'unsupported_filter',
          message: `"${NEW_EVENT}" can be filtered on ${NEW_EVENT_FILTER_FIELDS.join(' and ')}, not "${condition.name}"`,
        });
      }
    });
    if (problems.length > 0) throw validationFailed(problems);
  }
}
