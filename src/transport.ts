import { answerError, deadlineMessage, failureError, stoppedError, tokenError } from './call-errors.js';
import {
  type Attempt,
  attemptOutcome,
  type CallState,
  callOutcome,
  MAX_RETRY_AFTER_MS,
  nextStep,
  parseRetryAfter,
  recordAttempt,
} from './call-policy.js';
import type { ResponseSink } from './claims-promise.js';
import { ClaimsResponseValidationError, ClaimsTimeoutError, ClaimsValidationError } from './errors.js';
import { type ErrorAnswer, type ResponseSchema, readErrorAnswer, readSuccess } from './internal/answer.js';
import { CallSignal, STOPPED } from './internal/call-signal.js';
import { errorMessage, providerFailure } from './internal/error-message.js';
import { mergeHeaders } from './internal/headers.js';
import { callOptionIssues, isSendableToken } from './internal/options.js';
import type { WatchBody } from './internal/progress.js';
import { excerpt } from './internal/quote.js';
import { redactorFor } from './internal/redact.js';
import { collectIssues, type Schema, throwIfInvalid } from './internal/validate.js';
import { logAttemptEnd, logAttemptStart, logRetry, logUrl, RequestLog } from './logger.js';
import type { Outcome } from './outcome.js';
import type { CallSpan, TraceCall } from './telemetry/types.js';
import { WireFailure } from './wire/failure.js';
import type { StreamedBody, Wire, WireResponse } from './wire/types.js';

/** Options every SDK method takes as its last argument. */
export interface CallOptions {
  /** Aborts the call, including a wait between retries; it then rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Longest time one attempt may go without progress, in ms. @default the client's `timeoutMs` */
  timeoutMs?: number;
  /**
   * Longest time the whole call may take, in ms: every attempt, the waits between them, the
   * token provider and reading the answer. Past it the call rejects with `ClaimsTimeoutError`.
   * @default the client's `deadlineMs`
   */
  deadlineMs?: number;
  /** How many times a failed attempt may be repeated (see docs/calls-and-errors.md, "Retries"). @default the client's `maxRetries` */
  maxRetries?: number;
  /**
   * Extra headers for this call; they win over the client's `headers`. Headers the SDK or the
   * connection own (`authorization`, `content-type`, `content-length`, `host`, `connection`,
   * `transfer-encoding`, `expect`, `upgrade`, `proxy-*`, …) are refused with
   * `ClaimsValidationError` (see docs/calls-and-errors.md, "Headers you cannot set").
   */
  headers?: Record<string, string>;
}

/** What the transport tells a token provider when it asks for a token. */
export interface AccessTokenContext {
  /**
   * True when the API has just refused the token with 401 and the request will be sent once
   * more: a provider that caches must return a new token, not the cached one.
   */
  forceRefresh: boolean;
  /**
   * With `forceRefresh`: the token the API refused. A provider that shares its token among
   * many calls refreshes only when it still holds this one (calls in flight when a token was
   * revoked come back with 401 one by one; the first one's refresh serves them all).
   */
  refusedToken?: string;
}

/**
 * A token, or a function giving one; the function is asked again once after a 401, then with
 * `{ forceRefresh: true, refusedToken }`. A function that takes no argument works as well.
 */
export type AccessTokenProvider = (context?: AccessTokenContext) => string | Promise<string>;

/** A streamed request body (multipart upload), opened anew for each attempt. */
export interface StreamBody {
  open(): Promise<{ stream: StreamedBody; headers: Record<string, string> }>;
  /** False when the source can be read only once (a caller's stream): then no repeat. */
  replayable: boolean;
}

/** What a resource asks the transport to do. */
export interface RequestSpec<T> {
  method: 'GET' | 'POST' | 'PATCH';
  /** Path below the base URL, ids already encoded with the `path` tag. */
  path: string;
  /**
   * The path as the API documents it, ids as placeholders (`/incidents/{incidentId}/events`):
   * names the call's span. @default `path`
   */
  route?: string;
  query?: Record<string, string>;
  /** Arguments to validate before sending, by name: `[schema, value]`. */
  params?: Record<string, readonly [Schema, unknown]>;
  /** A JSON body, sent as it is: the resource validated it already. */
  body?: unknown;
  stream?: StreamBody;
  /** Validates (and types) the answer. Without it the parsed JSON or `undefined` is returned. */
  responseSchema?: ResponseSchema<T>;
  /** `'none'`: the call resolves to `undefined` (the body must still be empty or JSON). */
  responseBody?: 'none';
}

export interface TransportConfig {
  baseUrl: string;
  accessToken: string | AccessTokenProvider;
  timeoutMs: number;
  deadlineMs: number;
  maxRetries: number;
  headers: Record<string, string>;
  userAgent: string;
  /** Largest 2xx body read, in bytes; a longer one is a `ClaimsResponseValidationError`. */
  maxResponseBytes: number;
  wire: Wire;
  /** Where attempts and retries are logged; off when absent. */
  log?: RequestLog;
  /**
   * OpenTelemetry's seam (`traceCall` of src/telemetry), given by the Node entry only: the edge
   * build must not reach `import('@opentelemetry/api')`, which bundlers and workerd refuse
   * where the optional peer is absent. Calls are untraced without it.
   */
  trace?: TraceCall;
  /** Watches a streamed body for progress (the platform's: Node or web streams). */
  watchBody: WatchBody;
}

/** The client's limits for the call policy (see call-policy.ts). */
const CLIENT_LIMITS = { maxRetryAfterMs: MAX_RETRY_AFTER_MS, longerWait: 'fail' } as const;

/** Said by the log line and span event of each step the policy takes before sending again. */
const RESEND_REASON = {
  resend_fresh: [
    'a dead kept-alive connection, nothing written (now on a fresh connection)',
    'dead connection',
  ],
  resend_new_token: ['401 (token provider asked again)', '401'],
} as const;

/**
 * The one path every request takes: URL, headers and bearer token, validation, the attempts
 * (what follows each is the call policy's: src/call-policy.ts), and parsing of the answer into
 * a value or the call's one error (src/call-errors.ts).
 */
export class Transport {
  readonly #config: TransportConfig;
  readonly #baseHeaders: Record<string, string>;
  readonly #log: RequestLog;
  /** The base URL split once: `https://host:port` and the path prefix (no trailing slash). */
  readonly #origin: string;
  readonly #basePath: string;
  /**
   * With a static token and no per-call headers, every request carries one of these two
   * header sets: built once and shared (read-only) by all requests, not copied per call.
   */
  readonly #staticHeaders: { json: Record<string, string>; none: Record<string, string> } | undefined;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#log = config.log ?? RequestLog.off;
    const base = new URL(config.baseUrl);
    this.#origin = base.origin;
    // The client hands over its base URL without trailing slashes: at most the root's one is left.
    this.#basePath = base.pathname === '/' ? '' : base.pathname;
    this.#baseHeaders = mergeHeaders(
      { accept: 'application/json', 'user-agent': config.userAgent },
      config.headers,
    );
    if (typeof config.accessToken === 'string') {
      // Frozen: they are handed to every request, so no wire or user fetch may change them.
      const none = Object.freeze({ ...this.#baseHeaders, authorization: `Bearer ${config.accessToken}` });
      const json = Object.freeze({ ...none, 'content-type': 'application/json' });
      this.#staticHeaders = { none, json };
    }
  }

  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /**
   * Validates, sends (with retries) and parses one call. `sink`, when given, gets the answer
   * the call resolved with (for `.withResponse()`).
   */
  request<T>(spec: RequestSpec<T>, options: CallOptions = {}, sink?: ResponseSink): Promise<T> {
    // OpenTelemetry (src/telemetry): without a registered tracer provider, one property read.
    const traced = this.#config.trace?.(spec.method, spec.route ?? spec.path);
    return traced
      ? traced((span) => this.#request(spec, options, sink, span))
      : this.#request(spec, options, sink);
  }

  async #request<T>(
    spec: RequestSpec<T>,
    options: CallOptions,
    sink: ResponseSink | undefined,
    span?: CallSpan,
  ): Promise<T> {
    if (
      // Stryker disable next-line ConditionalExpression: checking options that are all absent finds nothing: the test only saves the work
      options.timeoutMs !== undefined ||
      options.deadlineMs !== undefined ||
      options.maxRetries !== undefined ||
      options.headers !== undefined
    ) {
      throwIfInvalid(callOptionIssues(options));
    }
    const body = validateSpec(spec);
    const config = this.#config;
    const method = spec.method;
    const path = this.#path(spec);
    const url = this.#origin + path;
    // The shared set is never written to: `authorization` is already in it, and a stream
    // (whose headers are added per attempt) always gets a copy of its own.
    const shared = options.headers || spec.stream ? undefined : this.#staticHeaders;
    let headers: Record<string, string>;
    if (shared) headers = body === undefined ? shared.none : shared.json;
    else {
      headers = mergeHeaders(this.#baseHeaders, options.headers);
      if (body !== undefined) headers['content-type'] = 'application/json';
    }
    const timeoutMs = options.timeoutMs ?? config.timeoutMs;
    // The call's own signal: the caller's abort, the deadline and stalls all end the call
    // through it, on every attempt and every wait, with one listener on the caller's signal.
    const signal = new CallSignal(options.deadlineMs ?? config.deadlineMs, options.signal);

    const log = this.#log;
    const wire = span ? span.wire(config.wire) : config.wire;
    // Where the call stands for the policy; made by the first attempt that fails (most never do).
    let state: CallState | undefined;
    // The token a 401 refused: the provider is asked for another and may quote it when it fails.
    let refusedToken: string | undefined;
    let freshConnection = false;
    // What the attempt under way may have done, for an error of a call stopped meanwhile.
    let phase: Outcome = 'not_sent';
    // Requests made so far, for the error and the logs.
    let attempts = 0;
    try {
      // Each pass is one attempt; every step that goes round again sets `phase` back to 'not_sent'.
      for (;;) {
        if (signal.aborted) throw STOPPED;
        // A static token needs no await: one promise and microtask less per request.
        const source = config.accessToken;
        const token =
          typeof source === 'string' ? source : await this.#token(refusedToken, signal, timeoutMs, state);
        if (!shared) headers.authorization = `Bearer ${token}`;
        let wireBody: string | StreamedBody | undefined = body;
        if (spec.stream) {
          const opening = spec.stream.open();
          const opened = await signal.race(opening).catch((error: unknown) => {
            // Stopped while the source was being opened: close it once it is open.
            opening.then(
              ({ stream }) => stream.destroy(),
              () => undefined,
            );
            throw error;
          });
          Object.assign(headers, opened.headers);
          wireBody = config.watchBody(opened.stream, signal, timeoutMs);
        }
        // The token provider and the upload's open() may have taken a while: an abort meanwhile
        // means nothing may be sent.
        if (signal.aborted) {
          // Stryker disable next-line ConditionalExpression: destroy() of a string body (or none) throws a TypeError, which the call's catch replaces, as it does STOPPED, with the stopped call's error
          if (typeof wireBody === 'object') wireBody.destroy();
          throw STOPPED;
        }
        attempts++;
        // Logging off costs one boolean read per point: no object or string is built.
        if (log.debugOn) logAttemptStart(log, { method, url, attempt: attempts, headers }, wireBody, token);
        const started = log.debugOn ? performance.now() : 0;

        let response: WireResponse | undefined;
        let attempt: Attempt;
        let failure: WireFailure | undefined;
        const fresh = freshConnection;
        freshConnection = false;
        phase = 'unknown';
        try {
          response = await wire({
            url,
            origin: this.#origin,
            path,
            method,
            headers,
            body: wireBody,
            signal,
            timeoutMs,
            freshConnection: fresh,
          });
          // Only 2xx is success: a 3xx is not followed (the API documents none, and following
          // one would send a claim again), so it is an error like any other answer.
          // (A final answer's status is 200 or more: undici and fetch handle 1xx themselves.)
          if (response.status < 300) {
            phase = 'processed';
            const value = await readSuccess(spec, response, {
              method,
              url,
              token,
              maxResponseBytes: config.maxResponseBytes,
            });
            if (log.debugOn)
              logAttemptEnd(log, { method, url, attempt: attempts, token }, response.status, started);
            sink?.answered(response, token);
            return value;
          }
        } catch (error) {
          if (typeof wireBody === 'object') wireBody.destroy();
          if (signal.aborted) throw error;
          if (error instanceof ClaimsResponseValidationError) {
            throw recordAttempt(error, { kind: 'unusable' });
          }
          failure = error instanceof WireFailure ? error : asFailure(error);
          if (log.debugOn) logAttemptEnd(log, { method, url, attempt: attempts, token }, failure, started);
        }

        let answer: ErrorAnswer | undefined;
        if (failure) {
          attempt = phase === 'processed' ? bodyAttempt(failure) : failureAttempt(failure);
        } else {
          const status = (response as WireResponse).status;
          // What an abort while this answer is read leaves: the table's outcome of the answer.
          phase = attemptOutcome({ kind: 'answer', status, retryAfterMs: undefined });
          // An error answer may come before the upload was all read (an early 429): stop sending it,
          // before reading the answer, which a caller's abort may cut short.
          if (typeof wireBody === 'object') wireBody.destroy();
          answer = await readErrorAnswer(response as WireResponse, {
            method,
            url,
            token,
            maxResponseBytes: config.maxResponseBytes,
          });
          if (log.debugOn) logAttemptEnd(log, { method, url, attempt: attempts, token }, status, started);
          attempt = { kind: 'answer', status, retryAfterMs: parseRetryAfter(answer.headers) };
        }

        state ??= {
          method,
          retries: 0,
          // A one-shot stream body cannot be sent a second time.
          replayable: spec.stream?.replayable !== false,
          freshResendUsed: false,
          newTokenUsed: false,
          tokenProvider: typeof config.accessToken === 'function',
          earlierMayHaveActed: false,
        };
        const step = nextStep(attempt, state, {
          ...CLIENT_LIMITS,
          maxRetries: options.maxRetries ?? config.maxRetries,
        });
        const call = { method, url, attempts };
        if (step.next === 'fail') {
          if (step.refusedWaitMs !== undefined && log.warnOn) {
            log.warn(
              `claims-sdk: not retrying ${method} ${logUrl(url)} after ${(answer as ErrorAnswer).status}: the server asked to wait ${Math.round(step.refusedWaitMs)} ms (more than ${MAX_RETRY_AFTER_MS} ms)`,
              undefined,
              token,
            );
          }
          throw answer
            ? answerError(answer, call, step.outcome, attempt)
            : failureError(failure as WireFailure, call, step.outcome, attempt, redactorFor(token));
        }
        state = step.state;
        phase = 'not_sent';
        const ref = { method, url, attempt: attempts, token };
        if (step.next === 'retry') {
          const reason = answer ? String(answer.status) : (failure as WireFailure).name;
          if (log.infoOn) logRetry(log, ref, step.delayMs, reason);
          span?.retry(step.delayMs, reason);
          // The error this attempt would have ended the call with: the cause of a deadline hit while waiting.
          const last = answer
            ? answerError(answer, call, attemptOutcome(attempt), attempt)
            : failureError(
                failure as WireFailure,
                call,
                attemptOutcome(attempt),
                attempt,
                redactorFor(token),
              );
          await signal.pause(step.delayMs, last);
          continue;
        }
        const [logReason, spanReason] = RESEND_REASON[step.next];
        if (log.infoOn) logRetry(log, ref, 0, logReason);
        span?.retry(0, spanReason);
        freshConnection = step.next === 'resend_fresh';
        if (step.next === 'resend_new_token') refusedToken = token;
      }
    } catch (error) {
      if (!signal.aborted) throw error;
      throw stoppedError(signal, timeoutMs, callOutcome(phase, state?.earlierMayHaveActed === true), {
        method,
        url,
        attempts,
      });
    } finally {
      signal.end();
    }
  }

  /**
   * For a call made of steps (a metadata look-up, an upload, then the request): gives each
   * step's options, with the time left of one deadline counted from now. Throws
   * `ClaimsTimeoutError` (`'not_sent'`) once none is left.
   */
  steps(options: CallOptions = {}): () => CallOptions {
    // Stryker disable next-line ConditionalExpression: an absent deadlineMs has no issue: the test only saves the work
    if (options.deadlineMs !== undefined)
      throwIfInvalid(callOptionIssues({ deadlineMs: options.deadlineMs }));
    const deadlineMs = options.deadlineMs ?? this.#config.deadlineMs;
    const end = performance.now() + deadlineMs;
    return () => {
      const left = Math.floor(end - performance.now());
      if (left < 1) throw new ClaimsTimeoutError(deadlineMessage(deadlineMs), { outcome: 'not_sent' });
      return { ...options, deadlineMs: left };
    };
  }

  #path(spec: RequestSpec<unknown>): string {
    const url = this.#basePath + spec.path;
    const query = spec.query ? new URLSearchParams(spec.query).toString() : '';
    return query ? `${url}?${query}` : url;
  }

  /**
   * Asks the token provider, raced against the call's signal: a provider that never settles
   * gives way to the caller's abort, to `timeoutMs` (nothing else is in flight meanwhile to
   * make progress) and to the deadline.
   */
  async #token(
    refused: string | undefined,
    signal: CallSignal,
    timeoutMs: number,
    state: CallState | undefined,
  ): Promise<string> {
    const source = this.#config.accessToken as AccessTokenProvider;
    const outcome = callOutcome('not_sent', state?.earlierMayHaveActed === true);
    const refresh = refused !== undefined;
    let token: unknown;
    signal.watchIdle('the accessToken provider', timeoutMs);
    try {
      token = await signal.race(
        Promise.resolve(
          source(refresh ? { forceRefresh: true, refusedToken: refused } : { forceRefresh: false }),
        ),
      );
    } catch (error) {
      // Stopped meanwhile (the race rejected with STOPPED): the call's catch replaces this error
      // with its own AbortError or ClaimsTimeoutError, as it does any error of a stopped call.
      // After a 401 the provider may quote the token refused, in its words and in its error
      // (kept as the cause): neither shows it.
      // Stryker disable next-line StringLiteral: with no 401 yet there is no refused token to redact: '' stands for none, and any other string is one no provider's words hold
      const redactor = redactorFor(refused ?? '');
      throw tokenError(providerFailure(error, refresh, redactor), redactor.error(error), outcome);
    } finally {
      signal.unwatchIdle();
    }
    if (typeof token !== 'string' || token === '') {
      throw tokenError(
        'accessToken provider returned no token (expected a non-empty string)',
        undefined,
        outcome,
      );
    }
    if (!isSendableToken(token)) {
      // Said without the token: it would otherwise surface in the wire's header error.
      throw tokenError(
        'accessToken provider returned a token with characters a header cannot carry',
        undefined,
        outcome,
      );
    }
    return token;
  }
}

/** The attempt a wire's failure (before a 2xx head) stands for, for the call policy. */
function failureAttempt(failure: WireFailure): Attempt {
  switch (failure.kind) {
    case 'refused':
      return { kind: 'refused' };
    default:
      return { kind: 'failure', sent: failure.sent };
  }
}

/** The attempt a 2xx answer's body failure stands for, for the call policy. */
function bodyAttempt(failure: WireFailure): Attempt {
  return failure.kind === 'decode'
    ? { kind: 'unusable' }
    : { kind: 'body_failed', stalled: failure.kind === 'body_timeout' };
}

/** Anything else a wire rejected with (a bug, or a user's `fetch` gone wrong): a connection failure. */
function asFailure(error: unknown): WireFailure {
  return new WireFailure('connection', `Connection failed: ${excerpt(errorMessage(error))}`, 'maybe', error);
}

/** JSON for the wire; a body JSON cannot carry (a BigInt, a cycle) is the caller's error. */
function toJson(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    throw new ClaimsValidationError([
      {
        path: '',
        message: `cannot be sent as JSON: ${excerpt(errorMessage(error))}`,
      },
    ]);
  }
}

function validateSpec(spec: RequestSpec<unknown>): string | undefined {
  // Most calls were validated by their resource already: nothing to check, only to encode.
  // Stryker disable next-line ConditionalExpression: checking no params finds nothing: the test only saves the work
  if (spec.params !== undefined) {
    const checks: Array<readonly [string, Schema, unknown]> = [];
    for (const name in spec.params) {
      const [schema, value] = spec.params[name] as readonly [Schema, unknown];
      checks.push([name, schema, value]);
    }
    throwIfInvalid(collectIssues(checks).issues);
  }
  // JSON.stringify(undefined) is undefined: no body.
  return toJson(spec.body);
}
