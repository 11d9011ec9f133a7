import type { AttachmentRefInput } from '../schemas/attachments.js';
import { toPart } from '../uploads/inputs.js';
import { httpUrlProblems } from './http-url.js';
import { copyUndeclaredKeys, isObject } from './objects.js';

/** The pattern of zod's `z.guid()`, which `UuidString` is. */
const GUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
// Stryker disable next-line ArrayDeclaration,StringLiteral: copying a declared key again writes the same value in the same place
const DECLARED = new Set(['attachmentId', 'url', 'file', 'description']);

/**
 * `AttachmentRefInputSchema`'s parse, hand-written: the reference as zod would output it
 * (declared keys first, in the schema's order, then the others), or `undefined` when zod
 * would report an issue.
 */
export function parseAttachmentRef(input: unknown): AttachmentRefInput | undefined {
  if (!isObject(input)) return undefined;
  const out: Record<string, unknown> = {};
  const { attachmentId, url, file, description } = input;
  if (attachmentId !== undefined && !(typeof attachmentId === 'string' && GUID.test(attachmentId))) {
    return undefined;
  }
  if (url !== undefined && !(typeof url === 'string' && httpUrlProblems(url).length === 0)) return undefined;
  // toPart lists problems, each an issue of UploadItemSchema (it never lists none).
  if (file !== undefined && Array.isArray(toPart(file))) return undefined;
  if (description !== undefined && typeof description !== 'string') return undefined;
  // An optional key is kept when present, even as `undefined`.
  if ('attachmentId' in input) out.attachmentId = attachmentId;
  if ('url' in input) out.url = url;
  if ('file' in input) out.file = file;
  if ('description' in input) out.description = description;
  const sources = Number(attachmentId !== undefined) + Number(url !== undefined) + Number(file !== undefined);
  if (sources !== 1) return undefined;
  copyUndeclaredKeys(input, DECLARED, out);
  return out as unknown as AttachmentRefInput;
}
