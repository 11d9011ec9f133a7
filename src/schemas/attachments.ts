import { z } from 'zod';
import { toPart, type UploadItem } from '../uploads/index.js';
import { HttpUrl, UuidString } from './common.js';

/** zod check of an upload item's shape, for `{ file }` attachment references. */
export const UploadItemSchema = z.custom<UploadItem>().superRefine((value, ctx) => {
  const part = toPart(value);
  if (Array.isArray(part)) for (const message of part) ctx.addIssue({ code: 'custom', message });
});

const SOURCES = ['attachmentId', 'url', 'file'] as const;

/**
 * An attachment reference as a caller may give it: exactly one of `attachmentId` (already
 * uploaded), `url` (downloaded by the service with a plain GET) or `file` (uploaded by the
 * SDK first), plus an optional `description`.
 */
export const AttachmentRefInputSchema = z
  .looseObject({
    attachmentId: UuidString.optional(),
    url: HttpUrl.optional(),
    file: UploadItemSchema.optional(),
    description: z.string().optional(),
  })
  .superRefine((ref, ctx) => {
    const given = SOURCES.filter((key) => ref[key] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          given.length === 0
            ? 'needs one of attachmentId, url or file'
            : `give exactly one of attachmentId, url or file, not ${given.join(' and ')}`,
      });
    }
  });
export type AttachmentRefInput = z.input<typeof AttachmentRefInputSchema>;

/** An attachment reference as the service receives it (spec 2.3). */
export type AttachmentRef =
  | { attachmentId: string; url?: never; description?: string }
  | { url: string; attachmentId?: never; description?: string };

/** One uploaded file (spec 2.5). */
export const UploadedAttachmentSchema = z.looseObject({
  filename: z.string(),
  attachmentId: z.string().min(1),
});
export type UploadedAttachment = z.infer<typeof UploadedAttachmentSchema>;

export const UploadResponseSchema = z.array(UploadedAttachmentSchema);
