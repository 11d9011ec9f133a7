/**
 * The entry for runtimes without Node: workerd (Cloudflare Workers), Vercel Edge, Deno, Bun
 * and browsers pick it through the package's export conditions. The same public API as the
 * Node entry (`index.ts`), with `fetch` as the only wire; left out is what needs Node:
 * `receiveWebhook` (a `node:http` request) and `verifyWebhook` (`node:crypto`).
 * Types come from the Node entry's declarations: the classes and functions are the same.
 */
export {
  EventCategories,
  EventTypes,
  FilterFields,
  FilterOperators,
  WebhookEvents,
} from './constants.js';
export {
  AuthenticationError,
  BadRequestError,
  ClaimsApiError,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  ConflictError,
  InternalServerError,
  isClaimsError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  WebhookVerificationError,
} from './errors.js';
export {
  checkExtendedFields,
  ExtendedFieldProblemCodes,
  extendedFieldsFrom,
  requiredExtendedFields,
} from './extended-fields.js';
export { checkForms } from './forms/check.js';
export { outcomeOf } from './outcome.js';
export { ClaimsClient } from './platform/web.js';
export { SubscriptionPlanError } from './resources/subscription-plan-error.js';
export { VERSION } from './version.js';
