export { bodyHash } from './body-hash.js';
export {
  BatchInputError,
  describeLineProblem,
  JournalError,
  type JournalErrorCode,
  type LineProblem,
} from './errors.js';
export { type FileClaimsOptions, fileClaims } from './file-claims.js';
export { FileJournalStore } from './file-store.js';
export { Journal, type Resolution } from './journal.js';
export type { JournalRecord, JournalState } from './record.js';
export type { BatchProgress, ClaimNote, ClaimResult, ClaimState } from './result.js';
export type { JournalStore } from './store.js';
export { type ClaimInput, type ValidClaim, validateClaims } from './validate-claims.js';
