import { z } from 'zod';
import { HttpUrl } from './common.js';

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A partial update of a webhook (spec 4.6); only the fields given change. */
export const WebhookPatchSchema = z
  .looseObject({
    url: HttpUrl.optional(),
    headerName: z.string().regex(HEADER_NAME, 'must be a valid HTTP header name').optional(),
    headerValue: z.string().optional(),
    isActive: z.boolean().optional(),
  })
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), {
    message: 'is empty: give at least one of url, headerName, headerValue, isActive',
  });
export type WebhookPatch = z.input<typeof WebhookPatchSchema>;
