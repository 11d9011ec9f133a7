/**
 * Judging an answer: a 2xx into the call's value (or a `ClaimsResponseValidationError`),
 * anything else into the `ClaimsApiError` it stands for. Both read the body through the
 * wire's one capped reader, parse it losslessly and redact the token from what an error keeps.
 */
import { ClaimsResponseValidationError, type ValidationIssue } from '../errors.js';
import { WireFailure } from '../wire/failure.js';
import type { WireResponse } from '../wire/types.js';
import { describeUrl } from './describe.js';
import { parseJsonLossless } from './json.js';
import { excerpt } from './quote.js';
import { redactorFor } from './redact.js';
import { collectIssues, type Schema } from './validate.js';

/** Largest error body kept, in bytes: enough for any real error; the rest is dropped. */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;
/** Default largest 2xx body read, in bytes (10 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** How much of an over-long or non-JSON 2xx body its error keeps as evidence, in characters. */
const EVIDENCE_CHARS = 1024;

const BLANK = /^\s*$/;
const BOM = 0xfeff;

/**
 * A hand-written check of an answer, for a call whose first use should not load zod:
 * `accept` returns the parsed value, or `undefined` when the answer is not valid; only then
 * is `explain` called, for the zod schema that says what is wrong. The two agree (tests pin it).
 */
export interface HandWrittenCheck<T> {
  accept(value: unknown): T | undefined;
  explain(): Promise<Schema<T>>;
}

/** How an answer is validated: a zod schema, or a hand-written check backed by one. */
export type ResponseSchema<T> = Schema<T> | HandWrittenCheck<T>;

/** What a 2xx answer is expected to hold. */
export interface SuccessExpectation<T> {
  /** Validates (and types) the parsed body; without it the parsed JSON or `undefined` is returned. */
  responseSchema?: ResponseSchema<T> | undefined;
  /** `'none'`: nothing is expected; an empty or JSON body resolves to `undefined`. */
  responseBody?: 'none' | undefined;
}

/** The call being judged: for error messages, and the token to redact from them. */
export interface AnswerContext {
  method: string;
  url: string;
  token: string;
  /** Largest 2xx body read, in bytes. */
  maxResponseBytes: number;
}

/**
 * The value of a 2xx answer, the token redacted from it wherever the server echoed it. A body
 * that is not JSON (a proxy's HTML login page), is larger than `maxResponseBytes`, or breaks the
 * schema is a `ClaimsResponseValidationError`: the server acted, but the answer cannot be
 * trusted. Nothing but JSON or an empty body counts as success, whether or not a value is expected.
 */
export async function readSuccess<T>(
  expect: SuccessExpectation<T>,
  response: WireResponse,
  context: AnswerContext,
): Promise<T> {
  const { text: raw, truncated } = await response.text(context.maxResponseBytes);
  const text = withoutBom(raw);
  // Only a failure names the call: describing its URL on every success cost about 1 µs a call.
  const where = () => `${context.method} ${describeUrl(context.url)}`;
  const redactor = redactorFor(context.token);
  if (truncated) {
    throw new ClaimsResponseValidationError(
      redactor.text(text.slice(0, EVIDENCE_CHARS)),
      [
        {
          path: '',
          message: `the body is larger than maxResponseBytes (${context.maxResponseBytes} bytes); reading stopped there`,
        },
      ],
      where(),
    );
  }
  // A test, not `text.trim()`: no copy of the body just to see that it is not blank.
  if (BLANK.test(text)) {
    return judge(expect, undefined, where, redactor);
  }
  let value: unknown;
  try {
    value = parseJsonLossless(text);
  } catch {
    const type = response.headers()['content-type'];
    throw new ClaimsResponseValidationError(
      redactor.text(text.slice(0, EVIDENCE_CHARS)),
      [{ path: '', message: `the body is not valid JSON${type ? ` (content-type ${excerpt(type)})` : ''}` }],
      where(),
    );
  }
  // A server or proxy that echoes the token back must not hand it to the caller in the value.
  if (mayHoldToken(text, context.token) && redactor.finds(text)) value = redactor.value(value);
  return judge(expect, value, where, redactor);
}

/**
 * A cheap first look: the token in any spelling the redactor knows is the token itself, or
 * holds a `%` (URL-encoded) or a `\` (JSON-escaped) somewhere; most answers hold none. A
 * token shorter than {@link MIN_ECHOED_TOKEN} is not looked for in a value: it would be found
 * inside ordinary words and keys (`t` in `attachmentId`), and no issued bearer token is that short.
 */
function mayHoldToken(text: string, token: string): boolean {
  if (token.length < MIN_ECHOED_TOKEN) return false;
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut only: `redactor.finds` (after it) says the same of any text it lets through
  return text.includes(token) || text.includes('%') || text.includes('\\');
}

/** The shortest token looked for in a 2xx answer's value. */
const MIN_ECHOED_TOKEN = 8;

async function judge<T>(
  expect: SuccessExpectation<T>,
  value: unknown,
  where: () => string,
  redactor: ReturnType<typeof redactorFor>,
): Promise<T> {
  if (expect.responseBody === 'none' || !expect.responseSchema) {
    return (expect.responseBody === 'none' ? undefined : value) as T;
  }
  let schema = expect.responseSchema;
  if (isHandWritten(schema)) {
    const accepted = schema.accept(value);
    if (accepted !== undefined) return accepted;
    schema = await schema.explain();
  }
  const { issues, values } = collectIssues([['', schema, value]]);
  if (issues.length === 0) return values[0] as T;
  throw new ClaimsResponseValidationError(redactor.value(value), redactIssues(issues, redactor), where());
}

/** An error answer as read: status, headers and body, the token redacted from them. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A non-2xx answer as an error keeps it: its body parsed when it is JSON, the token redacted
 * from headers (under any name), the body (raw text and every parsed string) and so from the
 * message built from them. A body that cannot be read (cut off, stalled) is `undefined`: the
 * status alone still says what happened.
 */
export async function readErrorAnswer(response: WireResponse, context: AnswerContext): Promise<ErrorAnswer> {
  const redactor = redactorFor(context.token);
  const headers = redactor.headers(response.headers());
  let body: unknown;
  try {
    const { text: raw, truncated } = await response.text(MAX_ERROR_BODY_BYTES);
    const text = withoutBom(raw);
    body = redactor.text(text);
    if (!truncated && !BLANK.test(text)) {
      try {
        body = redactor.value(parseJsonLossless(text));
      } catch {
        // Not JSON: the (redacted) text is the body.
      }
    }
  } catch (error) {
    // A stopped call (the caller's abort, the deadline) wins over the answer being read.
    if (!(error instanceof WireFailure) || error.kind === 'stopped') throw error;
    body = undefined;
  }
  return { status: response.status, headers, body };
}

function isHandWritten<T>(schema: ResponseSchema<T>): schema is HandWrittenCheck<T> {
  return typeof (schema as Partial<HandWrittenCheck<T>>).accept === 'function';
}

/** A UTF-8 byte order mark is not part of the JSON; every wire drops it alike. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === BOM ? text.slice(1) : text;
}

function redactIssues(
  issues: ValidationIssue[],
  redactor: ReturnType<typeof redactorFor>,
): ValidationIssue[] {
  return issues.map((issue) => ({
    ...issue,
    path: redactor.text(issue.path),
    message: redactor.text(issue.message),
  }));
}
