/**
 * The wires' one way to say "the connection was dead before any byte of this request was
 * written", which the transport answers by sending the request once more on a fresh
 * connection (`WireRequest.freshConnection`), a POST included, without counting a retry.
 *
 * A wire may say it only when it can prove it, from its own connection: not from an error
 * code alone (an `ECONNRESET` may come after the whole request left). The error must be a
 * `ClaimsConnectionError` with outcome `'not_sent'`.
 */

const dead = new WeakSet<Error>();

/** Marks a wire's error: the connection was dead before any byte of the request was written. */
export function markDeadConnection<E extends Error>(error: E): E {
  dead.add(error);
  return error;
}

/** True when a wire marked the error with {@link markDeadConnection}. */
export function isDeadConnection(error: unknown): boolean {
  return error instanceof Error && dead.has(error);
}
