import { TokenRequestError } from '../auth/errors.js';
import { isTokenProviderFailure } from '../call-errors.js';
import type { ClaimsClientBase as ClaimsClient } from '../client.js';
import { ClaimsApiError, ClaimsConnectionError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { outcomeOf } from '../outcome.js';
import type { IncidentCreate } from '../schemas/incidents.js';
import { bounded } from './echo.js';
import type { JournalRecord } from './record.js';

/**
 * Sends one claim, once: no retry inside the SDK, so that the batch runner sees every 429 and
 * can slow the whole batch (it asks the call policy, `nextStep`, whether to send again), and so that the only network call is the POST itself (extended
 * fields were checked, and `{ file }` references uploaded, before the `sending` record).
 */
export async function postClaim(
  client: ClaimsClient,
  incident: IncidentCreate,
): Promise<{ incidentId: string; requestId: string | undefined }> {
  const { data, requestId } = await client.incidents
    .create(incident, { maxRetries: 0, checkExtendedFields: false })
    .withResponse();
  return { incidentId: data.incidentId, requestId };
}

/** A connection that could not be opened (refused, DNS, TLS, connect timeout): nothing was sent. */
export function isConnectionFailure(error: unknown): boolean {
  return error instanceof ClaimsConnectionError && outcomeOf(error) === 'not_sent';
}

/**
 * Answers that judge the caller or the route, not the claim: 401 and 403 (the token), 404 and
 * 405 (the address or method), and a 429 that outlasted every retry. A key refused so stays
 * sendable (`not_sent`, note `caller_refused`): the same claim goes through once the caller is
 * fixed. Every other 4xx (400, 409, 413, 422, ...) judges the claim itself: `rejected`.
 */
export const CALLER_REFUSALS: ReadonlySet<number> = new Set([401, 403, 404, 405, 429]);

/** Whether a failed POST was refused for the caller or the route (see {@link CALLER_REFUSALS}). */
export function isCallerRefusal(error: unknown): error is ClaimsApiError {
  return error instanceof ClaimsApiError && CALLER_REFUSALS.has(error.status);
}

/** Whether the refusal says the caller is not allowed (401, 403): every other claim would get it too. */
export function refusesEveryClaim(error: unknown): error is ClaimsApiError {
  return error instanceof ClaimsApiError && (error.status === 401 || error.status === 403);
}

/**
 * A POST that never left because the token provider gave no token, by whether waiting can
 * mend it:
 * - `'passing'`: the SDK's own provider could not reach its token endpoint (no connection, a
 *   timeout) or was told to come back later (408, 429, 5xx): the batch waits and tries again,
 *   as after a connection that could not be opened;
 * - `'lasting'`: the token endpoint refused the credentials (`invalid_client`,
 *   `invalid_grant`, `invalid_scope`, ...: any other 4xx), answered something that is no
 *   token, or a provider of yours threw or gave no usable token (the SDK cannot tell whether
 *   yours mends by itself: make it retry inside if it can): every other claim would fail the
 *   same, so the batch stops at once (`caller_refused`).
 * `undefined` when the failure is not the token provider's.
 */
export function tokenProviderFailure(error: unknown): 'passing' | 'lasting' | undefined {
  if (!isTokenProviderFailure(error)) return undefined;
  const cause = error.cause;
  if (!(cause instanceof TokenRequestError)) return 'lasting';
  if (cause.failure === 'connection' || cause.failure === 'timeout') return 'passing';
  // An `invalid_response` carries a 2xx status: it reads as lasting here too.
  const status = cause.status ?? 0;
  return status === 408 || status === 429 || status >= 500 ? 'passing' : 'lasting';
}

/** The longest `error` text a record keeps, in characters. */
export const MAX_RECORD_ERROR = 1_000;
/** The longest answer body a record keeps whole as `problems`, in characters of its JSON. */
export const MAX_PROBLEMS = 8_192;
/** How much of a longer body is kept, in characters of its JSON. */
const PROBLEMS_START = 2_048;

/**
 * An answer body as a record keeps it: whole up to {@link MAX_PROBLEMS} characters of JSON;
 * a longer one as `{ truncated: true, bytes, start }` (its size and its first characters), so
 * that 20 refusals with 1 MiB bodies do not make a 20 MiB journal and report.
 */
export function boundedProblems(body: unknown): unknown {
  if (body === undefined) return undefined;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (text.length <= MAX_PROBLEMS) return body;
  return { truncated: true, bytes: Buffer.byteLength(text), start: bounded(text, PROBLEMS_START) };
}

/** The final record of a POST that failed, from what the error says the server may have done. */
export function recordOfFailure(
  error: unknown,
  base: Pick<JournalRecord, 'key' | 'bodyHash' | 'at'>,
): JournalRecord {
  const message = bounded(errorMessage(error), MAX_RECORD_ERROR);
  const api = error instanceof ClaimsApiError ? error : undefined;
  const evidence = {
    ...(api?.requestId === undefined ? {} : { requestId: api.requestId }),
    ...(api === undefined ? {} : { status: api.status }),
  };
  // Refused for the caller or the route (a 429 that outlasted every retry among them): never
  // processed, and nothing said about the claim: it is sent on the next run.
  if (isCallerRefusal(error)) return { ...base, ...evidence, state: 'not_sent', error: message };
  switch (outcomeOf(error)) {
    case 'rejected':
      return {
        ...base,
        ...evidence,
        state: 'rejected',
        problems: boundedProblems(api?.body),
        error: message,
      };
    case 'not_sent':
      return { ...base, ...evidence, state: 'not_sent', error: message };
    default:
      // 'unknown', 'processed' (a 2xx without a usable incidentId: the claim exists, its id is
      // unknown) or a failure that is not the SDK's: the claim may exist.
      return { ...base, ...evidence, state: 'unknown', error: message };
  }
}
