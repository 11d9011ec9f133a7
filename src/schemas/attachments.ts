import * as z from 'zod/mini';
// inputs.js, not the uploads index: this loads on every runtime, the edge entry's included.
import { toPart, type UploadItem } from '../uploads/inputs.js';
import { HttpUrl, UuidString } from './common.js';

/** zod check of an upload item's shape, for `{ file }` attachment references. */
export const UploadItemSchema = z.custom<UploadItem>().check(
  z.superRefine((value, ctx) => {
    const part = toPart(value);
    if (Array.isArray(part)) for (const message of part) ctx.addIssue({ code: 'custom', message });
  }),
);

const SOURCES = ['attachmentId', 'url', 'file'] as const;

/** What every attachment reference may carry besides its source. */
export interface AttachmentRefCommon {
  /** Shown with the attachment on the incident, e.g. `'Ceiling, seen from the landing'`. */
  description?: string;
}

/**
 * An attachment reference as a caller may give it: exactly one of `attachmentId` (already
 * uploaded), `url` (downloaded by the service with a plain GET) or `file` (uploaded by the
 * SDK first), plus an optional `description`.
 *
 * @example
 * const refs: AttachmentRefInput[] = [
 *   { attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' },
 *   { url: 'https://files.example.com/loft.jpg', description: 'Loft' },
 *   { file: './report.pdf', description: 'Plumber report' },
 * ];
 */
export type AttachmentRefInput =
  | (AttachmentRefCommon & {
      /** The id of a file uploaded earlier with `attachments.upload` (a UUID). */
      attachmentId: string;
      /** Not with `attachmentId`: a reference has exactly one source. */
      url?: never;
      /** Not with `attachmentId`: a reference has exactly one source. */
      file?: never;
    })
  | (AttachmentRefCommon & {
      /**
       * An absolute `http:`/`https:` URL the service downloads the file from with a plain GET
       * (no authentication, so no `user:password@`), e.g. `'https://files.example.com/a.jpg'`.
       */
      url: string;
      /** Not with `url`: a reference has exactly one source. */
      attachmentId?: never;
      /** Not with `url`: a reference has exactly one source. */
      file?: never;
    })
  | (AttachmentRefCommon & {
      /**
       * A file for the SDK to upload first (one request for all the call's files): a path,
       * `{ path, filename?, contentType? }` or `{ data, filename, contentType? }`.
       */
      file: UploadItem;
      /** Not with `file`: a reference has exactly one source. */
      attachmentId?: never;
      /** Not with `file`: a reference has exactly one source. */
      url?: never;
    });

export const AttachmentRefInputSchema = z
  .looseObject({
    attachmentId: z.optional(UuidString),
    url: z.optional(HttpUrl),
    file: z.optional(UploadItemSchema),
    description: z.optional(z.string()),
  })
  .check(
    z.superRefine((ref, ctx) => {
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
    }),
  );

/** An attachment reference as the service receives it (spec 2.3). */
export type AttachmentRef =
  | {
      /** The id of an uploaded file (a UUID); `{ file }` references are sent as this. */
      attachmentId: string;
      /** Not with `attachmentId`. */
      url?: never;
      /** Shown with the attachment on the incident. */
      description?: string;
    }
  | {
      /** An absolute `http:`/`https:` URL the service downloads the file from with a plain GET. */
      url: string;
      /** Not with `url`. */
      attachmentId?: never;
      /** Shown with the attachment on the incident. */
      description?: string;
    };

/** One uploaded file (spec 2.5): what `attachments.upload` resolves to, one per file. */
export const UploadedAttachmentSchema = z.looseObject({
  /** The file name the part was sent with, e.g. `'ceiling.jpg'`. */
  filename: z.string(),
  /** The id to reference the file by in `attachments: [{ attachmentId }]` (a UUID). */
  attachmentId: z.string().check(z.minLength(1)),
});
/**
 * One uploaded file: its `filename` as sent and the `attachmentId` to reference it by, plus
 * any other field the server sent. Written out (equal to the schema's type, a type test
 * checks) because `.d.ts` files drop the TSDoc of a schema's fields.
 */
export type UploadedAttachment = {
  /** The file name the part was sent with, e.g. `'ceiling.jpg'`. */
  filename: string;
  /** The id to reference the file by in `attachments: [{ attachmentId }]` (a UUID). */
  attachmentId: string;
  /** Any other field the server sent, kept as sent. */
  [key: string]: unknown;
};

export const UploadResponseSchema = z.array(UploadedAttachmentSchema);
