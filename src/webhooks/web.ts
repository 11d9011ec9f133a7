import type { OnDelivery, WebhookReceiverOptions } from './options.js';
import { type BodyRead, collect, consumedProblem } from './read-body.js';
import { createReceiver } from './receive.js';

/**
 * A receiver for anything that hands you a Web `Request` and takes a `Response`: Hono
 * (`app.post('/hooks/claims', (c) => handle(c.req.raw))`), Next.js route handlers, workerd,
 * Deno, Bun. Answers 200 once `onDelivery` resolves (or for a copy already processed), 401
 * for a missing or wrong header, 413 over `maxBodyBytes`, 400 for a body that is not JSON or
 * not the schema's shape, 409 for a copy still being processed, 500 when `onDelivery` throws.
 *
 * @example
 * const handle = createWebMiddleware({ headerName: 'X-Hook-Secret', headerValue: secret }, async (payload) => {
 *   await saveEvent(payload);
 * });
 * export const POST = handle; // a Next.js route handler
 * @throws ClaimsValidationError at once for options that could accept every request.
 */
export function createWebMiddleware<T = unknown>(
  options: WebhookReceiverOptions<T>,
  onDelivery: OnDelivery<T>,
): (request: Request) => Promise<Response> {
  const receive = createReceiver(options, onDelivery);
  return async (request) => {
    const { status, headers, body } = await receive({
      method: request.method,
      headers: request.headers,
      read: (max) => readRequest(request, max),
    });
    return new Response(body, { status, headers });
  };
}

async function readRequest(request: Request, max: number): Promise<BodyRead> {
  if (request.bodyUsed) return consumedProblem('Request.bodyUsed is true');
  if (request.body === null) return undefined;
  return collect(chunksOf(request.body), max);
}

/** A stream's chunks through its reader (not every runtime makes streams async-iterable). */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
  } finally {
    // Past the cap: nothing more of the body is read.
    reader.cancel().catch(() => undefined);
  }
}
