import type { ClaimsClient } from '../client.js';
import type { UploadedAttachment } from '../schemas/attachments.js';

/** `claims attachments upload`: uploads the files in one request. */
export async function uploadWithProgress(
  client: ClaimsClient,
  files: string[],
): Promise<UploadedAttachment[]> {
  return client.attachments.upload(files);
}
