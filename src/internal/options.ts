import type { ValidationIssue } from '../errors.js';

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What both undici and fetch's Headers accept in a value: no CR, LF or NUL, bytes up to 0xFF.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A bearer token is sent in a header: visible ASCII only, and never echoed in a message. */
const TOKEN = /^[\x21-\x7e]+$/;
/** Node's timers (and so the fetch wire's) overflow past this many ms. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Problems with a header set given by a caller, by name (values are never quoted: they may be secret). */
export function headerIssues(path: string, headers: unknown): ValidationIssue[] {
  if (headers === null || typeof headers !== 'object') {
    return [{ path, message: 'must be an object of header names to string values' }];
  }
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      issues.push({ path: `${path}.${name}`, message: 'is not a valid HTTP header name' });
    else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      issues.push({
        path: `${path}.${name}`,
        message: 'must be a string without line breaks or characters beyond U+00FF',
      });
    }
  }
  return issues;
}

/** `timeoutMs`: a whole number of ms from 1 to 2³¹−1. */
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
  maxRetries?: unknown;
  headers?: unknown;
}): ValidationIssue[] {
  return [
    ...(options.timeoutMs === undefined ? [] : timeoutIssues('options.timeoutMs', options.timeoutMs)),
    ...(options.maxRetries === undefined
      ? []
      : nonNegativeIntegerIssues('options.maxRetries', options.maxRetries)),
    ...(options.headers === undefined ? [] : headerIssues('options.headers', options.headers)),
  ];
}
