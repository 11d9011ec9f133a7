/**
 * The errors a call rejects with, each built once, here, with its final message, fields and
 * outcome (the call policy's), and never changed afterwards. A message is
 * `<METHOD> <url>: <what happened>` (the URL as `describeUrl` shows it: credentials in its
 * query redacted, cut), and an `'unknown'` one says that the request may have been
 * processed (see `withOutcomeNote`, the one place that says it).
 */
import { type Attempt, recordAttempt } from './call-policy.js';
import {
  abortError,
  type CallDescription,
  type ClaimsApiError,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  errorFromResponse,
} from './errors.js';
import type { ErrorAnswer } from './internal/answer.js';
import type { CallSignal } from './internal/call-signal.js';
import { describeUrl } from './internal/describe.js';
import type { Redactor } from './internal/redact.js';
import type { Outcome } from './outcome.js';
import type { WireFailure } from './wire/failure.js';

/**
 * The error of a call whose last attempt failed as `failure` says: no usable answer, or a body
 * that broke off or stalled (a connection or timeout error), a 2xx body that could not be
 * decoded (a response validation error: the server acted), or a refusal of the SDK before sending. Whatever in it
 * quotes the token is redacted first (a user's `fetch` may quote the request).
 */
export function failureError(
  failure: WireFailure,
  call: CallDescription,
  outcome: Outcome,
  attempt: Attempt,
  redactor: Redactor,
): Error {
  const cause = redactor.error(failure.cause);
  const detail = redactor.text(failure.message);
  let error: Error;
  switch (failure.kind) {
    case 'decode':
      error = new ClaimsResponseValidationError(
        undefined,
        [{ path: '', message: detail }],
        `${call.method} ${describeUrl(call.url)}`,
        { cause },
      );
      break;
    case 'refused':
      error = new ClaimsError(detail, { cause, outcome });
      break;
    default: {
      const Class =
        failure.kind === 'timeout' || failure.kind === 'body_timeout'
          ? ClaimsTimeoutError
          : ClaimsConnectionError;
      error = new Class(`${call.method} ${describeUrl(call.url)}: ${detail}`, { cause, outcome, ...call });
    }
  }
  return recordAttempt(error, attempt);
}

/** The errors {@link tokenError} made: see {@link isTokenProviderFailure}. */
const tokenErrors = new WeakSet<object>();

/** What the token provider's failure is said as. */
export function tokenError(message: string, cause: unknown, outcome: Outcome): ClaimsError {
  const error = new ClaimsError(message, { cause, outcome });
  tokenErrors.add(error);
  // Its attempt is what attemptOfError gives any error no attempt was recorded for: refused.
  return error;
}

/**
 * Whether a call failed because its token provider gave no usable token (it threw, or gave no
 * token or one a header cannot carry): nothing was sent. Its `cause` is the provider's error.
 */
export function isTokenProviderFailure(error: unknown): error is ClaimsError {
  // A WeakSet answers false for anything that is not an object it holds.
  return tokenErrors.has(error as object);
}

/** The message of a call past its deadline. */
export function deadlineMessage(deadlineMs: number): string {
  return `Deadline passed: the call did not finish within deadlineMs (${deadlineMs} ms)`;
}

/**
 * The error of a call its signal stopped: the caller's `AbortError`, or a `ClaimsTimeoutError`
 * naming the deadline or the phase that stalled, the last attempt's error as `cause` when the
 * call stopped between attempts.
 */
export function stoppedError(
  signal: CallSignal,
  timeoutMs: number,
  outcome: Outcome,
  call: CallDescription,
): Error {
  const attempt: Attempt = { kind: 'stopped', phase: outcome };
  if (signal.stopped === 'aborted') return recordAttempt(abortError(signal.reason, outcome), attempt);
  const cause =
    signal.reason instanceof Error && signal.reason.name !== 'CallStopped' ? signal.reason : undefined;
  const what =
    signal.stopped === 'deadline'
      ? deadlineMessage(signal.deadlineMs)
      : `Request timed out: ${signal.idlePhase} made no progress for ${timeoutMs} ms`;
  return recordAttempt(
    new ClaimsTimeoutError(`${call.method} ${describeUrl(call.url)}: ${what}`, { cause, outcome, ...call }),
    attempt,
  );
}

/** The `ClaimsApiError` (of the status's class) of a call whose last attempt was answered so. */
export function answerError(
  answer: ErrorAnswer,
  call: CallDescription,
  outcome: Outcome,
  attempt: Attempt,
): ClaimsApiError {
  return recordAttempt(errorFromResponse({ ...answer, ...call, outcome }), attempt);
}
