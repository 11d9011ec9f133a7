/**
 * The wire core: what every wire does with one attempt, written once. A wire (undici,
 * `node:http`, fetch) only sends the request its own way and hands over the answer's head and
 * body; this file times the attempt (for the wires without timers of their own), classifies a
 * failure (how far the request got: src/wire/failure.ts), flattens the answer's headers, and
 * reads its body: capped, decoded, and one truth for every answer on every wire (a 204 has no
 * body whatever follows it; a compressed body is decoded within the same cap).
 *
 * No `node:` import here: the fetch wire runs on the edge too (Deno, Bun, workerd).
 */
import { errorMessage } from '../internal/error-message.js';
import { excerpt } from '../internal/quote.js';
import { CappedText } from './capped-text.js';
import { type Sent, stopped, WireFailure } from './failure.js';
import type { RawHeaders, WireResponse, WireSignal } from './types.js';

/**
 * undici's code of a connect timeout, which the `node:http` wire gives its own connect timeout
 * too: one code, so the rule below is one for every wire.
 */
export const CONNECT_TIMEOUT_CODE = 'UND_ERR_CONNECT_TIMEOUT';

/**
 * Codes meaning the connection was never opened, so the server cannot have seen the request:
 * undici's and Node's.
 */
const NOT_CONNECTED_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  CONNECT_TIMEOUT_CODE,
]);

/**
 * Codes of a TLS handshake that this client refused (the server's certificate did not verify):
 * the request was never written.
 */
const TLS_REFUSED_CODES: ReadonlySet<string> = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Codes of an answer that is not HTTP: llhttp's parse errors (`HPE_…` in Node's errors; undici's
 * `HTTPParserError` carries none, so it is known by its name) and undici's own checks of the
 * head. The server read the request and answered something: it may have acted.
 */
const BAD_ANSWER_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_OVERFLOW',
  'UND_ERR_INFO',
  // Before the head only: undici's refusal of a head whose framing contradicts itself.
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
const BAD_ANSWER_NAME = 'HTTPParserError';

/**
 * A kept-alive connection that was open and then found closed (the server or a balancer
 * dropped it while idle): proven unwritten on one of these, a request goes out once more on a
 * fresh connection. A connection that could not be opened keeps the rules of its own.
 */
const DEAD_SOCKET_CODES: ReadonlySet<string | undefined> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);

/**
 * The string `code`s along an error's cause chain (five deep at most: it may be a cycle), and
 * an undici parse error's name as the code it lacks.
 */
function codes(error: unknown): string[] {
  // Stryker disable next-line ArrayDeclaration: a made-up entry matches no code set and no decoder's prefix
  const found: string[] = [];
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === 'string') found.push(code);
    else if (name === BAD_ANSWER_NAME) found.push(name);
    e = (e as { cause?: unknown }).cause;
  }
  return found;
}

/** How far a request that failed with `error` got, from the codes of its cause chain. */
export function sentOf(error: unknown): Sent {
  const chain = codes(error);
  if (chain.some((code) => NOT_CONNECTED_CODES.has(code))) return 'not_connected';
  if (chain.some((code) => TLS_REFUSED_CODES.has(code))) return 'refused_tls';
  if (
    chain.some((code) => code.startsWith('HPE_') || code === BAD_ANSWER_NAME || BAD_ANSWER_CODES.has(code))
  ) {
    return 'bad_answer';
  }
  return 'maybe';
}

/** Whether a body failed to decode (zlib's and brotli's codes) rather than broke off. */
function isDecodeError(error: unknown): boolean {
  return codes(error).some(
    (code) => code.startsWith('Z_') || code.startsWith('ERR__') || code.includes('BROTLI'),
  );
}

/** What the core needs to know of one attempt on a wire. */
export interface AttemptState {
  readonly signal: WireSignal;
  readonly timeoutMs: number;
  /** Which of the wire's own timers fired, or the platform's timeout its error names. */
  timedOut(error: unknown): 'connect' | 'progress' | undefined;
  /** A body chunk arrived: the progress timer starts again. */
  progress(): void;
  /** The attempt is over: no timer or listener of it may stay. */
  done(): void;
  /** Proven: no byte of the request was written (a write watch of the wire's). */
  neverWritten(): boolean;
}

/** How a wire words its failures. */
export interface Wording {
  /** What a connect timeout says, after `Connection timed out: `. */
  readonly connectTimeout: string;
  /** The platform's message of an error (fetch's is in its `cause`). */
  detail(error: unknown): string;
  /** Whether the platform's code is added to the message (`… (ECONNRESET)`). */
  readonly codes: boolean;
}

/**
 * The failure of an attempt before its answer's head (`'head'`) or while its body was read
 * (`'body'`): stopped by the call's signal, timed out, or a connection failure with how far the
 * request got. A failure the wire made itself (a refusal) is kept as it is.
 */
export function failureOf(
  attempt: AttemptState,
  wording: Wording,
  error: unknown,
  phase: 'head' | 'body',
): WireFailure {
  attempt.done();
  if (attempt.signal.aborted) return stopped(attempt.signal.reason);
  if (error instanceof WireFailure) return error;
  // The platform's words may quote a server's (a parse error's bytes): cut and escaped.
  const detail = (): string => excerpt(wording.detail(error));
  const own = (error as { code?: unknown } | undefined)?.code;
  const code = wording.codes && typeof own === 'string' ? own : undefined;
  const suffix = code === undefined ? '' : ` (${code})`;
  const timed = attempt.timedOut(error);
  const noProgress = `Request timed out: no progress for ${attempt.timeoutMs} ms${suffix}`;
  if (phase === 'body') {
    if (timed) return new WireFailure('body_timeout', noProgress, 'maybe', error);
    if (isDecodeError(error)) {
      return new WireFailure('decode', `the body could not be decoded: ${detail()}${suffix}`, 'maybe', error);
    }
    return new WireFailure('cut', `Connection failed: ${detail()}${suffix}`, 'maybe', error);
  }
  if (timed === 'connect') {
    return new WireFailure(
      'timeout',
      `Connection timed out: ${wording.connectTimeout}`,
      'not_connected',
      error,
    );
  }
  if (timed === 'progress') return new WireFailure('timeout', noProgress, 'maybe', error);
  const sent = sentOf(error);
  if (sent === 'maybe' && attempt.neverWritten()) {
    // A request the wire provably never wrote: nothing was sent, whatever the code says.
    return new WireFailure(
      'connection',
      `Connection failed before any byte of the request was written, nothing was sent: ${detail()}${suffix}`,
      DEAD_SOCKET_CODES.has(code) ? 'dead_connection' : 'not_written',
      error,
    );
  }
  return new WireFailure('connection', `Connection failed: ${detail()}${suffix}`, sent, error);
}

/** How the node wires word failures: the platform's message and code. */
export const NODE_WORDING: Omit<Wording, 'connectTimeout'> = { detail: errorMessage, codes: true };

/**
 * The one timer of an attempt on a wire without timers of its own (`node:http`, fetch), and its
 * one listener on the call's signal: `stop` runs when either fires. `timeoutMs` without
 * progress (connecting gets `connectMs`), restarted by {@link progress}.
 */
export class AttemptClock {
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  #timedOut: 'connect' | 'progress' | undefined = undefined;
  #ended = false;

  constructor(
    readonly signal: WireSignal,
    readonly timeoutMs: number,
    private readonly stop: (why: 'abort' | 'timeout') => void,
  ) {}

  /** Starts listening to the call's signal; false when it had aborted already. */
  listen(): boolean {
    if (this.signal.aborted) return false;
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the call's signal drops its listeners when it fires, and done() removes this one
    this.signal.addEventListener('abort', this.#onAbort, { once: true });
    return true;
  }

  /** (Re)starts the timer for `phase`: `ms` for connecting, else `timeoutMs`. */
  arm(phase: 'connect' | 'progress', ms = this.timeoutMs): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#onTimeout, ms, phase);
  }

  progress(): void {
    const timer = this.#timer as { refresh?: () => void } | undefined;
    // Node's and Bun's timers restart in place; Deno's and workerd's are plain numbers: set anew.
    if (typeof timer?.refresh === 'function') timer.refresh();
    else if (!this.#ended) this.arm('progress');
  }

  done(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    this.signal.removeEventListener('abort', this.#onAbort);
  }

  timedOut(): 'connect' | 'progress' | undefined {
    return this.#timedOut;
  }

  // Named listeners, so done() can remove them: a caller's long-lived signal would otherwise
  // collect one listener (and keep this attempt alive) per request made with it.
  readonly #onAbort = (): void => this.stop('abort');

  readonly #onTimeout = (phase: 'connect' | 'progress'): void => {
    this.#timedOut = phase;
    this.stop('timeout');
  };
}

/** The answer's headers, lower-case names (as every wire gives them), repeated values joined with `, `. */
export function flattenHeaders(raw: RawHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof raw.forEach === 'function') {
    (raw as { forEach(callback: (value: string, name: string) => void): void }).forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }
  const record = raw as Readonly<Record<string, string | string[] | undefined>>;
  for (const name in record) {
    const value = record[name];
    if (typeof value === 'string') out[name] = value;
    else if (value !== undefined) out[name] = value.join(', ');
  }
  return out;
}

/** The body of an answer as a wire hands it over. */
export interface BodySource {
  /** The body's bytes as they arrive (already decoded by the platform on the fetch wire). */
  chunks(): AsyncIterable<Uint8Array>;
  /** Stops reading: the rest is never read, and the connection is not reused. */
  cancel(): void;
}

/**
 * Decodes a body sent with `content-encoding` (gzip, deflate, br), given by the node wires
 * (node:zlib); the fetch wire's platform decodes by itself. `onRaw` is called with each raw
 * chunk's size (progress, and the raw bytes' own cap).
 */
export type Decode = (
  source: BodySource,
  encodings: readonly string[],
  onRaw: (bytes: number) => boolean,
) => AsyncIterable<Uint8Array>;

/**
 * Statuses whose answer has no body (RFC 9110): whatever bytes follow the head are not its
 * body. A server that sends some anyway gets its connection closed, so they are never read as
 * the next answer.
 */
const NO_BODY: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * The answer of an attempt, as the transport reads it, on every wire. Built from the head the
 * wire got; a head no answer may have is refused here, so that every wire refuses it alike.
 */
export class WireAnswer implements WireResponse {
  #headers: Record<string, string> | undefined = undefined;

  /**
   * @throws WireFailure (`bad_answer`) for a head with both `transfer-encoding` and
   *   `content-length`: RFC 9112 has a client treat it as an error (a sign of response
   *   splitting); `node:http` refuses it in its parser, undici and fetch take the chunks.
   */
  constructor(
    readonly status: number,
    readonly rawHeaders: RawHeaders,
    private readonly body: BodySource,
    private readonly attempt: AttemptState,
    private readonly wording: Wording,
    private readonly decode: Decode | undefined,
  ) {
    // Read from the raw headers: flattening them all costs a copy per call, asked for rarely.
    if (
      headerOf(rawHeaders, 'transfer-encoding') !== undefined &&
      headerOf(rawHeaders, 'content-length') !== undefined
    ) {
      body.cancel();
      throw new WireFailure(
        'connection',
        'Connection failed: the answer has both transfer-encoding and content-length',
        'bad_answer',
      );
    }
  }

  headers(): Record<string, string> {
    this.#headers ??= flattenHeaders(this.rawHeaders);
    return this.#headers;
  }

  /**
   * The body as UTF-8 text, at most `maxBytes` of it (decoded bytes, when it was encoded: the
   * raw bytes have a cap of their own, twice as large). A no-body status reads as empty.
   */
  async text(maxBytes: number): Promise<{ text: string; truncated: boolean }> {
    const read = new CappedText(maxBytes);
    const raw = this.rawHeaders;
    if (NO_BODY.has(this.status) && announcesBody(raw)) {
      this.body.cancel();
      this.attempt.done();
      return read.result();
    }
    const encodings = this.decode ? encodingsOf(headerOf(raw, 'content-encoding')) : NONE;
    try {
      let chunks: AsyncIterable<Uint8Array>;
      if (encodings.length > 0) {
        const rawCap = maxBytes * 2 + 65_536;
        let rawBytes = 0;
        chunks = (this.decode as Decode)(this.body, encodings, (bytes) => {
          this.attempt.progress();
          rawBytes += bytes;
          return rawBytes > rawCap;
        });
      } else chunks = this.body.chunks();
      for await (const chunk of chunks) {
        if (encodings.length === 0) this.attempt.progress();
        if (read.add(chunk)) {
          this.body.cancel();
          break;
        }
      }
    } catch (error) {
      // Whatever stopped the reading, the rest is never read and the connection not reused.
      this.body.cancel();
      if (error === RAW_CAP) {
        this.attempt.done();
        return read.result(true);
      }
      throw failureOf(this.attempt, this.wording, error, 'body');
    }
    this.attempt.done();
    return read.result();
  }
}

/** Thrown by a decoder whose raw input went past its cap: the body reads as truncated. */
// Stryker disable next-line StringLiteral: known by identity, its message is never shown
export const RAW_CAP = new Error('the raw body went past its cap');

/** True when a head announces a body: a non-zero `content-length`, or `transfer-encoding`. */
function announcesBody(raw: RawHeaders): boolean {
  const length = headerOf(raw, 'content-length');
  return headerOf(raw, 'transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0');
}

/** One header of the raw ones (a lower-case name), repeated values joined as flattening does. */
function headerOf(raw: RawHeaders, name: string): string | undefined {
  if (typeof raw.forEach === 'function') return (raw as Headers).get(name) ?? undefined;
  const value = (raw as Readonly<Record<string, string | string[] | undefined>>)[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

const NONE: readonly string[] = [];

/** The codings of a `content-encoding` header, in the order they were applied, `identity` left out. */
function encodingsOf(header: string | undefined): readonly string[] {
  if (header === undefined) return NONE;
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}
