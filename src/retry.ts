/**
 * Kept for `src/batch` until it asks the call policy itself (src/call-policy.ts holds every
 * retry rule and its maths).
 */
export { backoffDelay, parseRetryAfter } from './call-policy.js';
