import type { ValidationIssue } from '../errors.js';
import { excerpt } from './quote.js';

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What both undici and fetch's Headers accept in a value: no CR, LF or NUL, bytes up to 0xFF.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A bearer token is sent in a header: visible ASCII only, and never echoed in a message. */
const TOKEN = /^[\x21-\x7e]+$/;
/** Node's timers (and so the fetch wire's) overflow past this many ms. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Headers a caller may not set, with why. Hop-by-hop and framing headers belong to the wire
 * (undici refuses some, and a GET would be retried after the refusal); `authorization` and
 * `content-type` are set by the SDK on every request and would be overwritten silently.
 */
const RESERVED_HEADERS: Record<string, string> = {
  host: 'is set from baseUrl',
  connection: 'is managed by the connection pool',
  'keep-alive': 'is managed by the connection pool',
  'proxy-connection': 'is managed by the connection pool',
  'transfer-encoding': 'is set by the SDK from the body',
  'content-length': 'is set by the SDK from the body',
  te: 'is a hop-by-hop header the SDK does not support',
  trailer: 'is a hop-by-hop header the SDK does not support',
  upgrade: 'is a hop-by-hop header the SDK does not support',
  expect: 'is not supported (the SDK does not wait for 100-continue)',
  'http2-settings': 'is a hop-by-hop header the SDK does not support',
  authorization: 'is set by the SDK from accessToken (give a function there to choose the token per request)',
  'content-type': 'is set by the SDK from the body (application/json, or multipart/form-data for uploads)',
};

/** Why a caller may not set header `name` (lower-case), or `undefined` when it may. */
export function reservedHeader(name: string): string | undefined {
  if (Object.hasOwn(RESERVED_HEADERS, name)) return RESERVED_HEADERS[name];
  return name.startsWith('proxy-') ? 'is for proxies and set by the dispatcher' : undefined;
}

/** Problems with a header set given by a caller, by name (values are never quoted: they may be secret). */
export function headerIssues(path: string, headers: unknown): ValidationIssue[] {
  if (headers === null || typeof headers !== 'object') {
    return [{ path, message: 'must be an object of header names to string values' }];
  }
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const reserved = reservedHeader(name.toLowerCase());
    // The name as a path: a caller's text, cut and escaped like any in a message.
    const at = `${path}.${excerpt(name)}`;
    if (!HEADER_NAME.test(name)) issues.push({ path: at, message: 'is not a valid HTTP header name' });
    else if (reserved !== undefined) {
      issues.push({
        path: at,
        message: `cannot be set: it ${reserved}`,
        code: 'reserved_header',
      });
    } else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      issues.push({
        path: at,
        message: 'must be a string without line breaks or characters beyond U+00FF',
      });
    }
  }
  return issues;
}

/** `timeoutMs`, `deadlineMs`: a whole number of ms from 1 to 2³¹−1. */
export function timeoutIssues(path: string, value: unknown): ValidationIssue[] {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_TIMEOUT_MS
    ? []
    : [{ path, message: `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}` }];
}

/** A count or duration that may be zero: a non-negative whole number. */
export function nonNegativeIntegerIssues(path: string, value: unknown): ValidationIssue[] {
  return Number.isSafeInteger(value) && (value as number) >= 0
    ? []
    : [{ path, message: 'must be a non-negative integer' }];
}

/** True when a token can go into `Authorization: Bearer <token>`. */
export function isSendableToken(token: unknown): token is string {
  return typeof token === 'string' && TOKEN.test(token);
}

/** Problems with a call's options; nothing is sent when there are any. */
export function callOptionIssues(options: {
  timeoutMs?: unknown;
  deadlineMs?: unknown;
  maxRetries?: unknown;
  headers?: unknown;
}): ValidationIssue[] {
  return [
    ...(options.timeoutMs === undefined ? [] : timeoutIssues('options.timeoutMs', options.timeoutMs)),
    ...(options.deadlineMs === undefined ? [] : timeoutIssues('options.deadlineMs', options.deadlineMs)),
    ...(options.maxRetries === undefined
      ? []
      : nonNegativeIntegerIssues('options.maxRetries', options.maxRetries)),
    ...(options.headers === undefined ? [] : headerIssues('options.headers', options.headers)),
  ];
}
