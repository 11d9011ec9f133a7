import type { Readable } from 'node:stream';
import type { Dispatcher, request as undiciRequest } from 'undici';
import { ClaimsConnectionError, ClaimsError, ClaimsTimeoutError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { excerpt } from '../internal/quote.js';
import { abortError } from './abort.js';
import { CappedText } from './capped-text.js';
import { isDeadConnection, neverWrittenError } from './dead-connection.js';
import { OwnDispatcher } from './dispatcher.js';
import type { Wire, WireResponse, WireSignal } from './types.js';
import { loadUndiciAgents } from './undici-agents.js';
import { WriteWatch } from './write-watch.js';

const TIMEOUT_CODES: ReadonlySet<unknown> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

type UndiciBody = Awaited<ReturnType<typeof undiciRequest>>['body'];
type UndiciHeaders = Awaited<ReturnType<typeof undiciRequest>>['headers'];

// undici is loaded on the first request, not on import: it takes about as long to import as
// the rest of the SDK, serverless cold starts pay for it only when a request is made, and a
// client given its own `fetch` never loads it.
let undici: Awaited<ReturnType<typeof loadUndiciAgents>> | undefined;

/**
 * The default wire: undici's `Dispatcher.request`, on the client's own dispatcher (see
 * {@link OwnDispatcher}) or on one the user gave. It is asked with origin and path already
 * split: `undici.request(url)` would parse the URL string again on every call, a measurable
 * share of a small request's cost. Timeouts are undici's own `headersTimeout`/`bodyTimeout`,
 * which restart on every chunk written or read: no timer or AbortController of ours per attempt.
 */
export function undiciWire(dispatcher: OwnDispatcher | Dispatcher): Wire {
  const own = dispatcher instanceof OwnDispatcher ? dispatcher : undefined;
  // A proxy agent (ours, or any dispatcher a user gives) may write to the headers object.
  const copyHeaders = own?.writesHeaders ?? true;
  return async (req) => {
    undici ??= await loadUndiciAgents();
    const agents = undici;
    // Whether a failed request was written is known only on our own dispatcher: a user's may
    // create several undici requests for one (a retrying one), later, out of our sight.
    const watch = own ? new WriteWatch(typeof req.body !== 'object') : undefined;
    // Throws the client's ClaimsError once it is closed.
    const target = own ? own.take(agents, performance.now()) : (dispatcher as Dispatcher);
    try {
      const options: Dispatcher.RequestOptions = {
        origin: req.origin,
        path: req.path,
        method: req.method as Dispatcher.HttpMethod,
        headers: copyHeaders ? { ...req.headers } : req.headers,
        // Only the Node entry uses this wire, and its uploads are Node streams, never web ones.
        body: req.body as string | Readable | undefined,
        // undici takes any object with addEventListener (it checks for it, not for AbortSignal).
        signal: req.signal as unknown as AbortSignal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      };
      // Our own agents lack undici's index's `request` mix-in: its function is called on them.
      const send = () => (own ? agents.request.call(target, options) : target.request(options));
      const res = await (watch ? watch.dispatch(send) : send());
      own?.touch(performance.now(), headerValue(res.headers['keep-alive']));
      return new UndiciResponse(res.statusCode, res.headers, res.body, req);
    } catch (error) {
      if (error instanceof ClaimsError) throw error;
      const failure = translate(error, req.signal, req.timeoutMs);
      // Only a failure that would otherwise be 'unknown' needs the proof: a connection that
      // never opened, a timeout or an abort keep their own error.
      const unknown =
        // Stryker disable next-line ConditionalExpression,LogicalOperator: the only other failure, the AbortError, has no `outcome` property
        failure instanceof ClaimsConnectionError &&
        !(failure instanceof ClaimsTimeoutError) &&
        failure.outcome === 'unknown';
      if (!unknown || !watch?.neverWritten) throw failure;
      // A request undici provably never wrote (see WriteWatch): nothing was sent.
      const dead = neverWrittenError(error);
      // The repeat (`freshConnection`) then gets a fresh dispatcher from take().
      // Stryker disable next-line OptionalChaining: there is a watch only on our own dispatcher
      if (isDeadConnection(dead)) own?.retire(target);
      throw dead;
    }
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

class UndiciResponse implements WireResponse {
  constructor(
    readonly status: number,
    private readonly rawHeaders: UndiciHeaders,
    private readonly body: UndiciBody,
    private readonly req: { signal: WireSignal; timeoutMs: number },
  ) {}

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name in this.rawHeaders) {
      const value = this.rawHeaders[name];
      // Stryker disable next-line ConditionalExpression: undici gives no undefined values; the check is for the type
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
  }

  /** The one capped reader of the body, for 2xx and error answers alike. */
  async text(maxBytes: number): Promise<{ text: string; truncated: boolean }> {
    const read = new CappedText(maxBytes);
    try {
      for await (const chunk of this.body) {
        if (read.add(chunk as Buffer)) {
          this.body.destroy();
          break;
        }
      }
    } catch (error) {
      throw translate(error, this.req.signal, this.req.timeoutMs);
    }
    return read.result();
  }
}

function translate(error: unknown, signal: WireSignal, timeoutMs: number): Error {
  if (signal.aborted) return abortError(signal);
  const code = (error as { code?: unknown }).code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    // Connecting is bounded by the dispatcher's connect timeout (undici's default: 10 s), not timeoutMs.
    return new ClaimsTimeoutError(`Connection timed out: the dispatcher's connect timeout passed (${code})`, {
      cause: error,
    });
  }
  if (TIMEOUT_CODES.has(code)) {
    return new ClaimsTimeoutError(`Request timed out: no progress for ${timeoutMs} ms (${code})`, {
      cause: error,
    });
  }
  const detail = excerpt(errorMessage(error));
  return new ClaimsConnectionError(
    `Connection failed: ${detail}${typeof code === 'string' ? ` (${code})` : ''}`,
    {
      cause: error,
    },
  );
}
