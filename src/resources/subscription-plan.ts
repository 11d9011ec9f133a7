import type { NumericId } from '../schemas/common.js';
import type {
  FilterCondition,
  Subscription,
  SubscriptionCreate,
  SubscriptionFilters,
  SubscriptionPatch,
} from '../schemas/subscriptions.js';
import type { CheckedDesired, DesiredWebhook } from './desired-subscriptions.js';
import { SubscriptionPlanError } from './subscription-plan-error.js';

// Subscriptions as code: the pure part. From the desired state and the live list it decides
// what to create, update and disable; it sends nothing (subscription-apply.ts does).

/** One change a plan makes to one subscription. */
export interface SubscriptionChange {
  /** `create` a missing one, `update` one that differs, `disable` one no longer wanted. */
  action: 'create' | 'update' | 'disable';
  /** The subscription's name; `null` for an unnamed one (only with `includeUnnamed`). */
  name: string | null;
  /** The live subscription's id (`update`, `disable`). */
  subscriptionId?: NumericId;
  /**
   * What is sent: the whole body for `create`; for `update` only the fields that differ (a
   * new `webhookEvent` always comes with its `filters`: the old ones test another payload);
   * `{ isActive: false }` for `disable`.
   */
  patch?: SubscriptionCreate | SubscriptionPatch;
  /** The live values of the fields `patch` changes (`update`, `disable`), for a reader of the plan. */
  before?: SubscriptionPatch;
}

/**
 * What `client.subscriptions.plan` resolves to, and what `apply` carries out: plain JSON, so
 * it can be saved, read in review, and applied later (refused if the live subscriptions
 * changed since: `fingerprint`).
 */
export interface SubscriptionPlan {
  /** Marks a saved plan file. */
  kind: 'claims-subscriptions-plan';
  /** The plan format's version. */
  version: 1;
  /** The webhook whose subscriptions the plan changes. */
  webhookId: NumericId;
  /**
   * The webhook's own settings from the desired state. The API cannot read them back, so
   * `apply` sets them every time; they never count as a change.
   */
  webhook?: DesiredWebhook;
  /** The changes, in the order `apply` makes them: creates, updates, then disables. */
  changes: SubscriptionChange[];
  /** Names of the live subscriptions already as desired. */
  unchanged: string[];
  /** Ids of the live subscriptions without a name, left alone (without `includeUnnamed`). */
  unnamed: NumericId[];
  /** A hash of the live subscriptions the plan was made from. */
  fingerprint: string;
}

/**
 * The plan that makes `live` match `desired`. Live subscriptions are matched by name; one
 * whose name is not desired is disabled (the API has no delete); one without a name is left
 * alone unless `includeUnnamed`, then disabled when active.
 * @throws SubscriptionPlanError when two live subscriptions share a name.
 */
export function planSubscriptions(input: {
  webhookId: NumericId;
  desired: CheckedDesired;
  live: readonly Subscription[];
  fingerprint: string;
  includeUnnamed?: boolean;
}): SubscriptionPlan {
  const { webhookId, desired, live, fingerprint } = input;
  const byName = liveByName(webhookId, live);
  const creates: SubscriptionChange[] = [];
  const updates: SubscriptionChange[] = [];
  const unchanged: string[] = [];
  for (const want of desired.subscriptions) {
    const have = byName.get(want.name);
    if (have === undefined) {
      creates.push({ action: 'create', name: want.name, patch: { ...want } });
      continue;
    }
    const [patch, before] = difference(want, have);
    if (Object.keys(patch).length === 0) unchanged.push(want.name);
    else
      updates.push({
        action: 'update',
        name: want.name,
        subscriptionId: have.webhookSubscriptionId,
        patch,
        before,
      });
  }
  // Desired names are never null: an unnamed live subscription is never wanted.
  const wanted = new Set<string | null>(desired.subscriptions.map((s) => s.name));
  const disables: SubscriptionChange[] = [];
  const unnamed: NumericId[] = [];
  for (const have of live) {
    const name = nameOf(have);
    if (name === null && !input.includeUnnamed) {
      unnamed.push(have.webhookSubscriptionId);
      continue;
    }
    if (wanted.has(name) || !have.isActive) continue;
    disables.push({
      action: 'disable',
      name,
      subscriptionId: have.webhookSubscriptionId,
      patch: { isActive: false },
      before: { isActive: true },
    });
  }
  const plan: SubscriptionPlan = {
    kind: 'claims-subscriptions-plan',
    version: 1,
    webhookId,
    changes: [...creates, ...updates, ...disables],
    unchanged,
    unnamed,
    fingerprint,
  };
  if (desired.webhook !== undefined) plan.webhook = { ...desired.webhook };
  return plan;
}

function nameOf(subscription: Subscription): string | null {
  const { name } = subscription;
  return typeof name === 'string' && name !== '' ? name : null;
}

function liveByName(webhookId: NumericId, live: readonly Subscription[]): Map<string, Subscription> {
  const byName = new Map<string, Subscription>();
  const repeated = new Map<string, NumericId[]>();
  for (const subscription of live) {
    const name = nameOf(subscription);
    if (name === null) continue;
    const first = byName.get(name);
    if (first === undefined) {
      byName.set(name, subscription);
      continue;
    }
    const ids = repeated.get(name) ?? [first.webhookSubscriptionId];
    repeated.set(name, [...ids, subscription.webhookSubscriptionId]);
  }
  if (repeated.size > 0) {
    const list = [...repeated]
      .map(([name, ids]) => `${JSON.stringify(name)} (ids ${ids.join(', ')})`)
      .join('; ');
    throw new SubscriptionPlanError(
      'duplicate_names',
      `Webhook ${webhookId} has more than one subscription with one name: ${list}. Subscriptions are matched by name: rename or disable the extra ones (claims subscriptions update), then plan again`,
      [...repeated.keys()],
    );
  }
  return byName;
}

/** The fields of `want` that differ from `have`, and their live values. */
function difference(
  want: CheckedDesired['subscriptions'][number],
  have: Subscription,
): [SubscriptionPatch, SubscriptionPatch] {
  const patch: SubscriptionPatch = {};
  const before: SubscriptionPatch = {};
  const wantFilters = want.filters ?? { fields: [] };
  const haveFilters = liveFilters(have);
  if (want.webhookEvent !== have.webhookEvent) {
    patch.webhookEvent = want.webhookEvent;
    before.webhookEvent = have.webhookEvent;
  }
  const wantActive = want.isActive ?? true;
  if (wantActive !== have.isActive) {
    patch.isActive = wantActive;
    before.isActive = have.isActive;
  }
  if (patch.webhookEvent !== undefined || !sameFilters(wantFilters, haveFilters)) {
    patch.filters = wantFilters;
    before.filters = haveFilters;
  }
  return [patch, before];
}

function liveFilters(subscription: Subscription): SubscriptionFilters {
  return { fields: subscription.filters?.fields ?? [] };
}

/**
 * Filters compared as sets of conditions. A condition is compared on the fields the desired
 * conditions give (always `name`, `operator` and `value`, which the desired state's checks
 * require, plus any other): a field only the server adds makes no difference that could never
 * be applied away.
 */
export function sameFilters(want: SubscriptionFilters, have: SubscriptionFilters): boolean {
  const keys = [...new Set(want.fields.flatMap((c) => Object.keys(c)))];
  const key = (c: FilterCondition) =>
    JSON.stringify(keys.map((k) => (c as unknown as Record<string, unknown>)[k] ?? null));
  const a = new Set(want.fields.map(key));
  const b = new Set(have.fields.map(key));
  return a.size === b.size && [...a].every((k) => b.has(k));
}

/**
 * A hash of the live subscriptions (their documented fields, filters as sets, in id order):
 * equal for the same subscriptions, whatever order the API lists them in.
 */
export async function fingerprintOf(live: readonly Subscription[]): Promise<string> {
  // Each subscription as text, the texts sorted: one order for one set, whatever the API's.
  const canonical = live
    .map((s) =>
      JSON.stringify([
        String(s.webhookSubscriptionId),
        nameOf(s),
        s.webhookEvent,
        s.isActive,
        liveFilters(s)
          .fields.map((c) => JSON.stringify([c.name, c.operator, c.value]))
          .sort(),
      ]),
    )
    .sort();
  const bytes = new TextEncoder().encode(JSON.stringify(canonical));
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  return `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
