import { z } from 'zod';
import { HttpUrl } from './common.js';

/** An HTTP token (RFC 9110): no space, colon, CR, LF or NUL can slip into the name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * A header value the service can put on a delivery as given: visible characters, spaces and
 * tabs; no CR, LF, NUL or other control character (CR/LF would add headers of the caller's
 * making to every delivery).
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A partial update of a webhook (spec 4.6); only the fields given change. */
export const WebhookPatchSchema = z
  .looseObject({
    url: HttpUrl.optional(),
    headerName: z.string().regex(HEADER_NAME, 'must be a valid HTTP header name').optional(),
    headerValue: z
      .string()
      .regex(HEADER_VALUE, 'must not contain CR, LF, NUL or other control characters (only a tab)')
      .optional(),
    isActive: z.boolean().optional(),
  })
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), {
    message: 'is empty: give at least one of url, headerName, headerValue, isActive',
  });
export type WebhookPatch = z.input<typeof WebhookPatchSchema>;
