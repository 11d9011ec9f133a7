import { json, SandboxHttpError, validationFailed } from '../http.js';
import { MultipartError, type MultipartPart, parseMultipart } from '../multipart.js';
import type { SandboxErrorDetail } from '../types.js';
import type { RouteHandler } from './context.js';

/**
 * POST /attachments: multipart, one file per part, each part's form name empty (spec 4.1).
 * → 201 `[{ filename, attachmentId }]`, one per file, in order. A part whose name is not
 * exactly `name=""` (a non-empty name, or no name parameter at all) is refused (400), so a
 * client that gets the form names wrong finds out in tests.
 */
export const uploadAttachments: RouteHandler = (req, _params, ctx) => {
  let parts: MultipartPart[];
  try {
    parts = parseMultipart(req.body, req.headers['content-type'] ?? '');
  } catch (error) {
    if (!(error instanceof MultipartError)) throw error;
    if (error.unsupportedType) throw new SandboxHttpError(415, 'unsupported_media_type', error.message);
    throw new SandboxHttpError(400, 'invalid_multipart', error.message);
  }
  if (parts.length === 0) throw new SandboxHttpError(400, 'invalid_multipart', 'The body holds no file part');
  const problems: SandboxErrorDetail[] = [];
  parts.forEach((part, i) => {
    if (part.name === undefined) {
      // The spec's form part name is empty, not absent: a client that leaves `name` out
      // (a part RFC 7578 does not allow) would be refused by a strict server.
      problems.push({
        path: `parts[${i}]`,
        code: 'part_name_missing',
        message: 'the part has no form name; send an empty one (name="")',
      });
    } else if (part.name !== '') {
      problems.push({
        path: `parts[${i}]`,
        code: 'part_name_not_empty',
        message: `the form name must be empty, got "${part.name}"`,
      });
    }
    if (!part.filename) {
      problems.push({
        path: `parts[${i}]`,
        code: 'missing_filename',
        message: 'each part must be a file with a filename',
      });
    }
    const tooLarge = ctx.attachments.uploadProblem(part.data.length, `parts[${i}]`);
    if (tooLarge) problems.push(tooLarge);
  });
  if (problems.some((p) => p.code !== 'attachment_too_large')) {
    throw new SandboxHttpError(
      400,
      'invalid_multipart',
      problems.map((p) => `${p.path}: ${p.message}`).join('; '),
      problems,
    );
  }
  if (problems.length > 0) throw validationFailed(problems);
  ctx.usage.reserve(
    { attachments: parts.length },
    parts.reduce((sum, part) => sum + part.data.length, 0),
  );
  const stored = parts.map((part) =>
    ctx.attachments.addUpload({
      filename: part.filename as string,
      contentType: part.contentType,
      data: part.data,
    }),
  );
  return json(
    201,
    stored.map(({ filename, attachmentId }) => ({ filename, attachmentId })),
  );
};
