import type { CheckedUrl } from '../attachments.js';
import { validationFailed } from '../http.js';
import type { SandboxLinkedAttachment } from '../incidents.js';
import type { AttachmentRefBody } from '../schemas.js';
import type { SandboxErrorDetail } from '../types.js';
import type { SandboxContext } from './context.js';

/**
 * Checks attachment references before anything is created: every `attachmentId` must exist,
 * and every `url` must answer a plain GET (spec, attachment rules 3 and 4). Problems found
 * earlier in the body are reported together with these. Resolves to a function that starts
 * the downloads and gives the attachments to link, in the order referenced (or, with
 * `discard()`, drops the checked downloads when the call fails after all).
 * @throws SandboxHttpError 422 listing every problem.
 */
export async function checkAttachmentRefs(
  ctx: SandboxContext,
  refs: readonly AttachmentRefBody[],
  earlier: SandboxErrorDetail[],
): Promise<LinkAttachments> {
  const problems = [...earlier];
  refs.forEach((ref, i) => {
    if (ref.attachmentId !== undefined && !ctx.attachments.get(ref.attachmentId)) {
      problems.push({
        path: `attachments[${i}].attachmentId`,
        code: 'unknown_attachment',
        message: `no uploaded attachment "${ref.attachmentId}"`,
      });
    }
  });
  // Only a body that is otherwise valid costs the GETs.
  if (problems.length > 0) throw validationFailed(problems);

  const checks = await Promise.all(
    refs.map((ref, i) =>
      ref.url === undefined ? undefined : ctx.attachments.checkUrl(ref.url, `attachments[${i}].url`),
    ),
  );
  const ready = checks.filter((c): c is CheckedUrl => c !== undefined && 'response' in c);
  const failed = checks.filter((c): c is SandboxErrorDetail => c !== undefined && !('response' in c));
  if (failed.length > 0) {
    await ctx.attachments.discard(ready);
    throw validationFailed(failed);
  }

  const link = () =>
    refs.map((ref, i) => {
      const check = checks[i];
      const record =
        check && 'response' in check
          ? ctx.attachments.startDownload(check)
          : ctx.attachments.get(ref.attachmentId as string);
      return {
        attachmentId: record?.attachmentId as string,
        filename: record?.filename as string,
        description: ref.description ?? null,
      };
    });
  return Object.assign(link, { discard: () => void ctx.attachments.discard(ready) });
}

/** Starts the checked downloads and gives the attachments to link; `discard()` drops them instead. */
export type LinkAttachments = (() => SandboxLinkedAttachment[]) & { discard(): void };
