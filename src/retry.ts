/** Pure retry decisions: which failures may be repeated, and how long to wait. */

/** Longest `Retry-After` the SDK will wait; a longer ask makes it give up at once. */
export const MAX_RETRY_AFTER_MS = 60_000;
const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Error codes meaning the connection was never opened, so the server cannot have seen the
 * request: the only connection failures after which a POST may be repeated.
 */
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Codes of a TLS handshake that this client refused (the server's certificate did not verify):
 * the request was never written. Not a reason to repeat, since a repeat fails the same way.
 */
const TLS_REFUSED_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export type Failure = { kind: 'status'; status: number } | { kind: 'network'; notConnected: boolean };

/**
 * Whether an attempt that failed this way may be repeated.
 * GET and PATCH repeat on network failures and 408/429/5xx. POST has no idempotency key,
 * so a repeat could file a duplicate claim: it repeats only when the server provably did
 * not process it (no connection was opened, or it answered 429).
 */
export function shouldRetry(method: string, failure: Failure): boolean {
  if (method === 'POST') {
    return failure.kind === 'network' ? failure.notConnected : failure.status === 429;
  }
  return failure.kind === 'network' || RETRYABLE_STATUSES.has(failure.status);
}

/** True when an error (or one of its causes) says the connection was never opened. */
export function isNotConnected(error: unknown): boolean {
  return hasCode(error, NOT_CONNECTED_CODES);
}

/** True when nothing of the request can have been written: not connected, or TLS refused. */
export function isNeverSent(error: unknown): boolean {
  return hasCode(error, NOT_CONNECTED_CODES) || hasCode(error, TLS_REFUSED_CODES);
}

function hasCode(error: unknown, codes: ReadonlySet<string>): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * How long the server asked us to wait, in ms, from `retry-after-ms` or `Retry-After`
 * (seconds or an HTTP date). `undefined` when absent or malformed: a malformed header
 * must not disable retries, the default backoff applies instead.
 */
export function parseRetryAfter(headers: Record<string, string>, now = Date.now()): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers['retry-after'];
  // A shortcut only: a blank or absent header would come out `undefined` below as well.
  // Stryker disable next-line ConditionalExpression,MethodExpression,StringLiteral: equivalent, see above
  if (header === undefined || header.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Number(header) * 1000;
  // Only an HTTP date (it names a weekday and month) is read as one: Date.parse('-1') is a date too.
  if (!/[a-z]/i.test(header)) return undefined;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Exponential backoff, 0.5 s × 2ⁿ capped at 8 s, minus up to 25% jitter. */
export function backoffDelay(retryIndex: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_DELAY_MS * 2 ** retryIndex, MAX_DELAY_MS);
  return base * (1 - random() * 0.25);
}
