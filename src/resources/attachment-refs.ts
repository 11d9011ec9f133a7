import { ClaimsValidationError } from '../errors.js';
import type { AttachmentRef, AttachmentRefInput } from '../schemas/attachments.js';
import type { CallOptions } from '../transport.js';
import type { UploadItem } from '../uploads/index.js';
import type { Attachments } from './attachments.js';

/**
 * Replaces `{ file }` references by the `attachmentId`s of one upload request, keeping the
 * order of the references, their descriptions and any other field. Nothing is uploaded
 * when there are none. A file that cannot be read is reported at `attachments[i].file`.
 */
export async function resolveAttachmentRefs(
  refs: readonly AttachmentRefInput[] | undefined,
  attachments: Attachments,
  options: CallOptions | undefined,
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
    if (!(error instanceof ClaimsValidationError)) throw error;
    // Point the caller at their own reference, not at the internal upload's list.
    const issues = error.issues.map((issue) => ({
      ...issue,
      path: issue.path.replace(
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
