import { ClaimsResponseValidationError, ClaimsValidationError } from '../errors.js';
import { type UploadedAttachment, UploadResponseSchema } from '../schemas/attachments.js';
import type { CallOptions } from '../transport.js';
import { multipartBody, type UploadItem, UploadItemSchema, uploadFilenames } from '../uploads.js';
import { Resource } from './resource.js';

export class Attachments extends Resource {
  /**
   * Uploads one or more files in one multipart request (POST `/attachments`), streamed from
   * disk or from the given data; never read whole into memory.
   * @returns one `{ filename, attachmentId }` per file, in the order given.
   */
  async upload(
    files: UploadItem | readonly UploadItem[],
    options?: CallOptions,
  ): Promise<UploadedAttachment[]> {
    const items: readonly UploadItem[] = Array.isArray(files) ? files : [files as UploadItem];
    if (items.length === 0) {
      throw new ClaimsValidationError([{ path: 'files', message: 'give at least one file to upload' }]);
    }
    const uploaded = await this.transport.request(
      {
        method: 'POST',
        path: '/attachments',
        params: Object.fromEntries(
          items.map((item, i) => [`files[${i}]`, [UploadItemSchema, item] as const]),
        ),
        stream: multipartBody(items),
        responseSchema: UploadResponseSchema,
      },
      options,
    );
    if (uploaded.length !== items.length) {
      throw new ClaimsResponseValidationError(
        uploaded,
        [{ path: '', message: `expected ${items.length} uploaded record(s), got ${uploaded.length}` }],
        `POST ${this.transport.baseUrl}/attachments`,
      );
    }
    return uploaded;
  }

  /** @internal Names the files will be stored under, in order. */
  static filenames = uploadFilenames;
}
