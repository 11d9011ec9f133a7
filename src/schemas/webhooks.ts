import * as z from 'zod/mini';
import { HttpUrl } from './common.js';
import { documentedKeys, nearTypoCheck } from './near-typos.js';

/** An HTTP token (RFC 9110): no space, colon, CR, LF or NUL can slip into the name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * A header value the service can put on a delivery as given: visible characters, spaces and
 * tabs; no CR, LF, NUL or other control character (CR/LF would add headers of the caller's
 * making to every delivery).
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * A partial update of a webhook (spec 4.6): only the fields given change; at least one must
 * be given.
 *
 * @example
 * await client.webhooks.update(12, { url: 'https://hooks.example.com/claims', headerName: 'X-Hook-Secret', headerValue: secret });
 */
export interface WebhookPatch {
  /** Where deliveries are POSTed: an absolute `http:`/`https:` URL, e.g. `'https://hooks.example.com/claims'`. */
  url?: string;
  /** Name of the one extra header sent with each delivery, e.g. `'X-Hook-Secret'` (a valid HTTP header name). */
  headerName?: string;
  /** Value of that header, e.g. a shared secret your receiver checks (redacted from the SDK's logs). */
  headerValue?: string;
  /** `false` stops every delivery of the webhook (all its subscriptions); `true` resumes them. */
  isActive?: boolean;
}

/** The documented keys of {@link WebhookPatch}. */
export const WEBHOOK_PATCH_KEYS = documentedKeys<WebhookPatch>({
  url: true,
  headerName: true,
  headerValue: true,
  isActive: true,
});

export const WebhookPatchSchema = z
  .looseObject({
    url: z.optional(HttpUrl),
    headerName: z.optional(z.string().check(z.regex(HEADER_NAME, 'must be a valid HTTP header name'))),
    headerValue: z.optional(
      z
        .string()
        .check(
          z.regex(HEADER_VALUE, 'must not contain CR, LF, NUL or other control characters (only a tab)'),
        ),
    ),
    isActive: z.optional(z.boolean()),
  })
  .check(
    nearTypoCheck(WEBHOOK_PATCH_KEYS),
    z.refine((patch) => Object.values(patch).some((v) => v !== undefined), {
      message: 'is empty: give at least one of url, headerName, headerValue, isActive',
    }),
  );
