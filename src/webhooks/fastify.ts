import type { NodeRequestLike } from './node.js';
import { readNodeRequest } from './node.js';
import type { OnDelivery, WebhookReceiverOptions } from './options.js';
import { createReceiver } from './receive.js';

/** Options of {@link fastifyWebhooks}: the receiver's, plus the route and the handler. */
export interface FastifyWebhooksOptions<T = unknown> extends WebhookReceiverOptions<T> {
  /** The route the deliveries are POSTed to, e.g. `'/hooks/claims'`. */
  path: string;
  /** Your handler of one verified delivery. */
  onDelivery: OnDelivery<T>;
}

/**
 * The parts of a Fastify instance the plugin uses, written out so that its types need no
 * `fastify` installed.
 */
export interface FastifyInstanceLike {
  /** Drops the body parsers of the plugin's own context (the app's stay). */
  removeAllContentTypeParsers(): unknown;
  /** Adds the catch-all parser that leaves the body unread. */
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void,
  ): unknown;
  /** Adds the receiver's route. */
  post(
    path: string,
    handler: (request: { raw: NodeRequestLike }, reply: FastifyReplyLike) => unknown,
  ): unknown;
}

/** The parts of a Fastify reply the plugin uses. */
export interface FastifyReplyLike {
  /** Sets the status. */
  code(status: number): FastifyReplyLike;
  /** Sets headers. */
  headers(values: Record<string, string>): FastifyReplyLike;
  /** Sends the body. */
  send(body: string): unknown;
}

/**
 * A Fastify plugin: `app.register(fastifyWebhooks, { path, ...options, onDelivery })`. In its
 * own (encapsulated) context it replaces the body parsers, so the route reads the raw body
 * while the rest of the app keeps Fastify's JSON parser. Answers as {@link createWebMiddleware}.
 * The payload is `unknown` to `onDelivery` (Fastify's `register` cannot carry a schema's type):
 * check it with `schema` and narrow it in the handler.
 * @throws ClaimsValidationError when registered with options that could accept every request.
 */
export async function fastifyWebhooks(
  instance: FastifyInstanceLike,
  // Not generic: Fastify's `register` then types `onDelivery`'s payload (`unknown`) from here.
  options: FastifyWebhooksOptions,
): Promise<void> {
  const { path, onDelivery, ...receiverOptions } = options;
  const receive = createReceiver(receiverOptions, onDelivery);
  instance.removeAllContentTypeParsers();
  // Leave the body unread: the receiver reads the raw stream, bounded, after the header check.
  instance.addContentTypeParser('*', (_request, _payload, done) => done(null));
  instance.post(path, async (request, reply) => {
    const { status, headers, body } = await receive({
      method: request.raw.method,
      headers: request.raw.headers,
      read: (max) => readNodeRequest(request.raw, max),
    });
    return reply.code(status).headers(headers).send(body);
  });
}
