import { ClaimsError } from '../errors.js';

/** What went wrong when asking the token endpoint for a token. */
export type TokenRequestFailure =
  /** The endpoint answered with an error status (see `status`, `error`, `errorDescription`). */
  | 'error_response'
  /**
   * A 2xx answer that is not a usable token response (not JSON, no `access_token`, not
   * Bearer), or a `fetch` of yours that resolved something that is not a Response (no `status`).
   */
  | 'invalid_response'
  /** No answer: connection refused or reset, DNS failure. */
  | 'connection'
  /** No complete answer within `timeoutMs`. */
  | 'timeout';

/** What a {@link TokenRequestError} is built from. */
export interface TokenRequestErrorInit {
  /** Which kind of failure this is; becomes the error's `failure`. */
  failure: TokenRequestFailure;
  /** The token endpoint asked, e.g. `'https://auth.example.com/oauth2/token'`. */
  tokenUrl: string;
  /** HTTP status of the endpoint's answer; omit when there was none. */
  status?: number;
  /** The endpoint's `error` code (RFC 6749 §5.2), e.g. `'invalid_client'`. */
  error?: string;
  /** The endpoint's `error_description`, already redacted: it is stored as given. */
  errorDescription?: string;
  /** The underlying failure (a connection error, a parse error), kept as the error's `cause`. */
  cause?: unknown;
}

/**
 * The token endpoint gave no token. Carries the endpoint's own `error` / `error_description`
 * (RFC 6749 §5.2) when it sent them, with the client secret and any token in them redacted;
 * the secret is in no message, field or cause.
 */
export class TokenRequestError extends ClaimsError {
  override name = 'TokenRequestError';
  /** Which kind of failure this is. */
  readonly failure: TokenRequestFailure;
  /** The token endpoint asked. */
  readonly tokenUrl: string;
  /** HTTP status of the endpoint's answer; `undefined` when there was none. */
  readonly status: number | undefined;
  /** The endpoint's `error` code, e.g. `invalid_client`, `invalid_scope`. */
  readonly error: string | undefined;
  /** The endpoint's `error_description`, redacted. */
  readonly errorDescription: string | undefined;

  constructor(message: string, init: TokenRequestErrorInit) {
    // ClaimsError gives the Error a cause only when there is one.
    super(message, { cause: init.cause });
    this.failure = init.failure;
    this.tokenUrl = init.tokenUrl;
    this.status = init.status;
    this.error = init.error;
    this.errorDescription = init.errorDescription;
  }
}
