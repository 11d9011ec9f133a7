import type { IncomingMessage } from 'node:http';
import { WebhookVerificationError } from './errors.js';
import { sameSecret } from './internal/same-secret.js';
import {
  acceptedValues,
  checkVerifyOptions,
  findHeader,
  missingHeader,
  parseDelivery,
  tooLarge,
  type WebhookHeaders,
  type WebhookVerifyOptions,
  wrongHeader,
} from './internal/webhook-delivery.js';

export type { WebhookHeaders, WebhookVerifyOptions } from './internal/webhook-delivery.js';

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
  return parseDelivery(body, options.schema);
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
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: on Node 20 the 400 reaches the sender either way (destroying only closes the connection after it)
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

/**
 * Fails closed: options that would accept every request (an empty or blank secret), or that
 * could never be compared, are the caller's mistake, reported before any request is judged.
 */
function checkOptions(options: WebhookReceiveOptions<unknown> | undefined, headers: unknown): void {
  checkVerifyOptions(
    options,
    headers === null || typeof headers !== 'object'
      ? [{ path: 'headers', message: "must be the request's headers (a record or Headers)" }]
      : [],
  );
}

function checkHeader(headers: WebhookHeaders, options: WebhookVerifyOptions<unknown>): void {
  const received = findHeader(headers, options.headerName);
  if (received === undefined) throw missingHeader(options.headerName);
  // Every accepted value is compared (no early exit), so timing tells nothing of which matched.
  let matched = false;
  for (const expected of acceptedValues(options)) matched = sameSecret(received, expected) || matched;
  // The message names the header, never either value.
  if (!matched) throw wrongHeader(options.headerName);
}
