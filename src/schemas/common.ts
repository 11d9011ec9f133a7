import { z } from 'zod';
import { quote } from '../internal/quote.js';

export type { OpenString } from '../constants.js';

/** A non-empty string. */
export const NonEmptyString = z.string().min(1, 'must not be empty');

/**
 * What `new URL()` would quietly drop or rewrite, so that the URL checked is not the one sent:
 * whitespace and control characters (a leading space, a tab or CR/LF inside are removed) and
 * backslashes (read as `/` in http(s) URLs, so `http://a.example\@b.example` names host `a`
 * to one parser and `b` to another).
 */
// Written as what is allowed: visible ASCII but `\`, and anything from U+00A0 on.
const REWRITTEN_BY_URL_PARSER = /[^\x21-\x5b\x5d-\x7e\u00a0-\uffff]/;

/**
 * An absolute http(s) URL without credentials. It is sent exactly as given (the service
 * parses it), so a string the URL parser would first have to clean up is refused.
 */
export const HttpUrl = z.string().superRefine((value, ctx) => {
  if (REWRITTEN_BY_URL_PARSER.test(value)) {
    ctx.addIssue({
      code: 'custom',
      message: `must be an absolute http(s) URL without whitespace, control characters or backslashes (it is sent as given), got ${quote(value)}`,
    });
    return;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `must be an absolute http(s) URL, got ${quote(value)}` });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `must use http or https, got ${quote(url.protocol)}` });
  }
  if (url.username || url.password) {
    ctx.addIssue({ code: 'custom', message: 'must not carry credentials (user:password@)' });
  }
});

/**
 * A numeric id (webhook, subscription) as a path parameter: a non-negative safe integer, or
 * a string of digits of any length (sent exactly). A number past `Number.MAX_SAFE_INTEGER`
 * is refused: JavaScript already rounded it, so it may name another record.
 */
export const NumericId = z.custom<number | string>(
  (value) =>
    (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
    (typeof value === 'string' && /^\d+$/.test(value)),
  {
    error: (issue) =>
      typeof issue.input === 'number' && Number.isInteger(issue.input) && issue.input > 0
        ? `is a number beyond Number.MAX_SAFE_INTEGER (2^53 - 1), already rounded by JavaScript to ${issue.input}: pass the id as a string of digits`
        : `must be a non-negative integer id, got ${quote(issue.input)}`,
  },
);
/**
 * A webhook or subscription id. In answers: a `number` when it is a safe integer, else a
 * `string` of its exact digits (ids past 2^53 would be rounded as numbers). As a parameter:
 * either, as an answer gave it; a digit string is sent exactly.
 */
export type NumericId = number | string;

/**
 * A numeric id in an answer. Answers are parsed losslessly: an integer past 2^53 arrives as
 * the string of its digits, so here a digit string is as good as a number.
 */
export const ReturnedNumericId = z.union([
  z.number(),
  z.string().regex(/^-?\d+$/, 'must be an integer id'),
]) as z.ZodType<NumericId>;

/**
 * An incident id as returned by `incidents.create`. `.` and `..` are refused: a URL parser
 * (fetch's among them) collapses such a path segment, and the call would go to another route.
 */
export const IncidentId = NonEmptyString.refine((value) => value !== '.' && value !== '..', {
  error: 'must not be "." or ".." (a URL would drop it as a path segment)',
});

/** An id the service returns; the spec says string, a number is accepted and turned into one. */
export const ReturnedStringId = z.union([NonEmptyString, z.number()]).transform(String);

/** A UUID-shaped id, as `attachmentId` values are. */
export const UuidString = z.guid({ error: 'must be a UUID (as returned by attachments.upload)' });
