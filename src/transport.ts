import type { ResponseSink } from './claims-promise.js';
import {
  ClaimsConnectionError,
  ClaimsError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  describeCall,
} from './errors.js';
import { type ResponseSchema, readApiError, readSuccess } from './internal/answer.js';
import { CallSignal, STOPPED } from './internal/call-signal.js';
import { errorMessage, providerFailure } from './internal/error-message.js';
import { mergeHeaders } from './internal/headers.js';
import { callOptionIssues, isSendableToken } from './internal/options.js';
import type { WatchBody } from './internal/progress.js';
import { excerpt } from './internal/quote.js';
import { redactorFor } from './internal/redact.js';
import { deadlineMessage, pause, stoppedError } from './internal/stopped.js';
import { collectIssues, type Schema, throwIfInvalid } from './internal/validate.js';
import { logAttemptEnd, logAttemptStart, logRetry, logUrl, RequestLog } from './logger.js';
import { callOutcome, type Outcome, outcomeOf, setOutcome } from './outcome.js';
import { backoffDelay, isNotConnected, MAX_RETRY_AFTER_MS, parseRetryAfter, shouldRetry } from './retry.js';
import type { CallSpan, TraceCall } from './telemetry/call-span.js';
import { isDeadConnection } from './wire/dead-connection.js';
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

/** Said by the log line of a request sent again after its kept-alive connection was found dead. */
const DEAD_CONNECTION_REASON = 'a dead kept-alive connection, nothing written (now on a fresh connection)';

/**
 * The one path every request takes: URL, headers and bearer token, validation, the retry
 * loop, and parsing of the answer into a value or a typed error.
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
    // Stryker disable next-line Regex: the client hands over its base URL without trailing slashes: at most the root's one is left
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#baseHeaders = mergeHeaders(
      { accept: 'application/json', 'user-agent': config.userAgent },
      config.headers,
    );
    // Stryker disable next-line ConditionalExpression,StringLiteral,BlockStatement: without the shared sets each call builds the same headers itself, only slower
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
    // Stryker disable next-line ConditionalExpression: without the shared set the call builds the same headers itself, only slower
    const shared = options.headers || spec.stream ? undefined : this.#staticHeaders;
    let headers: Record<string, string>;
    if (shared) headers = body === undefined ? shared.none : shared.json;
    else {
      headers = options.headers ? mergeHeaders(this.#baseHeaders, options.headers) : { ...this.#baseHeaders };
      if (body !== undefined) headers['content-type'] = 'application/json';
    }
    const timeoutMs = options.timeoutMs ?? config.timeoutMs;
    // A one-shot stream body (spec.stream not replayable) cannot be sent a second time.
    const canResend = spec.stream?.replayable !== false;
    const maxRetries = canResend ? (options.maxRetries ?? config.maxRetries) : 0;
    // The call's own signal: the caller's abort, the deadline and stalls all end the call
    // through it, on every attempt and every wait, with one listener on the caller's signal.
    const signal = new CallSignal(options.deadlineMs ?? config.deadlineMs, options.signal);

    const log = this.#log;
    const wire = span ? span.wire(config.wire) : config.wire;
    let refreshedToken = false;
    // The token a 401 refused: the provider is asked for another and may quote it when it fails.
    let refusedToken: string | undefined;
    // A request whose kept-alive connection was dead before any byte of it was written goes out
    // once more at once, on a fresh connection: it cannot be a duplicate, and uses no retry.
    let resentFresh = false;
    let freshConnection = false;
    // What the server may have done: `current` for the attempt under way, `earlier` whether a
    // previous attempt may have been acted on (a 503, a reset after sending). A failure's
    // outcome is settled from both when it leaves this call.
    // Stryker disable next-line StringLiteral: set again first thing in the loop, before anything can throw
    let current: Outcome = 'not_sent';
    let earlier = false;
    // Requests made so far, for the error and the logs; `retry` counts only those maxRetries limits.
    let attempt = 0;
    try {
      for (let retry = 0; ; retry++) {
        current = 'not_sent';
        if (signal.aborted) throw STOPPED;
        // A static token needs no await: one promise and microtask less per request.
        const source = config.accessToken;
        const token =
          typeof source === 'string' ? source : await this.#token(refusedToken, signal, timeoutMs);
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
          if (typeof wireBody === 'object') wireBody.destroy();
          throw STOPPED;
        }
        attempt++;
        // Logging off costs one boolean read per point: no object or string is built.
        if (log.debugOn) logAttemptStart(log, { method, url, attempt, headers }, wireBody, token);
        const started = log.debugOn ? performance.now() : 0;

        let response: WireResponse;
        current = 'unknown';
        const fresh = freshConnection;
        freshConnection = false;
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
          // Inside the try: a body that stalls or is cut off is a network failure too.
          // Only 2xx is success: a 3xx is not followed (the API documents none, and following
          // one would send a claim again), so it is an error like any other answer.
          // (A final answer's status is 200 or more: undici and fetch handle 1xx themselves.)
          if (response.status < 300) {
            current = 'processed';
            const value = await readSuccess(spec, response, {
              method,
              url,
              token,
              maxResponseBytes: config.maxResponseBytes,
            });
            if (log.debugOn) logAttemptEnd(log, { method, url, attempt, token }, response.status, started);
            if (sink) {
              sink.response = response;
              sink.token = token;
            }
            return value;
          }
        } catch (error) {
          // A wire's or a user fetch's error may quote the request; the token must not reach the caller.
          if (error instanceof ClaimsError) redactorFor(token).error(error);
          if (typeof wireBody === 'object') wireBody.destroy();
          if (log.debugOn && error instanceof Error)
            logAttemptEnd(log, { method, url, attempt, token }, error, started);
          if (signal.aborted || !(error instanceof ClaimsConnectionError)) throw error;
          current = error.outcome;
          const dead = isDeadConnection(error);
          if (dead && !resentFresh && canResend) {
            resentFresh = freshConnection = true;
            retry--;
            if (log.infoOn) logRetry(log, { method, url, attempt, token }, 0, DEAD_CONNECTION_REASON);
            span?.retry(0, 'dead connection');
            continue;
          }
          // A dead connection again is as safe to repeat as one that never opened.
          const failure = { kind: 'network', notConnected: dead || isNotConnected(error.cause) } as const;
          if (retry < maxRetries && shouldRetry(method, failure)) {
            earlier ||= current === 'unknown';
            current = 'not_sent';
            const delay = backoffDelay(retry);
            if (log.infoOn) logRetry(log, { method, url, attempt, token }, delay, error.name);
            span?.retry(delay, error.name);
            await pause(delay, signal, error);
            continue;
          }
          throw error;
        }

        const status = response.status;
        current = status >= 400 && status < 500 ? 'rejected' : 'unknown';
        // An error answer may come before the upload was all read (an early 429): stop sending it,
        // before reading the answer, which a caller's abort may cut short.
        if (typeof wireBody === 'object') wireBody.destroy();
        const apiError = await readApiError(response, {
          method,
          url,
          token,
          maxResponseBytes: config.maxResponseBytes,
        });
        if (log.debugOn) logAttemptEnd(log, { method, url, attempt, token }, status, started);
        if (status === 401 && !refreshedToken && canResend && typeof config.accessToken === 'function') {
          // The provider may hold an expired token: ask it once more; a 401 means nothing was processed.
          refreshedToken = true;
          refusedToken = token;
          retry--;
          // Stryker disable next-line StringLiteral: set again at the top of the loop; nothing in between reads it
          current = 'not_sent';
          if (log.infoOn)
            logRetry(log, { method, url, attempt, token }, 0, '401 (token provider asked again)');
          span?.retry(0, '401');
          continue;
        }
        // Stryker disable next-line StringLiteral: shouldRetry tells a network failure by kind 'network'; any other kind is a status
        if (retry < maxRetries && shouldRetry(method, { kind: 'status', status })) {
          const delay = parseRetryAfter(apiError.headers) ?? backoffDelay(retry);
          // Only a wait the server asked for can be this long: our own backoff stops at 8 s.
          if (delay > MAX_RETRY_AFTER_MS) {
            if (log.warnOn) {
              log.warn(
                `claims-sdk: not retrying ${method} ${logUrl(url)} after ${status}: the server asked to wait ${Math.round(delay)} ms (more than ${MAX_RETRY_AFTER_MS} ms)`,
                undefined,
                token,
              );
            }
            throw apiError;
          }
          earlier ||= current === 'unknown';
          current = 'not_sent';
          if (log.infoOn) logRetry(log, { method, url, attempt, token }, delay, String(status));
          span?.retry(delay, String(status));
          await pause(delay, signal, apiError);
          continue;
        }
        throw apiError;
      }
    } catch (error) {
      const failure = signal.aborted ? stoppedError(signal, error, timeoutMs, current) : error;
      describeCall(failure, { method, url, attempts: attempt });
      throw settleOutcome(failure, current, earlier);
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
  async #token(refused: string | undefined, signal: CallSignal, timeoutMs: number): Promise<string> {
    const source = this.#config.accessToken as AccessTokenProvider;
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
      // Also when the call was stopped meanwhile (STOPPED): the call's catch then gives its own
      // AbortError or ClaimsTimeoutError, whatever this says.
      throw new ClaimsError(providerFailure(error, refresh, refused ?? ''), { cause: error });
    } finally {
      signal.unwatchIdle();
    }
    if (typeof token !== 'string' || token === '') {
      throw new ClaimsError('accessToken provider returned no token (expected a non-empty string)');
    }
    if (!isSendableToken(token)) {
      // Said without the token: it would otherwise surface in the wire's header error.
      throw new ClaimsError('accessToken provider returned a token with characters a header cannot carry');
    }
    return token;
  }
}

/**
 * Gives a failure leaving a call the outcome of the whole call. An `AbortError` takes the
 * phase the call was in when the caller aborted (the wire does not know it); an SDK error keeps
 * its own, made worse when an earlier attempt may have been acted on.
 */
function settleOutcome(error: unknown, current: Outcome, earlier: boolean): unknown {
  // Stryker disable next-line ConditionalExpression: the transport throws only Errors (wires and the token provider's failures are wrapped)
  if (!(error instanceof Error)) return error;
  if (error.name === 'AbortError' && outcomeOf(error) !== undefined) {
    return setOutcome(error, callOutcome(current, earlier));
  }
  const own = outcomeOf(error);
  if (own === undefined) return error;
  const settled = callOutcome(own, earlier);
  return settled === own ? error : setOutcome(error, settled);
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
  // Stryker disable next-line ConditionalExpression: toJson(undefined) is undefined too
  return spec.body === undefined ? undefined : toJson(spec.body);
}
