/**
 * What a user's `fetch` resolved, when it cannot be read as a `Response`: `undefined` when it
 * can. A mock that returns a plain object, or nothing, would otherwise fail deep inside the
 * SDK with a `TypeError` that names no cause. Checked by shape, not `instanceof Response`, so a
 * Response of another realm (undici's, Deno's, Bun's, workerd's, msw's) is taken. A body that
 * is no web stream (node-fetch's Node stream) is not: the SDK reads bodies as web streams.
 */
export function notAResponse(value: unknown): string | undefined {
  const head = notAResponseHead(value);
  if (head !== undefined) return head;
  const { headers, body } = value as {
    headers: { forEach?: unknown };
    body?: { getReader?: unknown } | null;
  };
  if (typeof headers.forEach !== 'function') return 'an object whose headers are not a Headers';
  if (body !== null && body !== undefined && typeof body.getReader !== 'function') {
    return 'an object whose body is not a ReadableStream';
  }
  return undefined;
}

/**
 * The same for a reader that needs only a status and `headers.get` (the sandbox's own
 * requests, which read a body whole when it has no stream).
 */
export function notAResponseHead(value: unknown): string | undefined {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  const response = value as { status?: unknown; headers?: { get?: unknown } | null };
  if (typeof response.status !== 'number') return 'an object without a numeric status';
  if (typeof response.headers?.get !== 'function') return 'an object whose headers are not a Headers';
  return undefined;
}
