import type { IncomingMessage } from 'node:http';
import type { $ZodType } from 'zod/v4/core';
import { ClaimsValidationError, type ValidationIssue, WebhookVerificationError } from './errors.js';
import { sameSecret } from './internal/same-secret.js';
import { collectIssues, type Schema } from './internal/validate.js';

/** How a delivery is checked. */
export interface WebhookVerifyOptions<T = unknown> {
  /** The webhook's `headerName` (any case); a non-empty HTTP header name. */
  headerName: string;
  /**
   * The webhook's `headerValue`: the shared secret the delivery must carry. Must be a string
   * with more than whitespace: an empty secret is refused (`ClaimsValidationError`) rather
   * than letting every request through.
   */
  headerValue: string;
  /**
   * Checks (and types) the parsed body, a zod schema (`zod` or `zod/mini`) whose issues are
   * worded by your zod configuration; by default any JSON value is accepted, as `unknown`.
   */
  schema?: $ZodType<T>;
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
 * @throws ClaimsValidationError when `options` cannot verify anything (an empty, blank or
 *   non-string `headerValue`, a bad `headerName`): it fails closed, never accepting everything.
 * @throws WebhookVerificationError on a missing or wrong header, or a bad body.
 */
export function verifyWebhook<T = unknown>(
  headers: WebhookHeaders,
  body: unknown,
  options: WebhookVerifyOptions<T>,
): T {
  checkOptions(options, headers);
  checkHeader(headers, options);
  const parsed = parseBody(body);
  // Without a schema any JSON value is accepted: T is then `unknown` unless the caller says otherwise.
  if (!options.schema) return parsed as T;
  // Both zod and zod/mini schemas have safeParse; a bare zod/v4/core schema is not one the docs offer.
  const { issues, values } = collectIssues([['', options.schema as Schema<T>, parsed]], {});
  if (issues.length > 0) {
    throw new WebhookVerificationError(
      'invalid_body',
      'Webhook body does not have the expected shape',
      issues,
    );
  }
  return values[0] as T;
}

/** Options of {@link receiveWebhook}. */
export interface WebhookReceiveOptions<T = unknown> extends WebhookVerifyOptions<T> {
  /**
   * Largest body read, in bytes. A bigger body (by its `Content-Length`, or as it arrives)
   * is refused with `WebhookVerificationError` (`invalid_body`) and no more of it is kept.
   * @default 1048576 (1 MiB)
   */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a node:http request's body (at most `maxBodyBytes`) and verifies it with
 * {@link verifyWebhook}. The header is checked before the body is read.
 * @throws ClaimsValidationError for options that cannot verify anything (see verifyWebhook).
 * @throws WebhookVerificationError on a missing or wrong header, a bad body, a body over
 *   `maxBodyBytes`, or a body cut off because the sender closed the connection (all three
 *   `invalid_body`, so a handler answers them with 400 alike; the cut one keeps the stream's
 *   error as `cause`).
 */
export async function receiveWebhook<T = unknown>(
  req: IncomingMessage,
  options: WebhookReceiveOptions<T>,
): Promise<T> {
  checkOptions(options, req?.headers);
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Checked first, so a request without the secret costs no body read.
  checkHeader(req.headers, options);
  const declared = Number(req.headers['content-length']);
  if (declared > max) throw tooLarge(max);
  return verifyWebhook(req.headers, await readBody(req, max), options);
}

/**
 * The body, at most `max` bytes. Past the cap reading stops without destroying the request,
 * so the handler can still answer (Node discards the rest once the response ends).
 */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      size += (chunk as Buffer).length;
      if (size > max) throw tooLarge(max);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw error;
    // The sender closed the connection mid-body ('aborted', ECONNRESET, premature close).
    throw new WebhookVerificationError(
      'invalid_body',
      'Webhook body was cut off: the sender closed the connection before the end',
      [{ path: '', message: 'body cut off' }],
      { cause: error },
    );
  }
  return Buffer.concat(chunks);
}

function tooLarge(max: number): WebhookVerificationError {
  return new WebhookVerificationError('invalid_body', `Webhook body is larger than ${max} bytes`, [
    { path: '', message: `larger than ${max} bytes` },
  ]);
}

// An HTTP field name (RFC 9110 token): anything else could never match a received header.
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Fails closed: options that would accept every request (an empty or blank secret), or that
 * could never be compared, are the caller's mistake, reported before any request is judged.
 */
function checkOptions(options: WebhookReceiveOptions<unknown> | undefined, headers: unknown): void {
  const issues: ValidationIssue[] = [];
  const { headerName, headerValue, maxBodyBytes } = (options ?? {}) as Record<string, unknown>;
  if (typeof headerName !== 'string' || !HEADER_NAME_RE.test(headerName)) {
    issues.push({
      path: 'headerName',
      message: 'must be a non-empty HTTP header name, e.g. "X-Hook-Secret"',
    });
  }
  if (typeof headerValue !== 'string' || headerValue.trim() === '') {
    issues.push({
      path: 'headerValue',
      message: "must be the webhook's non-empty secret; an empty one would accept any request",
    });
  }
  if (
    maxBodyBytes !== undefined &&
    !(typeof maxBodyBytes === 'number' && Number.isSafeInteger(maxBodyBytes) && maxBodyBytes > 0)
  ) {
    issues.push({ path: 'maxBodyBytes', message: 'must be a positive whole number of bytes' });
  }
  if (headers === null || typeof headers !== 'object') {
    issues.push({ path: 'headers', message: "must be the request's headers (a record or Headers)" });
  }
  if (issues.length > 0) {
    throw new ClaimsValidationError(issues);
  }
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
