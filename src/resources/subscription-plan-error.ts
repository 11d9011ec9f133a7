import { ClaimsError } from '../errors.js';

// Apart from subscription-plan.ts: the main entry exports the error, while the planning code
// is loaded on the first plan or apply.

/** Why {@link SubscriptionPlanError} was thrown. */
export type SubscriptionPlanFailure = 'duplicate_names' | 'stale_plan';

/**
 * A plan cannot be made or applied: two live subscriptions share a name (`duplicate_names`,
 * the names in `names`), or the live subscriptions changed since the plan was made
 * (`stale_plan`). Nothing was changed; `outcome` is `'not_sent'`.
 */
export class SubscriptionPlanError extends ClaimsError {
  override name = 'SubscriptionPlanError';
  /** `duplicate_names` or `stale_plan`. */
  readonly failure: SubscriptionPlanFailure;
  /** The duplicated names (`duplicate_names`); empty otherwise. */
  readonly names: string[];

  constructor(failure: SubscriptionPlanFailure, message: string, names: string[] = []) {
    super(message);
    this.failure = failure;
    this.names = names;
  }
}
