/**
 * What a wire knows of an attempt that failed, handed to the transport, which asks the call
 * policy what to do and builds the call's one error from it (src/call-errors.ts). Never seen by
 * a user: every error a call rejects with is built by the transport, once.
 */

/**
 * Whether any byte of the request can have reached the server, as far as the wire can prove:
 *
 * - `'not_connected'`: no connection was opened (refused, DNS, unreachable, connect timeout);
 * - `'refused_tls'`: this client refused the server's certificate: the request was never
 *   written, and a repeat would fail the same way;
 * - `'dead_connection'`: a kept-alive connection of the client's own was found dead before any
 *   byte of the request was written (the write watches: write-watch.ts, http-write-watch.ts);
 * - `'not_written'`: the wire proved nothing was written, on a connection not known dead;
 * - `'bad_answer'`: the server answered bytes that are not HTTP (a broken status line, a bad
 *   `content-length`, headers too large): it read the request, so it may have acted;
 * - `'maybe'`: anything else after the connection opened (a reset, a timeout, a body that
 *   could not be sent): it may have left;
 * - `'not_a_response'`: a `fetch` of the user's resolved something that is no Response: it may
 *   have sent the request, and would resolve the same again (never retried).
 */
export type Sent =
  | 'not_connected'
  | 'refused_tls'
  | 'dead_connection'
  | 'not_written'
  | 'bad_answer'
  | 'maybe'
  | 'not_a_response';

/**
 * How an attempt failed:
 *
 * - `'connection'` / `'timeout'`: no usable answer head (`sent` says how far the request got);
 * - `'cut'` / `'decode'` / `'body_timeout'`: the head came, its body then broke off (a reset,
 *   broken framing, fewer bytes than announced), could not be decoded, or stalled past `timeoutMs`;
 * - `'refused'`: the SDK refused before sending (the client is closed, a body this build cannot
 *   send): nothing was sent;
 * - `'stopped'`: the call's signal stopped it (the caller's abort, the deadline, a stall the
 *   transport watches): the transport says which.
 */
export type FailureKind =
  | 'connection'
  | 'timeout'
  | 'cut'
  | 'decode'
  | 'body_timeout'
  | 'refused'
  | 'stopped';

/** The class of the error the call will reject with, for log lines written before it exists. */
const CLASS_OF: Record<FailureKind, string> = {
  connection: 'ClaimsConnectionError',
  timeout: 'ClaimsTimeoutError',
  cut: 'ClaimsConnectionError',
  decode: 'ClaimsResponseValidationError',
  body_timeout: 'ClaimsTimeoutError',
  refused: 'ClaimsError',
  stopped: 'AbortError',
};

/**
 * One failed attempt. An `Error`, so a log line can name it as the error the call would reject
 * with (`name` is that class's) and its `message` reads as that error's, without the method and URL.
 */
export class WireFailure extends Error {
  override name: string;

  constructor(
    readonly kind: FailureKind,
    /** Without the method and URL, e.g. `Connection failed: connect ECONNREFUSED … (ECONNREFUSED)`. */
    message: string,
    readonly sent: Sent,
    /** The platform's error. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = CLASS_OF[kind];
  }
}

/** The wires' failure for a call stopped by its signal: the transport words it. */
export function stopped(reason: unknown): WireFailure {
  // Stryker disable next-line StringLiteral: the transport replaces a stopped attempt's failure with the call's own error before anything reads its message or `sent`
  return new WireFailure('stopped', 'The operation was aborted', 'maybe', reason);
}
