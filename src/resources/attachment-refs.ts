import { ClaimsValidationError, restate } from '../errors.js';
import { excerpt } from '../internal/quote.js';
import type { AttachmentRef, AttachmentRefInput } from '../schemas/attachments.js';
import type { CallOptions } from '../transport.js';
import type { UploadItem } from '../uploads/index.js';
import type { Attachments } from './attachments.js';

/** True when some reference is a `{ file }` to upload first. */
export function hasFileRefs(refs: readonly AttachmentRefInput[] | undefined): boolean {
  return refs?.some((ref) => ref.file !== undefined) ?? false;
}

/**
 * Replaces `{ file }` references by the `attachmentId`s of one upload request, keeping the
 * order of the references, their descriptions and any other field. Nothing is uploaded
 * when there are none. A file that cannot be read is reported at `attachments[i].file`.
 * Any other failure of the upload means the `owner` (the incident or event) was not sent:
 * it rejects with `'not_sent'`, the upload's error (and its own outcome) as `cause`.
 */
export async function resolveAttachmentRefs(
  refs: readonly AttachmentRefInput[] | undefined,
  attachments: Attachments,
  options: CallOptions | undefined,
  owner: 'incident' | 'event',
): Promise<AttachmentRef[] | undefined> {
  if (!refs) return undefined;
  const refIndex: number[] = [];
  const files: UploadItem[] = [];
  for (const [i, ref] of refs.entries()) {
    if (ref.file === undefined) continue;
    refIndex.push(i);
    files.push(ref.file);
  }
  if (files.length === 0) return refs as AttachmentRef[];

  let uploaded: Awaited<ReturnType<Attachments['upload']>>;
  try {
    uploaded = await attachments.upload(files, options);
  } catch (error) {
    if (!(error instanceof ClaimsValidationError)) throw notSentAfter(error, owner);
    // Point the caller at their own reference, not at the internal upload's list.
    const issues = error.issues.map((issue) => ({
      ...issue,
      path: issue.path.replace(
        // Stryker disable next-line Regex: the upload names every item files[i] (its list is an array), so the ^ changes no match
        /^files\[(\d+)\]/,
        (_, k: string) => `attachments[${refIndex[Number(k)]}].file`,
      ),
    }));
    throw new ClaimsValidationError(issues);
  }
  // upload() checked that there is one record per file, in order.
  let next = 0;
  return refs.map((ref) => {
    if (ref.file === undefined) return ref as AttachmentRef;
    const { file: _file, ...rest } = ref;
    return {
      ...rest,
      attachmentId: (uploaded[next++] as { attachmentId: string }).attachmentId,
    } as AttachmentRef;
  });
}

/**
 * The error of an incident or event whose upload failed: it was not sent, whatever the upload's
 * own outcome (an attachment may exist on the server; the cause says so).
 */
function notSentAfter(error: unknown, owner: string): Error {
  const detail = excerpt(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return restate(
    error,
    `The ${owner} was not sent: uploading its { file } attachments failed (${detail})`,
    'not_sent',
  );
}
