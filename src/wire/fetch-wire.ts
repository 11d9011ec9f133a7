import type { Readable } from 'node:stream';
import { errorMessage } from '../internal/error-message.js';
import { notAResponse } from '../internal/not-a-response.js';
import {
  AttemptClock,
  type AttemptState,
  type BodySource,
  failureOf,
  WireAnswer,
  type Wording,
} from './attempt.js';
import { WireFailure } from './failure.js';
import type { StreamedBody, WebStreamBody, Wire, WireRequest } from './types.js';

/** The subset of `fetch` the SDK calls. */
export type FetchLike = (url: string, init: RequestInit & { duplex?: 'half' }) => Promise<Response>;

/**
 * Turns a Node `Readable` body into a web stream. Given by the Node entry only: this file
 * must not import `node:stream`, as the edge entry (Deno, Bun, workerd) uses it too.
 */
export type NodeBodyToWeb = (body: Readable) => ReadableStream<Uint8Array>;

/** What the fetch wire needs to know of the runtime it runs on. */
export interface FetchWireRuntime {
  /** Given on Node only, where uploads are Node streams. */
  nodeBodyToWeb?: NodeBodyToWeb;
  /**
   * `redirect` for a streamed body. `'error'` keeps undici's fetch from holding the whole body
   * in case a redirect needs it again; workerd refuses `'error'` (a TypeError before anything
   * is sent), so the edge entry uses `'manual'`: a 3xx is an error answer either way.
   * @default 'error'
   */
  streamRedirect?: 'error' | 'manual';
}

/**
 * A wire over a user-given `fetch` (msw in tests, edge runtimes). fetch has no
 * progress timeout of its own, so one timer per attempt is restarted on each body chunk.
 * A streamed body is sent with `redirect: 'error'`: otherwise fetch keeps the whole body in
 * memory in case a redirect needs it again.
 */
export function fetchWire(fetchFn: FetchLike, runtime: FetchWireRuntime = {}): Wire {
  const streamRedirect = runtime.streamRedirect ?? 'error';
  return async (req) => {
    const attempt = new FetchAttempt(req);
    try {
      const streamed = req.body !== undefined && typeof req.body !== 'string';
      const body = streamed ? attempt.watchUpload(webBody(req.body as StreamedBody, runtime)) : req.body;
      const response = await fetchFn(req.url, {
        method: req.method,
        // A copy: the transport's header sets are shared, and a user's fetch may write to its init.
        headers: { ...req.headers },
        body: body as BodyInit | undefined,
        signal: attempt.abortSignal,
        // Redirects are not followed (a 3xx is an error answer, as on the default wire).
        redirect: streamed ? streamRedirect : ('manual' as const),
        ...(streamed ? { duplex: 'half' as const } : {}),
      });
      const wrong = notAResponse(response);
      if (wrong !== undefined) {
        // Whatever it did with the request: it may have been sent.
        throw new WireFailure(
          'connection',
          `The fetch given to the client resolved ${wrong}, not a Response`,
          'not_a_response',
        );
      }
      attempt.progress();
      // The platform's fetch decodes a compressed body itself: no decoder here.
      return new WireAnswer(
        response.status,
        response.headers,
        new FetchBody(response),
        attempt,
        WORDING,
        undefined,
      );
    } catch (error) {
      // Stryker disable next-line StringLiteral: failureOf tells only 'body' apart; any other phase is the head's
      throw failureOf(attempt, WORDING, error, 'head');
    }
  };
}

/** fetch's errors: a `TypeError('fetch failed')` whose `cause` says what happened, and no code of their own. */
const WORDING: Wording = {
  // Stryker disable next-line StringLiteral: never shown: this wire arms no connect timer (fetch connects out of our sight)
  connectTimeout: 'the connect timeout passed',
  detail: (error) => errorMessage((error as { cause?: unknown } | undefined)?.cause ?? error),
  codes: false,
};

/**
 * The body of a streamed upload as a web stream. Only reachable by a bug with a Node stream on
 * the edge build (its uploads are web streams): refused, nothing sent.
 */
function webBody(body: StreamedBody, runtime: FetchWireRuntime): ReadableStream<Uint8Array> {
  if ((body as Partial<WebStreamBody>).web instanceof ReadableStream) return (body as WebStreamBody).web;
  if (runtime.nodeBodyToWeb) return runtime.nodeBodyToWeb(body as Readable);
  throw new WireFailure(
    'refused',
    'A Node stream body cannot be sent by this build of the SDK',
    'not_connected',
  );
}

/**
 * An attempt over fetch: fetch has no progress timeout of its own, so one timer per attempt
 * is restarted on each chunk (of the upload and of the answer), and aborts fetch's own signal.
 */
class FetchAttempt implements AttemptState {
  readonly #controller = new AbortController();
  readonly #clock: AttemptClock;
  readonly abortSignal: AbortSignal;

  constructor(private readonly req: WireRequest) {
    this.abortSignal = this.#controller.signal;
    this.#clock = new AttemptClock(req.signal, req.timeoutMs, (why) =>
      // Stryker disable next-line ConditionalExpression,EqualityOperator: fetch's own abort reason is never read: an aborted call's failure is stopped(signal.reason) (failureOf checks the signal first), and a timeout aborts with none
      this.#controller.abort(why === 'abort' ? req.signal.reason : undefined),
    );
    this.#clock.arm('progress');
    // Already aborted (while the token or the upload was being prepared): no event will come.
    if (!this.#clock.listen()) this.#controller.abort(req.signal.reason);
  }

  get signal(): WireRequest['signal'] {
    return this.req.signal;
  }

  get timeoutMs(): number {
    return this.req.timeoutMs;
  }

  /**
   * The upload, each chunk counting as progress: fetch only resolves once the whole body is
   * sent, so without this a long upload that keeps moving would time out.
   */
  watchUpload(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    return body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.progress();
          controller.enqueue(chunk);
        },
      }),
    );
  }

  timedOut(): 'connect' | 'progress' | undefined {
    return this.#clock.timedOut();
  }

  progress(): void {
    this.#clock.progress();
  }

  done(): void {
    this.#clock.done();
  }

  // Stryker disable next-line BlockStatement: attempt.ts reads it as a condition; undefined is as false
  neverWritten(): boolean {
    // A user's fetch chooses its connections out of our sight.
    return false;
  }
}

/** What a body-less answer reads: done at once. */
const NO_CHUNK: Promise<IteratorResult<Uint8Array>> = Promise.resolve({ done: true, value: undefined });

/**
 * The answer's body as the core reads it: one object that is its own iterator, whose `next()`
 * is the reader's own `read()` (both give `{ done, value }`), so reading costs no generator and
 * no promise of ours per chunk. One object, not closures: the closures cost 3.5k instructions a
 * call (2% of a call over a fetch that answers at once; counted with cachegrind,
 * docs/benchmarks.md).
 */
class FetchBody implements BodySource, AsyncIterableIterator<Uint8Array> {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(response: Response) {
    this.#reader = response.body?.getReader();
  }

  chunks(): AsyncIterable<Uint8Array> {
    return this;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    return this.#reader ? (this.#reader.read() as Promise<IteratorResult<Uint8Array>>) : NO_CHUNK;
  }

  cancel(): void {
    // Not awaited, as some fetches never settle it.
    this.#reader?.cancel().catch(() => undefined);
  }
}
