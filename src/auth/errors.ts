import { ClaimsError } from '../errors.js';

/** What went wrong when asking the token endpoint for a token. */
export type TokenRequestFailure =
  /** The endpoint answered with an error status (see `status`, `error`, `errorDescription`). */
  | 'error_response'
  /** A 2xx answer that is not a usable token response (not JSON, no `access_token`, not Bearer). */
  | 'invalid_response'
  /** No answer: connection refused or reset, DNS failure. */
  | 'connection'
  /** No complete answer within `timeoutMs`. */
  | 'timeout';

/** What a {@link TokenRequestError} is built from. */
export interface TokenRequestErrorInit {
  failure: TokenRequestFailure;
  tokenUrl: string;
  status?: number;
  error?: string;
  errorDescription?: string;
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
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.failure = init.failure;
    this.tokenUrl = init.tokenUrl;
    this.status = init.status;
    this.error = init.error;
    this.errorDescription = init.errorDescription;
  }
}
