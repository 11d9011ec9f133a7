// What `subscriptions.plan` and `apply` run, in one module they load on their first call: a
// function that only files claims never loads it (see docs/benchmarks.md, "What the first call
// loads").
export { checkDesired } from './desired-subscriptions.js';
export { applyPlan } from './subscription-apply.js';
export { fingerprintOf, planSubscriptions } from './subscription-plan.js';
