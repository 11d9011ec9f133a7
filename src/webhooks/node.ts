import type { OnDelivery, WebhookReceiverOptions } from './options.js';
import { type BodyRead, collect, consumedProblem, rawBody } from './read-body.js';
import { createReceiver } from './receive.js';

/**
 * The parts of a node:http `IncomingMessage` (or Express `Request`) the receiver uses:
 * written out so that the types need neither `@types/node` nor a framework's types.
 */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  /** The request's method. */
  method?: string | undefined;
  /** The request's headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** Set by a body parser mounted before the receiver (Express, Connect). */
  body?: unknown;
  /** Whether something read the body stream already. */
  readableDidRead?: boolean;
  /** Whether the body stream ended already. */
  readableEnded?: boolean;
}

/** The parts of a node:http `ServerResponse` (or Express `Response`) the receiver uses. */
export interface NodeResponseLike {
  /** Whether an answer was sent already. */
  headersSent?: boolean;
  /** Writes the status and headers. */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Writes the body and ends the answer. */
  end(body: string): unknown;
}

/**
 * A receiver for node:http and Express (`createServer(handler)`, `app.post(path, handler)`).
 * It reads the raw body itself: mount it before any JSON body parser (or on a route without
 * one). Mounted after one that already consumed the body, it answers 500 and says so, rather
 * than trust a re-serialised body; a raw body (`express.raw()`) is used as is. Answers as
 * {@link createWebMiddleware}. With `next` (Express), a request other than POST is passed on.
 *
 * @example
 * createServer(createNodeMiddleware({ headerName: 'X-Hook-Secret', headerValue: secret }, onDelivery)).listen(3000);
 * @throws ClaimsValidationError at once for options that could accept every request.
 */
export function createNodeMiddleware<T = unknown>(
  options: WebhookReceiverOptions<T>,
  onDelivery: OnDelivery<T>,
): (req: NodeRequestLike, res: NodeResponseLike, next?: (error?: unknown) => void) => void {
  const receive = createReceiver(options, onDelivery);
  return (req, res, next) => {
    if (next && req.method?.toUpperCase() !== 'POST') return next();
    void receive({ method: req.method, headers: req.headers, read: (max) => readNodeRequest(req, max) }).then(
      ({ status, headers, body }) => {
        if (res.headersSent) return;
        res.writeHead(status, {
          ...headers,
          'content-length': String(new TextEncoder().encode(body).length),
        });
        res.end(body);
      },
    );
  };
}

/** Exported for the Fastify plugin, which hands over the same node:http request. */
export async function readNodeRequest(req: NodeRequestLike, max: number): Promise<BodyRead> {
  const { body } = req;
  if (typeof body === 'string' || body instanceof Uint8Array) return rawBody(body, max);
  if (body !== undefined) return consumedProblem(`req.body is already set, to a ${typeof body}`);
  if (req.readableDidRead || req.readableEnded) return consumedProblem('the request stream was already read');
  // Past the cap the stream stops; Node still sends the 413 before the connection closes.
  return collect(req, max);
}
