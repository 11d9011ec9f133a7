import type { $ZodType } from 'zod/v4/core';
import { ClaimsValidationError, type ValidationIssue, WebhookVerificationError } from '../errors.js';
import { collectIssues, type Schema } from './validate.js';

// The parts of checking a delivery that need no platform API: shared by `verifyWebhook`
// (main entry, node:crypto) and the receivers of `claims-notification-sdk/webhooks` (Web
// Crypto), so both judge options, headers and bodies alike. No `node:` import here: the
// receivers run on workerd, Deno, Bun and Vercel Edge too.

/** How a delivery is checked. */
export interface WebhookVerifyOptions<T = unknown> {
  /** The webhook's `headerName` (any case); a non-empty HTTP header name. */
  headerName: string;
  /**
   * The webhook's `headerValue`: the shared secret the delivery must carry. Must be a string
   * with more than whitespace: an empty secret is refused (`ClaimsValidationError`) rather
   * than letting every request through.
   *
   * A list accepts any of its values: during a rotation, give the current and the next value
   * (`[current, next]`), change the webhook, then drop the old one (docs/receiving-webhooks.md,
   * "Rotating the header value"). The list must not be empty, and every value follows the rule above.
   */
  headerValue: string | readonly string[];
  /**
   * Checks (and types) the parsed body, a zod schema (`zod` or `zod/mini`) whose issues are
   * worded by your zod configuration; by default any JSON value is accepted, as `unknown`.
   */
  schema?: $ZodType<T>;
}

/** Request headers: node:http / Express `req.headers`, a plain record in any case, or `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

// An HTTP field name (RFC 9110 token): anything else could never match a received header.
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The problems of options that would accept every request (an empty or blank secret) or that
 * could never be compared: the caller's mistake, reported before any request is judged.
 * `maxBodyBytes` is checked here too, for the callers that take it.
 */
export function optionProblems(options: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { headerName, headerValue, maxBodyBytes } = (options ?? {}) as Record<string, unknown>;
  if (typeof headerName !== 'string' || !HEADER_NAME_RE.test(headerName)) {
    issues.push({
      path: 'headerName',
      message: 'must be a non-empty HTTP header name, e.g. "X-Hook-Secret"',
    });
  }
  if (Array.isArray(headerValue)) {
    if (headerValue.length === 0) {
      issues.push({
        path: 'headerValue',
        message: 'must list at least one accepted value; an empty list would accept nothing',
      });
    }
    headerValue.forEach((value, i) => {
      if (isBlank(value)) issues.push({ path: `headerValue[${i}]`, message: BLANK_SECRET });
    });
  } else if (isBlank(headerValue)) {
    issues.push({ path: 'headerValue', message: BLANK_SECRET });
  }
  if (maxBodyBytes !== undefined && !(Number.isSafeInteger(maxBodyBytes) && (maxBodyBytes as number) > 0)) {
    issues.push({ path: 'maxBodyBytes', message: 'must be a positive whole number of bytes' });
  }
  return issues;
}

const BLANK_SECRET = "must be the webhook's non-empty secret; an empty one would accept any request";

function isBlank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '';
}

/** Throws `ClaimsValidationError` when {@link optionProblems} finds any. */
export function checkVerifyOptions(options: unknown, extra: ValidationIssue[]): void {
  const issues = [...optionProblems(options), ...extra];
  if (issues.length > 0) throw new ClaimsValidationError(issues);
}

/** The accepted values of `headerValue`, always as a list. */
export function acceptedValues(options: WebhookVerifyOptions<unknown>): readonly string[] {
  return typeof options.headerValue === 'string' ? [options.headerValue] : options.headerValue;
}

/**
 * The value of header `name` (any case). A repeated header is ambiguous: it is taken only
 * when every copy is the same, else `''` (which matches no secret).
 */
export function findHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  const record = headers as Record<string, string | string[] | undefined>;
  const value = Object.entries(record).find(([k]) => k.toLowerCase() === wanted)?.[1];
  // Stryker disable next-line StringLiteral: any text but a secret is as wrong as '' (secrets are never blank)
  if (Array.isArray(value)) return value.every((v) => v === value[0]) ? value[0] : '';
  return value;
}

/** The error for a delivery whose header is absent. */
export function missingHeader(headerName: string): WebhookVerificationError {
  return new WebhookVerificationError('missing_header', `Webhook header ${headerName} is missing`);
}

/** The error for a delivery whose header has none of the accepted values; it names no value. */
export function wrongHeader(headerName: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_header', `Webhook header ${headerName} has the wrong value`);
}

/**
 * The body as JSON, checked by `schema` when given. `body` is raw (`string`, bytes) or a
 * value a body parser already produced.
 * @throws WebhookVerificationError (`invalid_body`) for an empty body, bad JSON or a body the
 *   schema refuses.
 */
export function parseDelivery<T>(body: unknown, schema: $ZodType<T> | undefined): T {
  const parsed = parseJson(body);
  // Without a schema any JSON value is accepted: T is then `unknown` unless the caller says otherwise.
  if (!schema) return parsed as T;
  // Both zod and zod/mini schemas have safeParse; a bare zod/v4/core schema is not one the docs offer.
  const { issues, values } = collectIssues([['', schema as Schema<T>, parsed]], {});
  if (issues.length > 0) {
    throw new WebhookVerificationError(
      'invalid_body',
      'Webhook body does not have the expected shape',
      issues,
    );
  }
  return values[0] as T;
}

function parseJson(body: unknown): unknown {
  if (body === undefined) throw new WebhookVerificationError('invalid_body', 'Webhook body is empty');
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'Webhook body is not valid JSON', [
      { path: '', message: 'not valid JSON' },
    ]);
  }
}

/** The error for a body over `max` bytes. */
export function tooLarge(max: number): WebhookVerificationError {
  return new WebhookVerificationError('invalid_body', `Webhook body is larger than ${max} bytes`, [
    { path: '', message: `larger than ${max} bytes` },
  ]);
}
