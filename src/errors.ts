import { describeIssues, describeUrl, summariseBody } from './internal/describe.js';
import { boundMessage } from './internal/quote.js';
import { markOutcome, type Outcome, outcomeOf, withOutcomeNote } from './outcome.js';

/** What every SDK error may be built with. */
export interface ClaimsErrorOptions {
  /** The underlying error. */
  cause?: unknown;
  /** What the server may have done; each class has its own default. */
  outcome?: Outcome;
}

/**
 * Every error the SDK throws (apart from a user's own abort, which is the platform's
 * `AbortError`) extends {@link ClaimsError}.
 */
export class ClaimsError extends Error {
  /**
   * The class's name, e.g. `'NotFoundError'`: set by every class, so it survives minification
   * and shows in logs and `JSON.stringify(error)`.
   */
  override name = 'ClaimsError';

  /**
   * @param message what happened, made safe to print (control characters escaped, cut to
   *   2,000 characters); an `'unknown'` error's message also says that the request may have
   *   been processed (added when it does not).
   */
  constructor(message: string, options: ClaimsErrorOptions = {}) {
    const outcome = options.outcome ?? 'not_sent';
    super(
      withOutcomeNote(boundMessage(message), outcome),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    markOutcome(this, outcome);
  }

  /**
   * What the server may have done with the call: `'not_sent'` (safe to send again),
   * `'rejected'` (a 4xx: it refused), `'unknown'` (it **may have acted**: a claim may exist),
   * `'processed'` (a 2xx whose answer is unusable). See docs/calls-and-errors.md, "Errors".
   */
  get outcome(): Outcome {
    // Set by the constructor, for good.
    return outcomeOf(this) as Outcome;
  }

  /**
   * What `JSON.stringify(error)` gives: `name`, `message`, `outcome` and the error's own
   * documented fields (`status`, `requestId`, `method`, `url`, `body`, `issues`, …). Not
   * `stack` or `cause`: a cause is someone else's error, and nothing here may carry the token.
   */
  toJSON(): Record<string, unknown> {
    // The own enumerable fields are the documented ones (`name` among them, written again in its
    // place); `stack` and `cause` never are (test/errors.test.ts holds it for every class).
    const json: Record<string, unknown> = { name: this.name, message: this.message, outcome: this.outcome };
    for (const [key, value] of Object.entries(this)) json[key] = value;
    return json;
  }
}

/**
 * Marks every `ClaimsError`, so `isClaimsError` also recognises errors of the other build
 * (the ESM and CommonJS builds each have their own class, and `instanceof` sees only one).
 */
const CLAIMS_ERROR_BRAND = Symbol.for('claims-notification-sdk.error');
Object.defineProperty(ClaimsError.prototype, CLAIMS_ERROR_BRAND, { value: true });

/** One problem with a request argument or body, found before anything was sent. */
export interface ValidationIssue {
  /** Where the problem is, e.g. `attachments[0].url`, `webhookId`, `extendedFields[2]`. */
  path: string;
  /** What is wrong, in words a person can act on. */
  message: string;
  /** A machine-readable kind, where one exists (e.g. `not_in_list` for extended fields). */
  code?: string;
}

/** A request argument or body is invalid. Nothing was sent. */
export class ClaimsValidationError extends ClaimsError {
  override name = 'ClaimsValidationError';
  /** Every problem found, each with the `path` of the argument or field and a `message`. */
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[], message = describeIssues('Invalid request', issues)) {
    super(message);
    this.issues = issues;
  }
}

/** A 2xx answer lacks what the spec promises (for example no `incidentId`). */
export class ClaimsResponseValidationError extends ClaimsError {
  override name = 'ClaimsResponseValidationError';
  /** The answer's body as parsed (JSON), or its text when it was not JSON. */
  readonly body: unknown;
  /** What the answer lacks, each with the `path` in the body and a `message`. */
  readonly issues: ValidationIssue[];

  /**
   * @param context the call, `<METHOD> <url>`.
   * @param options `cause`: the platform's error, when the body broke off or could not be decoded.
   */
  constructor(
    body: unknown,
    issues: ValidationIssue[],
    context: string,
    options: Pick<ClaimsErrorOptions, 'cause'> = {},
  ) {
    // A 2xx came: the server acted, whatever is wrong with what it said.
    super(describeIssues(`Unexpected response from ${context}`, issues), {
      ...options,
      outcome: 'processed',
    });
    this.body = body;
    this.issues = issues;
  }
}

/** What a connection or timeout error is built with: the options of every error, and the call's. */
export interface ClaimsConnectionErrorOptions extends ClaimsErrorOptions, Partial<CallDescription> {}

/**
 * No usable HTTP answer was received: connection refused or reset, DNS failure, socket error,
 * an answer that is not HTTP. `outcome` is `'not_sent'` when nothing of the request can have
 * been written (the connection was never opened), else `'unknown'` (the default).
 */
export class ClaimsConnectionError extends ClaimsError {
  override name = 'ClaimsConnectionError';
  /** HTTP method of the failed call; set on every error a call rejects with. */
  readonly method: string | undefined;
  /** Full URL of the failed call; set on every error a call rejects with. */
  readonly url: string | undefined;
  /** How many requests the call made (first attempt and retries); set on every error a call rejects with. */
  readonly attempts: number | undefined;

  constructor(message: string, options: ClaimsConnectionErrorOptions = {}) {
    super(message, { ...options, outcome: options.outcome ?? 'unknown' });
    this.method = options.method;
    this.url = options.url;
    this.attempts = options.attempts;
  }
}

/**
 * The call ran out of time: one attempt (or the token provider, or the upload's source) went
 * longer than `timeoutMs` without progress, or the whole call passed `deadlineMs`.
 */
export class ClaimsTimeoutError extends ClaimsConnectionError {
  override name = 'ClaimsTimeoutError';
}

/** Which call an error came from. */
export interface CallDescription {
  /** The HTTP method, upper case, e.g. `'POST'`. */
  method: string;
  /** The full URL requested, with query string, e.g. `'https://claims.example.com/api/incidents'`. */
  url: string;
  /** Requests made: the first attempt and its retries (0 when none was made). */
  attempts: number;
}

/**
 * The platform's `AbortError` of a call stopped by its caller's signal, with the signal's
 * reason as `cause` (none when it has none) and the call's outcome. A fresh one per call, never
 * the signal's own reason: calls sharing one signal may each have a different outcome, and the
 * caller's object is not ours to mark.
 */
export function abortError(reason: unknown, outcome: Outcome): Error {
  const error = new DOMException(withOutcomeNote('The operation was aborted', outcome), 'AbortError');
  if (reason !== undefined) Object.defineProperty(error, 'cause', { value: reason, configurable: true });
  return markOutcome(error, outcome);
}

/** What an API error was built from. */
export interface ApiErrorInit {
  /** HTTP status code of the answer, 400 or more. */
  status: number;
  /** The answer's body: parsed JSON, or text. */
  body: unknown;
  /** The answer's headers, lower-cased names. */
  headers: Record<string, string>;
  /** HTTP method of the request, e.g. `'POST'`. */
  method: string;
  /** Full URL of the request. */
  url: string;
  /** How many requests the call made, this one included. @default 1 */
  attempts?: number;
  /**
   * What the server may have done with the call. @default from the status: `'rejected'` for
   * 4xx, `'unknown'` otherwise
   */
  outcome?: Outcome;
}

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid'];

/** The server's request id, from `x-request-id` or a similar header (lower-case names). */
export function requestIdOf(headers: Record<string, string>): string | undefined {
  return REQUEST_ID_HEADERS.map((name) => headers[name]).find((v) => v !== undefined);
}

/** The server answered with a status of 400 or more. */
export class ClaimsApiError extends ClaimsError {
  override name = 'ClaimsApiError';
  /** HTTP status code of the answer. */
  readonly status: number;
  /** The answer's body: parsed JSON when it was JSON, else its text (possibly truncated). */
  readonly body: unknown;
  /** The answer's headers, lower-cased names. */
  readonly headers: Record<string, string>;
  /** The server's request id, from `x-request-id` or a similar header, when present. */
  readonly requestId: string | undefined;
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Full URL of the failed request. */
  readonly url: string;
  /** How many requests the call made (first attempt and retries), this answer's included. */
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    // A 4xx is a refusal; a 5xx (or an unfollowed 3xx) may come after the server acted.
    super(`${init.status} ${init.method} ${describeUrl(init.url)}${summariseBody(init.body)}`, {
      outcome: init.outcome ?? (init.status >= 400 && init.status < 500 ? 'rejected' : 'unknown'),
    });
    this.attempts = init.attempts ?? 1;
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers;
    this.method = init.method;
    this.url = init.url;
    this.requestId = requestIdOf(init.headers);
  }
}

/** 400 Bad Request. */
export class BadRequestError extends ClaimsApiError {
  override name = 'BadRequestError';
}
/** 401 Unauthorized: the token is missing, wrong or expired. */
export class AuthenticationError extends ClaimsApiError {
  override name = 'AuthenticationError';
}
/** 403 Forbidden. */
export class PermissionDeniedError extends ClaimsApiError {
  override name = 'PermissionDeniedError';
}
/** 404 Not Found, e.g. an unknown incident or webhook id. */
export class NotFoundError extends ClaimsApiError {
  override name = 'NotFoundError';
}
/** 409 Conflict. */
export class ConflictError extends ClaimsApiError {
  override name = 'ConflictError';
}
/** 422 Unprocessable Entity: the server's own validation failed. */
export class UnprocessableEntityError extends ClaimsApiError {
  override name = 'UnprocessableEntityError';
}
/** 429 Too Many Requests. */
export class RateLimitError extends ClaimsApiError {
  override name = 'RateLimitError';
}
/** A status of 500 or more. */
export class InternalServerError extends ClaimsApiError {
  override name = 'InternalServerError';
}

const BY_STATUS: Record<number, typeof ClaimsApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** Builds the most specific API error class for a status (openai's `APIError.generate`). */
export function errorFromResponse(init: ApiErrorInit): ClaimsApiError {
  const ErrorClass = init.status >= 500 ? InternalServerError : (BY_STATUS[init.status] ?? ClaimsApiError);
  return new ErrorClass(init);
}

/**
 * True for any error thrown by this SDK, from either of its builds: an error thrown by the
 * CommonJS build is recognised by the ESM build's `isClaimsError` and the other way round.
 */
export function isClaimsError(error: unknown): error is ClaimsError {
  return (
    error instanceof ClaimsError ||
    (typeof error === 'object' &&
      error !== null &&
      (error as { [CLAIMS_ERROR_BRAND]?: unknown })[CLAIMS_ERROR_BRAND] === true)
  );
}

/**
 * The one wording of a list of validation issues (see `internal/describe.ts`): bounded, the
 * error's `issues` keeping every one.
 */
export { describeIssues };

/** Why a webhook delivery was refused by `verifyWebhook` / `receiveWebhook`. */
export type WebhookVerificationReason = 'missing_header' | 'invalid_header' | 'invalid_body';

/**
 * A webhook delivery failed verification: its extra header was missing or wrong, or its body
 * was not the expected JSON, was larger than the cap, or was cut off by the sender (all three
 * `invalid_body`). Answer such a request with 401 (header) or 400 (body).
 */
export class WebhookVerificationError extends ClaimsError {
  override name = 'WebhookVerificationError';
  /** `missing_header`, `invalid_header` (answer 401) or `invalid_body` (answer 400). */
  readonly reason: WebhookVerificationReason;
  /** What was wrong with the body, for `invalid_body`. */
  readonly issues: ValidationIssue[];

  constructor(
    reason: WebhookVerificationReason,
    message: string,
    issues: ValidationIssue[] = [],
    options?: {
      /** The underlying failure (e.g. the body's JSON parse error), kept as `cause`. */
      cause?: unknown;
    },
  ) {
    super(message, options);
    this.reason = reason;
    this.issues = issues;
  }
}

/**
 * The error of a call whose earlier step failed (the metadata look-up or the `{ file }` upload
 * before a create): the step's error restated for the call. Same class and fields, so a caller
 * that checks `instanceof NotFoundError` or `status` still can; a message that says what it means
 * for the call; the step's own error as `cause`; and the call's outcome (the claim was not sent,
 * whatever the step's own). The step's error is copied, not changed.
 */
export function restate(error: unknown, message: string, outcome: Outcome): Error {
  // The caller's own abort stays the AbortError it expects, now with the call's outcome.
  if (error instanceof Error && error.name === 'AbortError') return abortError(error.cause, outcome);
  if (!isClaimsError(error)) return new ClaimsError(message, { cause: error, outcome });
  const copy = Object.create(Object.getPrototypeOf(error) as object) as ClaimsError;
  Object.assign(copy, error);
  const hidden = { configurable: true, writable: true, enumerable: false } as const;
  Object.defineProperty(copy, 'message', { ...hidden, value: boundMessage(message) });
  Object.defineProperty(copy, 'cause', { ...hidden, value: error });
  // A plain Error's stack begins with "Error": the class's name goes there.
  const stack = (new Error(copy.message).stack as string).replace('Error', copy.name);
  Object.defineProperty(copy, 'stack', { ...hidden, value: stack });
  return markOutcome(copy, outcome);
}
