import type { AttachmentRef, AttachmentRefInput } from '../schemas/attachments.js';
import type { CallOptions } from '../transport.js';
import type { UploadItem } from '../uploads.js';
import type { Attachments } from './attachments.js';

/**
 * Replaces `{ file }` references by the `attachmentId`s of one upload request, keeping the
 * order of the references and their descriptions. Nothing is uploaded when there are none.
 */
export async function resolveAttachmentRefs(
  refs: readonly AttachmentRefInput[] | undefined,
  attachments: Attachments,
  options: CallOptions | undefined,
): Promise<AttachmentRef[] | undefined> {
  if (!refs) return undefined;
  const files = refs.filter((ref) => ref.file !== undefined).map((ref) => ref.file as UploadItem);
  if (files.length === 0) return refs as AttachmentRef[];
  const uploaded = await attachments.upload(files, options);
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
