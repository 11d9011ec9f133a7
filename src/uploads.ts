import { Readable } from 'node:stream';
import FormData from 'form-data';
import { z } from 'zod';
import type { StreamBody } from './transport.js';

/** Bytes to upload, with the name the service should store. */
export interface UploadData {
  data: Uint8Array | Blob | Readable | ReadableStream<Uint8Array>;
  filename: string;
  contentType?: string;
}

/** A file on disk; `filename` defaults to the path's base name. */
export interface UploadPath {
  path: string;
  filename?: string;
  contentType?: string;
}

/** One file to upload: a path, `{ path, filename?, contentType? }` or `{ data, filename, contentType? }`. */
export type UploadItem = string | UploadPath | UploadData;

function isUploadItem(value: unknown): value is UploadItem {
  if (typeof value === 'string') return value.length > 0;
  if (value === null || typeof value !== 'object') return false;
  const item = value as Record<string, unknown>;
  if (typeof item.path === 'string') return item.path.length > 0;
  return 'data' in item && typeof item.filename === 'string' && item.filename.length > 0;
}

/** Checks the shape of an upload item (a deeper check of the source happens on upload). */
export const UploadItemSchema = z.custom<UploadItem>(isUploadItem, {
  error: 'must be a file path, { path, filename?, contentType? } or { data, filename, contentType? }',
});

/** Names of the files in upload order, as the service will echo them. */
export function uploadFilenames(items: readonly UploadItem[]): string[] {
  return items.map((item) => {
    if (typeof item === 'string') return baseName(item);
    if ('path' in item) return item.filename ?? baseName(item.path);
    return item.filename;
  });
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** One multipart body with one part per item, each part's form name empty (spec 4.1). */
export function multipartBody(items: readonly UploadItem[]): StreamBody {
  const replayable = items.every((item) => {
    if (typeof item === 'string' || 'path' in item) return true;
    return item.data instanceof Uint8Array || item.data instanceof Blob;
  });
  return {
    replayable,
    async open() {
      const form = new FormData();
      const names = uploadFilenames(items);
      for (const [i, item] of items.entries()) {
        const filename = names[i] as string;
        if (typeof item === 'string' || 'path' in item) {
          const { createReadStream } = await import('node:fs');
          const path = typeof item === 'string' ? item : item.path;
          const contentType = typeof item === 'string' ? undefined : item.contentType;
          form.append('', createReadStream(path), { filename, contentType });
        } else {
          const data = item.data;
          const source =
            data instanceof Uint8Array
              ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
              : data instanceof Blob
                ? Readable.fromWeb(data.stream() as import('node:stream/web').ReadableStream)
                : data instanceof Readable
                  ? data
                  : Readable.fromWeb(data as import('node:stream/web').ReadableStream);
          form.append('', source, { filename, contentType: item.contentType });
        }
      }
      return { stream: form as unknown as Readable, headers: form.getHeaders() as Record<string, string> };
    },
  };
}
