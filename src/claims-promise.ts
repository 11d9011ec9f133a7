import { ClaimsError, requestIdOf } from './errors.js';
import { redactorFor } from './internal/redact.js';
import { flattenHeaders } from './wire/attempt.js';
import type { RawHeaders, WireResponse } from './wire/types.js';

/** What `.withResponse()` resolves to: the call's value and the HTTP answer that gave it. */
export interface WithResponse<T> {
  /** What the call itself resolves to. */
  data: T;
  /** HTTP status of the answer. */
  status: number;
  /** The answer's headers, lower-case names, repeated values joined with `, `; the token redacted. */
  headers: Record<string, string>;
  /** The server's request id, from `x-request-id` or a similar header, when present. */
  requestId: string | undefined;
}

/**
 * The promise every call returns: it resolves to the call's value, and `.withResponse()`
 * also gives the status, headers and request id of the answer. For `incidents.create` and
 * `events.create`, which may upload files or read metadata first, it is the answer of the
 * final POST.
 *
 * @example
 * const { data, requestId } = await client.incidents.create(claim).withResponse();
 * log.info({ incidentId: data.incidentId, requestId }, 'claim filed');
 */
export interface ClaimsPromise<T> extends Promise<T> {
  /**
   * The same call, resolving to `{ data, status, headers, requestId }`: the value and the
   * answer that gave it (headers redacted). Rejects as the call does; it sends nothing more.
   */
  withResponse(): Promise<WithResponse<T>>;
}

/**
 * What `.withResponse()` may still ask of the answer a call resolved with: its status, its
 * headers as the wire gave them (copied, lower-cased and redacted only when asked for), and the
 * call's token, to redact them. Not the answer itself: a held promise must not keep the
 * request, its body or the connection's objects alive.
 */
export class ResponseSink {
  #status = 0;
  #headers: RawHeaders | undefined = undefined;
  // Stryker disable next-line StringLiteral: read only after answered() set it (describe() refuses before)
  #token = '';

  /** The transport's: the call resolved with this answer, sent with this token. */
  answered(response: WireResponse, token: string): void {
    this.#status = response.status;
    this.#headers = response.rawHeaders;
    this.#token = token;
  }

  /** What `.withResponse()` adds to the call's value. */
  describe(): Omit<WithResponse<unknown>, 'data'> {
    if (this.#headers === undefined) {
      throw new ClaimsError('the call resolved without an HTTP answer to describe');
    }
    // Redacted as an error's headers are: the token in any spelling, under any name.
    const headers = redactorFor(this.#token).headers(flattenHeaders(this.#headers));
    return { status: this.#status, headers, requestId: requestIdOf(headers) };
  }
}

/**
 * Where a promise keeps its sink. Printing the promise shows the sink, never what it holds:
 * its fields are private (a `WeakMap` beside the promise would cost every call more).
 */
const SINK = Symbol('claims-notification-sdk.response');

type Sinked<T> = ClaimsPromise<T> & { [SINK]: ResponseSink };

/**
 * @internal Runs a call with a sink for its answer. The promise is the call's own, with
 * `withResponse` added: no extra promise or tick per call, and the headers are copied only
 * when asked for.
 */
export function claimsPromise<T>(run: (sink: ResponseSink) => Promise<T>): ClaimsPromise<T> {
  const sink = new ResponseSink();
  const promise = run(sink) as Sinked<T>;
  promise[SINK] = sink;
  promise.withResponse = withResponse;
  return promise;
}

async function withResponse<T>(this: Sinked<T>): Promise<WithResponse<T>> {
  const data = await this;
  return { data, ...this[SINK].describe() };
}
