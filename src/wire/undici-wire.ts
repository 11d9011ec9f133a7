import type { Dispatcher, request as undiciRequest } from 'undici';
import { ClaimsConnectionError, ClaimsTimeoutError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { abortError } from './abort.js';
import type { Wire, WireResponse } from './types.js';

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

type UndiciBody = Awaited<ReturnType<typeof undiciRequest>>['body'];
type UndiciHeaders = Awaited<ReturnType<typeof undiciRequest>>['headers'];

// undici is loaded on the first request, not on import: it takes about as long to import as
// the rest of the SDK, serverless cold starts pay for it only when a request is made, and a
// client given its own `fetch` never loads it.
let undici: typeof import('undici') | undefined;

/**
 * The default wire: undici's global dispatcher, so keep-alive sockets are reused and a user's
 * `setGlobalDispatcher` (proxy agent, `MockAgent`) applies. It is asked with origin and path
 * already split: `undici.request(url)` would parse the URL string again on every call, a
 * measurable share of a small request's cost. Timeouts are undici's own
 * `headersTimeout`/`bodyTimeout`, which restart on every chunk written or read: no timer or
 * AbortController of ours per attempt.
 */
export const undiciWire: Wire = async (req) => {
  undici ??= await import('undici');
  try {
    const res = await undici.getGlobalDispatcher().request({
      origin: req.origin,
      path: req.path,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    return new UndiciResponse(res.statusCode, res.headers, res.body, req);
  } catch (error) {
    throw translate(error, req.signal, req.timeoutMs);
  }
};

class UndiciResponse implements WireResponse {
  constructor(
    readonly status: number,
    private readonly rawHeaders: UndiciHeaders,
    private readonly body: UndiciBody,
    private readonly req: { signal: AbortSignal | undefined; timeoutMs: number },
  ) {}

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name in this.rawHeaders) {
      const value = this.rawHeaders[name];
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
  }

  async text(): Promise<string> {
    try {
      return await this.body.text();
    } catch (error) {
      throw translate(error, this.req.signal, this.req.timeoutMs);
    }
  }

  async textUpTo(maxBytes: number): Promise<{ text: string; truncated: boolean }> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of this.body) {
        const buf = chunk as Buffer;
        chunks.push(buf);
        size += buf.length;
        if (size > maxBytes) {
          this.body.destroy();
          return { text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), truncated: true };
        }
      }
    } catch (error) {
      throw translate(error, this.req.signal, this.req.timeoutMs);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
  }

  async discard(): Promise<void> {
    try {
      await this.body.dump();
    } catch {
      // The body is unwanted; a failure to drain it only costs the socket.
    }
  }
}

function translate(error: unknown, signal: AbortSignal | undefined, timeoutMs: number): Error {
  if (signal?.aborted) return abortError(signal);
  const code = (error as { code?: unknown }).code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    // Connecting is bounded by the dispatcher's connect timeout (undici's default: 10 s), not timeoutMs.
    return new ClaimsTimeoutError(`Connection timed out: the dispatcher's connect timeout passed (${code})`, {
      cause: error,
    });
  }
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
    return new ClaimsTimeoutError(`Request timed out: no progress for ${timeoutMs} ms (${code})`, {
      cause: error,
    });
  }
  const detail = errorMessage(error);
  return new ClaimsConnectionError(
    `Connection failed: ${detail}${typeof code === 'string' ? ` (${code})` : ''}`,
    {
      cause: error,
    },
  );
}
