/**
 * The wires' one way to say "the connection was dead before any byte of this request was
 * written", which the transport answers by sending the request once more on a fresh
 * connection (`WireRequest.freshConnection`), a POST included, without counting a retry.
 *
 * A wire may say it only when it can prove it, from its own connection: not from an error
 * code alone (an `ECONNRESET` may come after the whole request left). The error must be a
 * `ClaimsConnectionError` with outcome `'not_sent'`.
 */
import { ClaimsConnectionError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { excerpt } from '../internal/quote.js';

/**
 * A connection that was open and then found closed: a kept-alive one the server or a balancer
 * dropped while idle. (A connection that could not be opened keeps the retry rules of its own.)
 */
const DEAD_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

const dead = new WeakSet<Error>();

/** Marks a wire's error: the connection was dead before any byte of the request was written. */
export function markDeadConnection<E extends Error>(error: E): E {
  dead.add(error);
  return error;
}

/** True when a wire marked the error with {@link markDeadConnection}. */
export function isDeadConnection(error: unknown): boolean {
  // Only errors are ever added; a WeakSet answers false for anything else.
  return dead.has(error as Error);
}

/**
 * The error of a request a wire provably never wrote (`cause`, the socket's error): nothing was
 * sent. Marked a dead connection when the socket was found closed, so that the transport sends
 * it once more on a fresh one.
 */
export function neverWrittenError(cause: unknown): ClaimsConnectionError {
  const code = (cause as { code?: unknown }).code;
  const failure = new ClaimsConnectionError(
    `Connection failed before any byte of the request was written, nothing was sent: ${excerpt(errorMessage(cause))}${typeof code === 'string' ? ` (${code})` : ''}`,
    { cause, outcome: 'not_sent' },
  );
  // The set answers false for a code that is not a string.
  return DEAD_SOCKET_CODES.has(code as string) ? markDeadConnection(failure) : failure;
}
