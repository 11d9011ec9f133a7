import { ClaimsValidationError, type ValidationIssue } from '../errors.js';
import type { AccessTokenContext } from '../transport.js';
import {
  type ClientAuthentication,
  type IssuedToken,
  requestToken,
  type TokenFetch,
} from './token-request.js';

/** Options of {@link clientCredentials}. */
export interface ClientCredentialsOptions {
  /** The authorization server's token endpoint, e.g. `https://auth.example.com/oauth2/token`. */
  tokenUrl: string;
  /** The client id the authorization server issued to your application; sent as `client_id`. */
  clientId: string;
  /** Sent only to `tokenUrl`; never in an error, a log line or `util.inspect` of the provider. */
  clientSecret: string;
  /** Scope(s) to ask for; an array is joined with spaces. */
  scope?: string | readonly string[];
  /** The `audience` parameter some servers (Auth0, Okta) need. */
  audience?: string;
  /** Other form parameters to send, e.g. `{ resource: 'https://claims.example.com' }`. */
  extraParams?: Record<string, string>;
  /**
   * How the client proves who it is: HTTP Basic (`client_secret_basic`) or the id and secret
   * in the form body (`client_secret_post`).
   * @default 'client_secret_basic'
   */
  clientAuthentication?: ClientAuthentication;
  /** A fetch-compatible function for the token request. @default globalThis.fetch */
  fetch?: TokenFetch;
  /**
   * How long before the token expires a new one is fetched, in ms (at most half the token's
   * lifetime).
   * @default 60000
   */
  refreshAheadMs?: number;
  /**
   * Up to this many ms more are added at random to `refreshAheadMs`, once per token, so a
   * fleet of warm functions that got their tokens together does not refresh together.
   * @default 30000
   */
  refreshJitterMs?: number;
  /** Longest the token request may take, answer included, in ms. @default 10000 */
  timeoutMs?: number;
}

/**
 * A token provider for `ClaimsClient`'s `accessToken`: asks for the token `refresh` (the
 * transport passes `{ forceRefresh: true, refusedToken }` once after a 401).
 */
export type ClientCredentialsProvider = (context?: AccessTokenContext) => Promise<string>;

const DEFAULT_REFRESH_AHEAD_MS = 60_000;
const DEFAULT_REFRESH_JITTER_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** After a failed early refresh, the still-valid token is used this long before trying again. */
const RETRY_EARLY_REFRESH_AFTER_MS = 5_000;

interface CachedToken {
  value: string;
  /** Epoch ms when it stops being valid; `Infinity` when the endpoint gave no `expires_in`. */
  expiresAt: number;
  /** Epoch ms from which a new token is fetched (while this one is still sent until then). */
  refreshAt: number;
}

/**
 * An OAuth 2 client-credentials token provider (RFC 6749 §4.4). The token is fetched on first
 * use and cached until shortly before it expires (a token whose `expires_in` is 0 or less is
 * used for the calls that waited for it and never cached); concurrent calls share one
 * request; after a 401 (`forceRefresh`) a new token is fetched even if the cached one looks
 * valid, unless the refused token (`refusedToken`) was already replaced.
 *
 * Create it once, at module level, so that a warm serverless function reuses the token
 * across invocations.
 *
 * @example
 * const accessToken = clientCredentials({
 *   tokenUrl: 'https://auth.example.com/oauth2/token',
 *   clientId: process.env.CLAIMS_CLIENT_ID!,
 *   clientSecret: process.env.CLAIMS_CLIENT_SECRET!,
 *   scope: 'claims:write',
 * });
 * const client = new ClaimsClient({ baseUrl, accessToken });
 *
 * @throws ClaimsValidationError at once when an option is invalid.
 * The provider rejects with `TokenRequestError` when the endpoint gives no token.
 */
export function clientCredentials(options: ClientCredentialsOptions): ClientCredentialsProvider {
  checkOptions(options);
  const refreshAheadMs = options.refreshAheadMs ?? DEFAULT_REFRESH_AHEAD_MS;
  const refreshJitterMs = options.refreshJitterMs ?? DEFAULT_REFRESH_JITTER_MS;
  const request = {
    tokenUrl: options.tokenUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    clientAuthentication: options.clientAuthentication ?? 'client_secret_basic',
    params: formParams(options),
    // Looked up per request, not captured: a test or an APM agent may replace globalThis.fetch.
    fetch: options.fetch ?? ((url: string, init: RequestInit) => globalThis.fetch(url, init)),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };

  let cached: CachedToken | undefined;
  let inFlight: Promise<string> | undefined;
  let earlyRefreshNotBefore = 0;

  const fetchToken = (): Promise<string> => {
    // Single flight: every caller that needs a new token meanwhile shares this request.
    inFlight ??= requestToken(request)
      .then((issued) => {
        // A token that expired on arrival (expires_in 0 or less) serves the callers that
        // waited for it, and is never cached.
        cached =
          issued.expiresInMs === 0
            ? undefined
            : toCached(issued, Date.now(), refreshAheadMs, refreshJitterMs);
        return issued.accessToken;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  return async function clientCredentialsToken(context?: AccessTokenContext): Promise<string> {
    const now = Date.now();
    if (context?.forceRefresh) {
      const refused = context.refusedToken;
      // A 401 for a token already replaced (calls in flight when it was revoked come back one
      // by one): the newer token is the answer, not another request.
      if (
        refused !== undefined &&
        cached !== undefined &&
        cached.value !== refused &&
        now < cached.expiresAt
      ) {
        return cached.value;
      }
      // The server refused the cached token: never hand it out again. A request already in
      // flight yields a token newer than the refused one, so it is shared.
      cached = undefined;
      return fetchToken();
    }
    if (cached === undefined || now >= cached.expiresAt) return fetchToken();
    if (now < cached.refreshAt || (inFlight === undefined && now < earlyRefreshNotBefore))
      return cached.value;
    // In the refresh-ahead window: fetch now (one request for all callers), but a failure
    // need not fail the call while the cached token is still valid.
    const stillValid = cached;
    try {
      return await fetchToken();
    } catch (error) {
      if (Date.now() >= stillValid.expiresAt) throw error;
      earlyRefreshNotBefore = Date.now() + RETRY_EARLY_REFRESH_AFTER_MS;
      return stillValid.value;
    }
  };
}

function toCached(issued: IssuedToken, receivedAt: number, aheadMs: number, jitterMs: number): CachedToken {
  if (issued.expiresInMs === undefined) {
    // No lifetime given: used until the API refuses it (a 401 asks for a new one).
    return {
      value: issued.accessToken,
      expiresAt: Number.POSITIVE_INFINITY,
      refreshAt: Number.POSITIVE_INFINITY,
    };
  }
  const ahead = Math.min(aheadMs + Math.random() * jitterMs, issued.expiresInMs / 2);
  const expiresAt = receivedAt + issued.expiresInMs;
  return { value: issued.accessToken, expiresAt, refreshAt: expiresAt - ahead };
}

function formParams(options: ClientCredentialsOptions): Record<string, string> {
  const params: Record<string, string> = { ...options.extraParams };
  const scope = typeof options.scope === 'string' ? options.scope : options.scope?.join(' ');
  if (scope) params.scope = scope;
  if (options.audience) params.audience = options.audience;
  return params;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An https URL without user info; plain http only to this machine (a local sandbox): the secret travels in this request. */
function isTokenUrl(value: unknown): boolean {
  let url: URL;
  try {
    url = new URL(value as string);
  } catch {
    return false;
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  return secure && url.username === '' && url.password === '';
}

function checkOptions(options: ClientCredentialsOptions): void {
  const issues: ValidationIssue[] = [];
  if (!isTokenUrl(options?.tokenUrl)) {
    issues.push({
      path: 'tokenUrl',
      message: 'must be an https URL without user info (http only for localhost)',
    });
  }
  for (const name of ['clientId', 'clientSecret'] as const) {
    if (typeof options?.[name] !== 'string' || options[name] === '')
      issues.push({ path: name, message: 'must be a non-empty string' });
  }
  const scope = options?.scope;
  if (
    scope !== undefined &&
    typeof scope !== 'string' &&
    !(Array.isArray(scope) && scope.every((s) => typeof s === 'string'))
  ) {
    issues.push({ path: 'scope', message: 'must be a string or an array of strings' });
  }
  if (options?.audience !== undefined && typeof options.audience !== 'string')
    issues.push({ path: 'audience', message: 'must be a string' });
  const auth = options?.clientAuthentication;
  if (auth !== undefined && auth !== 'client_secret_basic' && auth !== 'client_secret_post')
    issues.push({
      path: 'clientAuthentication',
      message: "must be 'client_secret_basic' or 'client_secret_post'",
    });
  if (options?.fetch !== undefined && typeof options.fetch !== 'function')
    issues.push({ path: 'fetch', message: 'must be a fetch-compatible function' });
  for (const name of ['refreshAheadMs', 'refreshJitterMs'] as const) {
    const value = options?.[name];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      issues.push({ path: name, message: 'must be a whole number of ms, 0 or more' });
  }
  const timeout = options?.timeoutMs;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout >= 1 && timeout <= 2 ** 31 - 1))
    issues.push({ path: 'timeoutMs', message: 'must be a whole number of ms from 1 to 2147483647' });
  if (issues.length > 0) {
    throw new ClaimsValidationError(
      issues,
      `Invalid clientCredentials options: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
    );
  }
}
