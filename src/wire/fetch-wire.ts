import type { Readable } from 'node:stream';
import { ClaimsConnectionError, ClaimsError, ClaimsTimeoutError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { excerpt } from '../internal/quote.js';
import { abortError } from './abort.js';
import { CappedText } from './capped-text.js';
import type { StreamedBody, WebStreamBody, Wire, WireRequest, WireResponse } from './types.js';

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
    const attempt = new AttemptControl(req, runtime.nodeBodyToWeb);
    try {
      const streamed = req.body !== undefined && typeof req.body !== 'string';
      const response = await fetchFn(req.url, {
        method: req.method,
        // A copy: the transport's header sets are shared, and a user's fetch may write to its init.
        headers: { ...req.headers },
        body: streamed ? attempt.watchUpload(req.body as StreamedBody) : (req.body as string | undefined),
        signal: attempt.signal,
        // Redirects are not followed (a 3xx is an error answer, as on the default wire).
        redirect: streamed ? streamRedirect : ('manual' as const),
        ...(streamed ? { duplex: 'half' as const } : {}),
      });
      attempt.progress();
      return new FetchResponse(response, attempt);
    } catch (error) {
      throw attempt.translate(error);
    }
  };
}

class AttemptControl {
  private readonly controller = new AbortController();
  private timedOut = false;
  private finished = false;
  private timer: ReturnType<typeof setTimeout>;
  readonly signal: AbortSignal;

  constructor(
    private readonly req: WireRequest,
    private readonly nodeBodyToWeb: NodeBodyToWeb | undefined,
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(this.onTimeout, req.timeoutMs);
    // Already aborted (while the token or the upload was being prepared): no event will come.
    if (req.signal.aborted) this.onAbort();
    else req.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  // A named listener so done() can remove it: a caller's long-lived signal would otherwise
  // collect one listener (and keep this attempt alive) per request made with it.
  private readonly onAbort = (): void => this.controller.abort(this.req.signal.reason);

  /**
   * The upload as a web stream that counts as progress: fetch only resolves once the whole
   * body is sent, so without this a long upload that keeps moving would time out.
   */
  watchUpload(body: StreamedBody): ReadableStream {
    return this.webBody(body).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.progress();
          controller.enqueue(chunk);
        },
      }),
    );
  }

  private webBody(body: StreamedBody): ReadableStream<Uint8Array> {
    if ((body as Partial<WebStreamBody>).web instanceof ReadableStream) return (body as WebStreamBody).web;
    if (this.nodeBodyToWeb) return this.nodeBodyToWeb(body as Readable);
    // Only reachable by a bug: the edge entry's uploads are web streams.
    throw new ClaimsError('A Node stream body cannot be sent by this build of the SDK');
  }

  private readonly onTimeout = (): void => {
    this.timedOut = true;
    this.controller.abort();
  };

  progress(): void {
    // Node's and Bun's timers restart in place; Deno's and workerd's are plain numbers: set anew.
    const timer = this.timer as unknown as { refresh?: () => void };
    // Stryker disable next-line ConditionalExpression,StringLiteral: where refresh() exists, the branch below restarts the timer as well
    if (typeof timer.refresh === 'function') timer.refresh();
    else if (!this.finished) {
      clearTimeout(this.timer);
      this.timer = setTimeout(this.onTimeout, this.req.timeoutMs);
    }
  }

  done(): void {
    this.finished = true;
    clearTimeout(this.timer);
    this.req.signal.removeEventListener('abort', this.onAbort);
  }

  translate(error: unknown): Error {
    this.done();
    // Our own refusal before anything left (no global fetch, a body this build cannot send):
    // kept as it is, with its outcome, not mistaken for a connection that failed.
    if (error instanceof ClaimsError) return error;
    if (this.req.signal.aborted) return abortError(this.req.signal);
    if (this.timedOut) {
      return new ClaimsTimeoutError(`Request timed out: no progress for ${this.req.timeoutMs} ms`, {
        cause: error,
      });
    }
    const cause = (error as { cause?: unknown }).cause ?? error;
    const detail = excerpt(errorMessage(cause));
    return new ClaimsConnectionError(`Connection failed: ${detail}`, { cause: error });
  }
}

class FetchResponse implements WireResponse {
  readonly status: number;

  constructor(
    private readonly response: Response,
    private readonly attempt: AttemptControl,
  ) {
    this.status = response.status;
  }

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    this.response.headers.forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }

  /** The one capped reader of the body, for 2xx and error answers alike. */
  async text(maxBytes: number): Promise<{ text: string; truncated: boolean }> {
    const read = new CappedText(maxBytes);
    const reader = this.response.body?.getReader();
    try {
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        this.attempt.progress();
        if (read.add(value)) {
          // The cancel is not awaited, as some fetches never settle it.
          reader.cancel().catch(() => undefined);
          break;
        }
      }
    } catch (error) {
      throw this.attempt.translate(error);
    }
    // The attempt is over: stop its timer, which would otherwise keep the process alive for up
    // to timeoutMs.
    this.attempt.done();
    return read.result();
  }
}
