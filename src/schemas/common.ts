import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { httpUrlProblems } from '../checks/http-url.js';
import { quote } from '../internal/quote.js';
import { useMessages } from '../internal/validate.js';

export type { OpenString } from '../constants.js';

// Every schema module builds on this one: here the SDK's parses get zod's English messages
// (zod/mini loads none by default), passed per parse, never through zod's global config.
useMessages(en().localeError);

/** A non-empty string. */
export const NonEmptyString = z.string().check(z.minLength(1, 'must not be empty'));

/**
 * An absolute http(s) URL without credentials, sent exactly as given (the rule, shared with
 * the hand-written checks, is `httpUrlProblems`).
 */
export const HttpUrl = z.string().check(
  z.superRefine((value, ctx) => {
    for (const message of httpUrlProblems(value)) ctx.addIssue({ code: 'custom', message });
  }),
);

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
 * the string of its digits, and an id JavaScript would write otherwise (`1.5e300`, `7.0`) as
 * the string the server sent, so here such a string is as good as a number.
 */
export const ReturnedNumericId = z.union([
  z.number(),
  z.string().check(z.regex(/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$|^-?\d+$/, 'must be a numeric id')),
]) as z.ZodMiniType<NumericId>;

/**
 * An incident id as returned by `incidents.create`. `.` and `..` are refused: a URL parser
 * (fetch's among them) collapses such a path segment, and the call would go to another route.
 */
export const IncidentId = NonEmptyString.check(
  z.refine((value) => value !== '.' && value !== '..', {
    error: 'must not be "." or ".." (a URL would drop it as a path segment)',
  }),
);

/** An id the service returns; the spec says string, a number is accepted and turned into one. */
export const ReturnedStringId = z.pipe(z.union([NonEmptyString, z.number()]), z.transform(String));

/** A UUID-shaped id, as `attachmentId` values are. */
export const UuidString = z.guid({ error: 'must be a UUID (as returned by attachments.upload)' });
