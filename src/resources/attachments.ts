import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import { ClaimsResponseValidationError, ClaimsValidationError } from '../errors.js';
import type { UploadedAttachment } from '../schemas/attachments.js';
import { schemas } from '../schemas/load.js';
import type { CallOptions, Transport } from '../transport.js';
import type { UploadItem } from '../uploads/inputs.js';
import type { PrepareUpload } from '../uploads/prepare.js';
import type { UploadProgressListener } from '../uploads/progress.js';
import { sourceFailureError } from '../uploads/source-failure.js';
import { Resource } from './resource.js';

/** Options of `attachments.upload`. */
export interface UploadOptions extends CallOptions {
  /**
   * Called as the files' bytes are sent: per file (`fileBytes` of `fileTotal`) and in all
   * (`bytes` of `total`, when every size is known). A repeated attempt starts again from 0.
   */
  onProgress?: UploadProgressListener;
}

/** File uploads (`client.attachments`): `upload`. */
export class Attachments extends Resource {
  /**
   * @internal Sub-clients are made by `ClaimsClient`, not by users.
   * @param prepareUpload the runtime's multipart builder (Node streams, or web streams on the edge).
   */
  constructor(
    transport: Transport,
    private readonly prepareUpload: PrepareUpload,
  ) {
    super(transport);
  }

  /**
   * Uploads one or more files in one multipart request (POST `/attachments`), one part per
   * file with an empty form name. Files are streamed from disk or from the given data, never
   * read whole into memory; `Content-Length` is sent when every size is known.
   *
   * Paths are checked before anything is sent. An upload is a POST: it is repeated only after
   * a 429 or when no connection could be opened, and never when a source is a stream.
   * @returns one `{ filename, attachmentId }` per file, in the order given.
   * @throws ClaimsValidationError for an empty list, a bad item, or a path that is missing,
   *   a directory or unreadable; nothing was sent.
   * @throws ClaimsError (with the source's error as `cause`) when a source fails mid-upload;
   *   the request is aborted and the server never gets a complete body.
   */
  upload(
    files: UploadItem | readonly UploadItem[],
    options?: UploadOptions,
  ): ClaimsPromise<UploadedAttachment[]> {
    return claimsPromise((sink) => this.#upload(files, options, sink));
  }

  async #upload(
    files: UploadItem | readonly UploadItem[],
    options: UploadOptions | undefined,
    sink: ResponseSink,
  ): Promise<UploadedAttachment[]> {
    const list: readonly unknown[] = Array.isArray(files) ? files : [files];
    if (list.length === 0) {
      throw new ClaimsValidationError([{ path: 'files', message: 'give at least one file to upload' }]);
    }
    // prepareUpload first, before any await: it starts listening to a caller's Node stream,
    // whose error would otherwise crash the process while the schemas load.
    const [prepared, s] = await Promise.all([
      this.prepareUpload(list, (i) => (Array.isArray(files) ? `files[${i}]` : 'files'), options?.onProgress),
      schemas(),
    ]);
    let uploaded: UploadedAttachment[];
    try {
      uploaded = await this.transport.request(
        {
          method: 'POST',
          path: '/attachments',
          route: '/attachments',
          stream: prepared.body,
          responseSchema: s.UploadResponseSchema,
        },
        options,
        sink,
      );
    } catch (error) {
      const failure = prepared.sourceFailure();
      // The wire reports the cut-off request as a connection failure, but its cause is the
      // source: say so. A caller's own abort stays the AbortError it expects.
      if (failure && (error as Error | undefined)?.name !== 'AbortError') {
        throw sourceFailureError(failure);
      }
      throw error;
    }
    const expected = prepared.files;
    if (uploaded.length !== expected) {
      throw new ClaimsResponseValidationError(
        uploaded,
        [
          {
            path: '',
            message: `expected ${expected} uploaded record(s), one per file sent, got ${uploaded.length}`,
          },
        ],
        `POST ${this.transport.baseUrl}/attachments`,
      );
    }
    return uploaded;
  }
}
