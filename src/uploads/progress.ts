/** How far an upload has gone, given to `attachments.upload(files, { onProgress })`. */
export interface UploadProgress {
  /** The file being sent now. */
  filename: string;
  /** Its position in the list given (0-based). */
  index: number;
  /** Bytes of this file sent so far. */
  fileBytes: number;
  /** This file's size in bytes; `undefined` for a stream (then only reading it would tell). */
  fileTotal: number | undefined;
  /** Bytes of all files sent so far (file contents, not the multipart framing). */
  bytes: number;
  /** The size of all files in bytes, when every size is known. */
  total: number | undefined;
}

const encoder = new TextEncoder();

/** Called as an upload's bytes are sent; a repeated attempt starts again from 0. */
export type UploadProgressListener = (progress: UploadProgress) => void;

/**
 * Counts a part's bytes as the multipart body reads them, for one attempt. The count is of
 * bytes handed to the request body; the socket buffers at most a few hundred KiB beyond it.
 */
export function progressCounter(
  listener: UploadProgressListener,
  sizes: ReadonlyArray<number | undefined>,
): (index: number, filename: string) => (chunk: Uint8Array | string) => void {
  const total = sizes.every((s) => s !== undefined)
    ? sizes.reduce<number>((a, s) => a + (s ?? 0), 0)
    : undefined;
  let bytes = 0;
  return (index, filename) => {
    let fileBytes = 0;
    return (chunk) => {
      // No Buffer: the edge build counts with this too.
      const n = typeof chunk === 'string' ? encoder.encode(chunk).byteLength : chunk.byteLength;
      fileBytes += n;
      bytes += n;
      listener({ filename, index, fileBytes, fileTotal: sizes[index], bytes, total });
    };
  };
}
