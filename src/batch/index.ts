export { bodyHash } from './body-hash.js';
export {
  BatchInputError,
  BatchStoppedError,
  type BatchStopReason,
  describeLineProblem,
  JournalError,
  type JournalErrorCode,
  type LineProblem,
  type UnrecordedClaim,
} from './errors.js';
export { type FileClaimsOptions, fileClaims } from './file-claims.js';
export { FileJournalStore } from './file-store.js';
export { Journal, type Resolution } from './journal.js';
export type { JournalRecord, JournalState } from './record.js';
export type { BatchProgress, ClaimNote, ClaimResult, ClaimState } from './result.js';
export type { ClaimAnswer, JournalOpenOptions, JournalStore } from './store.js';
export { type ClaimInput, type ValidateOptions, type ValidClaim, validateClaims } from './validate-claims.js';
