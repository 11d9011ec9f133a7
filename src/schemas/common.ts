import { z } from 'zod';

export type { OpenString } from '../constants.js';

/** A non-empty string. */
export const NonEmptyString = z.string().min(1, 'must not be empty');

/** An absolute http(s) URL without credentials. */
export const HttpUrl = z.string().superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `must be an absolute http(s) URL, got "${value}"` });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `must use http or https, got "${url.protocol}"` });
  }
  if (url.username || url.password) {
    ctx.addIssue({ code: 'custom', message: 'must not carry credentials (user:password@)' });
  }
});

/** A numeric id (webhook, subscription): a non-negative integer, or a string of digits. */
export const NumericId = z.custom<number | string>(
  (value) =>
    (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
    (typeof value === 'string' && /^\d+$/.test(value)),
  {
    error: (issue) =>
      `must be a non-negative integer id, got ${JSON.stringify(issue.input) ?? String(issue.input)}`,
  },
);
/** A webhook or subscription id: numeric per the spec (a string of digits is accepted too). */
export type NumericId = z.infer<typeof NumericId>;

/** An incident id as returned by `incidents.create`. */
export const IncidentId = NonEmptyString;

/** An id the service returns; the spec says string, a number is accepted and turned into one. */
export const ReturnedStringId = z.union([NonEmptyString, z.number()]).transform(String);

/** A UUID-shaped id, as `attachmentId` values are. */
export const UuidString = z.guid({ error: 'must be a UUID (as returned by attachments.upload)' });
