import { ClaimsValidationError, describeIssues, type ValidationIssue } from '../errors.js';
import type { NumericId } from '../schemas/common.js';
import type { Subscription, SubscriptionCreate, SubscriptionPatch } from '../schemas/subscriptions.js';
import type { WebhookPatch } from '../schemas/webhooks.js';
import { fingerprintOf, type SubscriptionChange, type SubscriptionPlan } from './subscription-plan.js';
import { SubscriptionPlanError } from './subscription-plan-error.js';

/** A change `apply` made, with the id of the subscription it made it to. */
export interface AppliedChange extends SubscriptionChange {
  /** The subscription changed; for `create`, the new one's id. */
  subscriptionId: NumericId;
}

/** What `client.subscriptions.apply` resolves to. */
export interface SubscriptionApplyResult {
  /** The webhook the plan was for. */
  webhookId: NumericId;
  /** Whether the webhook's own settings were set (the plan had them). */
  webhookUpdated: boolean;
  /** Every change made, in order. */
  applied: AppliedChange[];
}

/** The calls `apply` makes, given by the resource (tests give their own). */
export interface ApplyCalls {
  list(webhookId: NumericId): Promise<Subscription[]>;
  create(webhookId: NumericId, body: SubscriptionCreate): Promise<{ subscriptionId: NumericId }>;
  update(webhookId: NumericId, subscriptionId: NumericId, patch: SubscriptionPatch): Promise<void>;
  updateWebhook(webhookId: NumericId, patch: WebhookPatch): Promise<void>;
}

/**
 * Carries out a plan: reads the live subscriptions again and refuses when they changed since
 * the plan was made (their fingerprint), then sets the webhook's settings (when the plan has
 * them) and makes each change in order. It stops at the first failure with that call's error:
 * the changes before it are made (`onChange` was told of each); plan again to see what is left.
 * @throws ClaimsValidationError for a plan that is not one (a hand-edited file).
 * @throws SubscriptionPlanError (`stale_plan`) when the live subscriptions changed.
 */
export async function applyPlan(
  plan: SubscriptionPlan,
  calls: ApplyCalls,
  onChange?: (change: AppliedChange) => void,
): Promise<SubscriptionApplyResult> {
  checkPlan(plan);
  const live = await calls.list(plan.webhookId);
  if ((await fingerprintOf(live)) !== plan.fingerprint) {
    throw new SubscriptionPlanError(
      'stale_plan',
      `The subscriptions of webhook ${plan.webhookId} changed since this plan was made; nothing was applied. Make a new plan and review it`,
    );
  }
  if (plan.webhook !== undefined) await calls.updateWebhook(plan.webhookId, plan.webhook);
  const applied: AppliedChange[] = [];
  for (const change of plan.changes) {
    const subscriptionId =
      change.action === 'create'
        ? (await calls.create(plan.webhookId, change.patch as SubscriptionCreate)).subscriptionId
        : await calls
            .update(plan.webhookId, change.subscriptionId as NumericId, change.patch as SubscriptionPatch)
            .then(() => change.subscriptionId as NumericId);
    const done = { ...change, subscriptionId };
    applied.push(done);
    onChange?.(done);
  }
  return { webhookId: plan.webhookId, webhookUpdated: plan.webhook !== undefined, applied };
}

const ACTIONS = ['create', 'update', 'disable'];

/** The shape of a plan (the bodies themselves are checked by the calls that send them). */
function checkPlan(plan: unknown): asserts plan is SubscriptionPlan {
  const issues: ValidationIssue[] = [];
  const p = (plan ?? {}) as Partial<SubscriptionPlan>;
  if (p.kind !== 'claims-subscriptions-plan' || p.version !== 1) {
    issues.push({ path: 'kind', message: 'is not a subscriptions plan of version 1 (make one with plan)' });
  }
  if (typeof p.webhookId !== 'number' && typeof p.webhookId !== 'string') {
    issues.push({ path: 'webhookId', message: 'must be the webhook id' });
  }
  if (typeof p.fingerprint !== 'string') issues.push({ path: 'fingerprint', message: 'must be a string' });
  if (!Array.isArray(p.changes)) issues.push({ path: 'changes', message: 'must be an array' });
  else {
    p.changes.forEach((change, i) => {
      const c = (change ?? {}) as Partial<SubscriptionChange>;
      if (!ACTIONS.includes(c.action as string)) {
        issues.push({ path: `changes[${i}].action`, message: 'must be create, update or disable' });
      }
      if (typeof c.patch !== 'object' || c.patch === null) {
        issues.push({ path: `changes[${i}].patch`, message: 'must be an object' });
      }
      if (c.action !== 'create' && c.subscriptionId === undefined) {
        issues.push({ path: `changes[${i}].subscriptionId`, message: 'is required to update or disable' });
      }
    });
  }
  if (issues.length > 0)
    throw new ClaimsValidationError(issues, describeIssues('Invalid subscriptions plan', issues));
}
