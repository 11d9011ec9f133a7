import { ClaimsError, requestIdOf } from './errors.js';
import { redactorFor } from './internal/redact.js';
import type { WireResponse } from './wire/types.js';

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
  withResponse(): Promise<WithResponse<T>>;
}

/** Where the transport leaves the answer a call resolved with (for `.withResponse()`; not for users). */
export class ResponseSink {
  response: WireResponse | undefined = undefined;
  token = '';
}

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
  const { response, token } = this[SINK];
  if (!response) throw new ClaimsError('the call resolved without an HTTP answer to describe');
  // Redacted as an error's headers are: the token in any spelling, under any name.
  const headers = token === '' ? response.headers() : redactorFor(token).headers(response.headers());
  return { data, status: response.status, headers, requestId: requestIdOf(headers) };
}
