/**
 * The call policy: after each attempt of a call, what happens next. A pure function of what the
 * attempt produced, the call's state and its limits; the transport applies it to every call,
 * and the batch to every claim it sends (with limits of its own). Every rule that decides
 * whether a request is sent again lives here:
 *
 * | what the attempt produced                           | next step                                       |
 * |-----------------------------------------------------|-------------------------------------------------|
 * | the call was stopped (abort, deadline, stall)       | fail: what the attempt under way may have done  |
 * | the SDK refused before sending (client closed, …)   | fail: `not_sent`                                |
 * | a 2xx whose body is unusable (not JSON, not decodable, the wrong shape) | fail: `processed`      |
 * | anything, on a one-shot upload stream               | fail (a stream cannot be read twice)            |
 * | a dead kept-alive connection, nothing written       | resend at once on a fresh connection (once)     |
 * | 401, with a token provider                          | resend at once with a token asked anew (once)   |
 * | `maxRetries` used up                                | fail                                            |
 * | not retryable for the method (table below)          | fail                                            |
 * | `Retry-After` longer than the limit                 | the client fails at once; the batch waits the limit |
 * | otherwise                                           | retry after `Retry-After`, else 0.5 s × 2ⁿ (≤ 8 s, −25% jitter) |
 *
 * Retryable, by method (the API has no idempotency key, so a POST repeats only when the server
 * provably did not act on it; a PATCH is repeated where it cannot have been acted on twice
 * differently, never once the server answered):
 *
 * | attempt                                        | GET | PATCH | POST |
 * |------------------------------------------------|-----|-------|------|
 * | 408, 500, 502, 503, 504                        | yes | yes   | no   |
 * | 429                                            | yes | yes   | yes  |
 * | no connection opened; a dead one again         | yes | yes   | yes  |
 * | a reset or timeout after the request may have left; TLS refused; proven unwritten | yes | yes | no |
 * | an answer that is not HTTP                     | yes | no    | no   |
 * | a `fetch` of yours resolved no Response        | no  | no    | no   |
 * | a 2xx head whose body broke off or stalled (the server said it acted) | yes | no | no |
 *
 * The outcome of a failed call is its last attempt's, made `'unknown'` when an earlier attempt
 * may have been acted on (a 503, then a 404: a claim may exist).
 */
import type { Outcome } from './outcome.js';
import type { Sent } from './wire/failure.js';

/** What one attempt produced, as the policy reads it. */
export type Attempt =
  /** An answer whose status the call does not take: 3xx, 4xx, 5xx. */
  | { kind: 'answer'; status: number; retryAfterMs: number | undefined }
  /** No usable answer head: how far the request got (see {@link Sent}). */
  | { kind: 'failure'; sent: Sent }
  /**
   * A 2xx head came, then its body broke off (`'unknown'`: no usable answer came) or stalled
   * past `timeoutMs` (`'processed'`, as for a deadline: a 2xx answer had begun).
   */
  | { kind: 'body_failed'; stalled: boolean }
  /** A 2xx answer is unusable: not JSON, not decodable, the wrong shape, too large. */
  | { kind: 'unusable' }
  /** The SDK refused before sending anything: the client is closed, the token provider failed. */
  | { kind: 'refused' }
  /** The call's signal stopped it (abort, deadline, stall) while its attempt was in `phase`. */
  | { kind: 'stopped'; phase: Outcome };

/** Where a call stands when an attempt ended. */
export interface CallState {
  /** `'GET'`, `'PATCH'` or `'POST'`. */
  method: string;
  /** Retries made so far (the resends at once below are not counted). */
  retries: number;
  /** False for a one-shot upload stream: nothing of it can be sent twice. */
  replayable: boolean;
  /** The one resend on a fresh connection after a dead kept-alive one was used. */
  freshResendUsed: boolean;
  /** The one resend with a token asked anew after a 401 was used. */
  newTokenUsed: boolean;
  /** The token comes from a provider (a function), which can be asked anew. */
  tokenProvider: boolean;
  /** An earlier attempt of this call may have been acted on (a 5xx, a reset after sending). */
  earlierMayHaveActed: boolean;
}

/** The limits a caller of the policy sets. */
export interface CallLimits {
  /** How many retries a call may make. */
  maxRetries: number;
  /** The longest wait taken, in ms: in effect the longest `Retry-After` honoured (a backoff stops at 8 s). */
  maxRetryAfterMs: number;
  /** When the server asks to wait longer: fail at once, or wait `maxRetryAfterMs`. */
  longerWait: 'fail' | 'wait_max';
  /** A number in [0, 1) for the backoff's jitter. @default Math.random */
  random?: () => number;
}

/** What to do next. */
export type Step =
  /** Send again after `delayMs`; one retry more. */
  | { next: 'retry'; delayMs: number; state: CallState }
  /** Send again at once on a fresh connection (not a retry). */
  | { next: 'resend_fresh'; state: CallState }
  /** Send again at once with a token asked anew, `{ forceRefresh: true, refusedToken }` (not a retry). */
  | { next: 'resend_new_token'; state: CallState }
  /** Give up: the call fails with this outcome. `refusedWaitMs`: the server asked for that long a wait. */
  | { next: 'fail'; outcome: Outcome; refusedWaitMs?: number };

/**
 * The client's limits: a caller waits for its call, so a wait past 60 s is not taken; the
 * caller gets the answer's error at once and decides.
 */
export const MAX_RETRY_AFTER_MS = 60_000;
const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** The next step after an attempt. */
export function nextStep(attempt: Attempt, state: CallState, limits: CallLimits): Step {
  if (!state.replayable) return fail(attempt, state);
  // The resends at once, and the wait the server asked for.
  let asked: number | undefined;
  switch (attempt.kind) {
    case 'failure':
      if (attempt.sent === 'dead_connection' && !state.freshResendUsed) {
        return { next: 'resend_fresh', state: { ...state, freshResendUsed: true } };
      }
      break;
    case 'answer':
      if (attempt.status === 401 && state.tokenProvider && !state.newTokenUsed) {
        return { next: 'resend_new_token', state: { ...state, newTokenUsed: true } };
      }
      asked = attempt.retryAfterMs;
      break;
  }
  // A stop, a refusal or an unusable answer is never retryable.
  if (state.retries >= limits.maxRetries || !isRetryable(state.method, attempt)) return fail(attempt, state);
  let delayMs = asked ?? backoffDelay(state.retries, limits.random);
  if (delayMs > limits.maxRetryAfterMs) {
    // Only a wait the server asked for can be this long: our own backoff stops at 8 s.
    if (limits.longerWait === 'fail') {
      return { next: 'fail', outcome: failedOutcome(attempt, state), refusedWaitMs: delayMs };
    }
    delayMs = limits.maxRetryAfterMs;
  }
  return {
    next: 'retry',
    delayMs,
    state: {
      ...state,
      retries: state.retries + 1,
      earlierMayHaveActed: state.earlierMayHaveActed || mayHaveActed(attemptOutcome(attempt)),
    },
  };
}

/** Whether an attempt that ended this way may be repeated (the second table above). */
export function isRetryable(method: string, attempt: Attempt): boolean {
  switch (attempt.kind) {
    case 'answer':
      return method === 'POST' ? attempt.status === 429 : RETRYABLE_STATUSES.has(attempt.status);
    case 'failure':
      if (attempt.sent === 'not_a_response') return false;
      if (method === 'POST') return attempt.sent === 'not_connected' || attempt.sent === 'dead_connection';
      return method === 'GET' || attempt.sent !== 'bad_answer';
    case 'body_failed':
      return method === 'GET';
    default:
      return false;
  }
}

/** What the server may have done with one attempt. */
export function attemptOutcome(attempt: Attempt): Outcome {
  switch (attempt.kind) {
    case 'answer':
      return attempt.status >= 400 && attempt.status < 500 ? 'rejected' : 'unknown';
    case 'failure':
      return attempt.sent === 'bad_answer' || attempt.sent === 'maybe' || attempt.sent === 'not_a_response'
        ? 'unknown'
        : 'not_sent';
    case 'body_failed':
      return attempt.stalled ? 'processed' : 'unknown';
    case 'unusable':
      return 'processed';
    case 'refused':
      return 'not_sent';
    case 'stopped':
      return attempt.phase;
  }
}

/**
 * The outcome of a whole call from its last attempt's and whether an earlier attempt may have
 * been acted on: a later refusal does not undo an earlier 503 or reset.
 */
export function callOutcome(last: Outcome, earlierMayHaveActed: boolean): Outcome {
  return earlierMayHaveActed && last !== 'processed' ? 'unknown' : last;
}

function mayHaveActed(outcome: Outcome): boolean {
  return outcome === 'unknown' || outcome === 'processed';
}

function fail(attempt: Attempt, state: CallState): Step {
  return { next: 'fail', outcome: failedOutcome(attempt, state) };
}

function failedOutcome(attempt: Attempt, state: CallState): Outcome {
  return callOutcome(attemptOutcome(attempt), state.earlierMayHaveActed);
}

/** Exponential backoff, 0.5 s × 2ⁿ capped at 8 s, minus up to 25% jitter. */
export function backoffDelay(retryIndex: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_DELAY_MS * 2 ** retryIndex, MAX_DELAY_MS);
  return base * (1 - random() * 0.25);
}

/**
 * How long the server asked us to wait, in ms, from `retry-after-ms` or `Retry-After`
 * (seconds or an HTTP date). `undefined` when absent or malformed: a malformed header
 * must not disable retries, the default backoff applies instead (ky: "Malformed retry timing
 * headers should not disable retries").
 */
export function parseRetryAfter(headers: Record<string, string>, now = Date.now()): number | undefined {
  const ms = headers['retry-after-ms'];
  // Number('') and Number(' ') are 0: a blank header is no answer, not a wait of 0.
  if (ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  // Stryker disable next-line StringLiteral: any text that is no number and no date reads as absent too
  const header = headers['retry-after'] ?? '';
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Number(header) * 1000;
  // Only an HTTP date (it names a weekday and month) is read as one: Date.parse('-1') is a date too.
  if (!/[a-z]/i.test(header)) return undefined;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** What each finished call's error says its last attempt produced; see {@link attemptOfError}. */
const lastAttempts = new WeakMap<object, Attempt>();

/** @internal Records, on an error a call rejects with, what its last attempt produced. */
export function recordAttempt<E extends object>(error: E, attempt: Attempt): E {
  lastAttempts.set(error, attempt);
  return error;
}

/**
 * What the last attempt of a finished call produced, read from the error the call rejected
 * with: for a caller that repeats calls itself (the batch sends each claim with `maxRetries: 0`
 * and asks {@link nextStep} with limits of its own). An error that no call of this SDK made is
 * read as an attempt the SDK refused: never repeated.
 */
export function attemptOfError(error: unknown): Attempt {
  // A WeakMap answers undefined for anything that is not an object it holds.
  return lastAttempts.get(error as object) ?? { kind: 'refused' };
}
