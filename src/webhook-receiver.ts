import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ZodType } from 'zod';
import { WebhookVerificationError } from './errors.js';
import { collectIssues } from './internal/validate.js';

/** How a delivery is checked. */
export interface WebhookVerifyOptions<T = unknown> {
  /** The webhook's `headerName` (any case). */
  headerName: string;
  /** The webhook's `headerValue`: the shared secret the delivery must carry. */
  headerValue: string;
  /** Checks (and types) the parsed body; by default any JSON value is accepted, as `unknown`. */
  schema?: ZodType<T>;
}

/** Request headers: node:http / Express `req.headers`, a plain record in any case, or `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a webhook delivery: the configured extra header must carry the expected value
 * (compared in constant time), and the body must be JSON that fits `schema`.
 *
 * `body` is the raw body (`string`, `Buffer`/`Uint8Array`), or a value an Express-style
 * body parser already produced from JSON.
 * @returns the parsed body.
 * @throws WebhookVerificationError on a missing or wrong header, or a bad body.
 */
export function verifyWebhook<T = unknown>(
  headers: WebhookHeaders,
  body: unknown,
  options: WebhookVerifyOptions<T>,
): T {
  checkHeader(headers, options);
  const parsed = parseBody(body);
  // Without a schema any JSON value is accepted: T is then `unknown` unless the caller says otherwise.
  if (!options.schema) return parsed as T;
  const { issues, values } = collectIssues([['', options.schema, parsed]]);
  if (issues.length > 0) {
    throw new WebhookVerificationError(
      'invalid_body',
      'Webhook body does not have the expected shape',
      issues,
    );
  }
  return values[0] as T;
}

/**
 * Reads a node:http request's body (at most `maxBodyBytes`) and verifies it with
 * {@link verifyWebhook}. The header is checked before the body is read.
 */
export async function receiveWebhook<T = unknown>(
  req: IncomingMessage,
  options: WebhookVerifyOptions<T> & { maxBodyBytes?: number },
): Promise<T> {
  // Checked first, so a request without the secret costs no body read.
  checkHeader(req.headers, options);
  const max = options.maxBodyBytes ?? 1024 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max)
      throw new WebhookVerificationError('invalid_body', `Webhook body is larger than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return verifyWebhook(req.headers, Buffer.concat(chunks), options);
}

function checkHeader(headers: WebhookHeaders, options: WebhookVerifyOptions<unknown>): void {
  const received = headerValue(headers, options.headerName);
  if (received === undefined) {
    throw new WebhookVerificationError('missing_header', `Webhook header ${options.headerName} is missing`);
  }
  if (!sameSecret(received, options.headerValue)) {
    // The message names the header, never either value.
    throw new WebhookVerificationError(
      'invalid_header',
      `Webhook header ${options.headerName} has the wrong value`,
    );
  }
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === wanted);
  const value = key === undefined ? undefined : record[key];
  // A repeated header is ambiguous: take it only when every copy is the same.
  if (Array.isArray(value)) return value.every((v) => v === value[0]) ? value[0] : '';
  return value;
}

/**
 * Constant-time comparison. Hashing both sides first gives buffers of equal length whatever
 * the inputs, so neither the content nor the length of the secret leaks through timing.
 */
function sameSecret(received: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(received), digest(expected));
}

function parseBody(body: unknown): unknown {
  if (body === undefined) throw new WebhookVerificationError('invalid_body', 'Webhook body is empty');
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'Webhook body is not valid JSON', [
      { path: '', message: 'not valid JSON' },
    ]);
  }
}
