/**
 * What a user's `fetch` resolved, when it cannot be read as a `Response`: `undefined` when it
 * can. A mock that returns a plain object, or nothing, would otherwise fail deep inside the
 * SDK with a `TypeError` that names no cause. Checked by shape, not `instanceof Response`, so a
 * Response of another realm or of a polyfill (node-fetch, msw) is taken.
 */
export function notAResponse(value: unknown): string | undefined {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  const response = value as { status?: unknown; headers?: unknown; body?: unknown };
  if (typeof response.status !== 'number') return 'an object without a numeric status';
  const headers = response.headers as { get?: unknown; forEach?: unknown } | null | undefined;
  if (typeof headers?.get !== 'function' || typeof headers.forEach !== 'function') {
    return 'an object whose headers are not a Headers';
  }
  const body = response.body as { getReader?: unknown } | null | undefined;
  if (body !== null && body !== undefined && typeof body.getReader !== 'function') {
    return 'an object whose body is not a ReadableStream';
  }
  return undefined;
}
