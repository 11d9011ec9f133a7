import { nearTypoOf } from '../checks/near-typos.js';
import type { WebhookEvent } from '../constants.js';
import { ClaimsValidationError, type ValidationIssue } from '../errors.js';
import { collectIssues, formatPath, type Schema } from '../internal/validate.js';
import type { SubscriptionFilters } from '../schemas/subscriptions.js';

/**
 * One subscription as it should be, keyed by its `name` (spec 2.8: "unique name for the
 * client's own identification").
 *
 * @example
 * const finalReports: DesiredSubscription = {
 *   name: 'final-reports',
 *   webhookEvent: 'New Event',
 *   filters: { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] },
 * };
 */
export interface DesiredSubscription {
  /** The key: a live subscription with this name is updated to match, else one is created. */
  name: string;
  /** The event to deliver: `'New Event'` (documented) or another non-empty string. */
  webhookEvent: WebhookEvent;
  /** Whether it delivers. @default true */
  isActive?: boolean;
  /** Conditions on the event, compared as a set (order and repeats do not matter). @default no conditions */
  filters?: SubscriptionFilters;
}

/**
 * The webhook's own settings, set on every apply: the API cannot read them back, so a plan
 * cannot tell whether they differ. The header value is not one of them: it is a secret, kept
 * out of files under review (rotate it with `claims webhooks rotate-header`).
 */
export interface DesiredWebhook {
  /** Where deliveries are POSTed: an absolute `http:`/`https:` URL. */
  url?: string;
  /** Name of the extra header sent with each delivery, e.g. `'X-Hook-Secret'`. */
  headerName?: string;
  /** `false` stops every delivery of the webhook. */
  isActive?: boolean;
}

/**
 * The desired state of a webhook's subscriptions: the list, or `{ webhook?, subscriptions }`
 * with the webhook's own settings too (the file `claims subscriptions plan -f` reads).
 */
export type DesiredSubscriptions =
  | readonly DesiredSubscription[]
  | {
      /** The webhook's own settings, set on every apply. */
      webhook?: DesiredWebhook;
      /** The subscriptions as they should be. */
      subscriptions: readonly DesiredSubscription[];
    };

/** A desired state, checked: every entry well-formed, names present and unique. */
export interface CheckedDesired {
  webhook: DesiredWebhook | undefined;
  subscriptions: DesiredSubscription[];
}

const SUBSCRIPTION_KEYS = ['name', 'webhookEvent', 'isActive', 'filters'];
const WEBHOOK_KEYS = ['url', 'headerName', 'isActive'];
const FILE_KEYS = ['webhook', 'subscriptions'];

/**
 * Checks a desired state with the SDK's own schemas of a subscription body and a webhook
 * patch, plus what a desired state needs beyond them: a name on every entry, no name twice,
 * no field the API does not have (a typo would otherwise never converge), no header value.
 * @throws ClaimsValidationError naming every problem (never a value of `headerValue`).
 */
export function checkDesired(
  desired: unknown,
  schemas: { subscription: Schema; webhook: Schema },
): CheckedDesired {
  const issues: ValidationIssue[] = [];
  let list: unknown = desired;
  let webhook: unknown;
  let prefix = '';
  if (!Array.isArray(desired)) {
    if (!isObject(desired)) {
      throw new ClaimsValidationError([
        { path: '', message: 'must be an array of subscriptions, or { "webhook"?, "subscriptions" }' },
      ]);
    }
    unknownKeys(desired, FILE_KEYS, '', 'the file', issues);
    ({ webhook, subscriptions: list } = desired);
    prefix = 'subscriptions';
    if (!Array.isArray(list)) issues.push({ path: prefix, message: 'must be an array of subscriptions' });
  }
  if (webhook !== undefined) checkWebhook(webhook, schemas.webhook, issues);
  const entries = Array.isArray(list) ? list : [];
  const firstIndex = new Map<string, number>();
  entries.forEach((entry, i) => {
    const path = formatPath(prefix, [i]);
    const { issues: found } = collectIssues([[path, schemas.subscription, entry]]);
    issues.push(...found);
    if (!isObject(entry)) return;
    unknownKeys(entry, SUBSCRIPTION_KEYS, path, 'a subscription', issues);
    const { name } = entry;
    if (typeof name !== 'string' || name === '') {
      issues.push({ path: `${path}.name`, message: 'is required: subscriptions are matched by name' });
      return;
    }
    const first = firstIndex.get(name);
    if (first === undefined) firstIndex.set(name, i);
    else
      issues.push({
        path: `${path}.name`,
        message: `${JSON.stringify(name)} is also the name of entry ${first}`,
      });
  });
  if (issues.length > 0) throw new ClaimsValidationError(issues);
  return { webhook: webhook as DesiredWebhook | undefined, subscriptions: entries as DesiredSubscription[] };
}

function checkWebhook(webhook: unknown, schema: Schema, issues: ValidationIssue[]): void {
  if (!isObject(webhook)) {
    issues.push({ path: 'webhook', message: 'must be an object: { url?, headerName?, isActive? }' });
    return;
  }
  const { headerValue, ...rest } = webhook;
  if (headerValue !== undefined) {
    issues.push({
      path: 'webhook.headerValue',
      message:
        'is a secret and does not belong in this file: set it with `claims webhooks rotate-header` (or client.webhooks.update)',
    });
  }
  if (Object.keys(rest).length === 0) {
    if (headerValue === undefined)
      issues.push({ path: 'webhook', message: 'is empty: give url, headerName or isActive' });
    return;
  }
  // Checked without the header value, so no message can carry it.
  issues.push(...collectIssues([['webhook', schema, rest]]).issues);
  unknownKeys(rest, WEBHOOK_KEYS, 'webhook', 'the webhook', issues);
}

/** Keys outside `known` (a key the schema already named, a near-typo, is not named twice). */
function unknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  path: string,
  what: string,
  issues: ValidationIssue[],
): void {
  for (const key of Object.keys(value)) {
    const keyPath = formatPath(path, [key]);
    if (known.includes(key) || issues.some((issue) => issue.path === keyPath)) continue;
    const hint = nearTypoOf(key, known);
    issues.push({
      path: keyPath,
      message: `is not a field of ${what}${hint ? `; did you mean "${hint}"?` : ` (${known.join(', ')})`}`,
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
