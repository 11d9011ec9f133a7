import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { quote } from '../internal/quote.js';
import { contentTypeFor, isContentType } from './content-types.js';

/** Bytes to upload, with the name the service should store them under. */
export interface UploadData {
  /**
   * The content. A `Buffer`/`Uint8Array` or a `Blob` can be sent again (a 429 is retried);
   * a Node `Readable` or a web `ReadableStream` is read once, so such an upload is never repeated.
   */
  data: Uint8Array | Blob | Readable | ReadableStream<Uint8Array>;
  /** Stored file name, e.g. `photo 1.jpg`; any Unicode text without control characters. */
  filename: string;
  /** The part's `Content-Type`. @default looked up from `filename`'s extension, else `application/octet-stream` */
  contentType?: string;
}

/** A file on disk, streamed from it. */
export interface UploadPath {
  path: string;
  /** Stored file name. @default the path's base name */
  filename?: string;
  /** The part's `Content-Type`. @default looked up from the file name's extension, else `application/octet-stream` */
  contentType?: string;
}

/** One file to upload: a path, `{ path, filename?, contentType? }` or `{ data, filename, contentType? }`. */
export type UploadItem = string | UploadPath | UploadData;

export type Source =
  | { kind: 'path'; path: string }
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'blob'; blob: Blob }
  | { kind: 'readable'; stream: Readable }
  | { kind: 'web'; stream: NodeReadableStream<Uint8Array> };

/** One upload item, checked and normalised: what its part is called, typed and read from. */
export interface Part {
  filename: string;
  contentType: string;
  source: Source;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what it rejects
const CONTROL_RE = /[\x00-\x1f\x7f]/;

function isNodeReadable(value: unknown): value is Readable {
  if (value instanceof Readable) return true;
  const v = value as { pipe?: unknown; on?: unknown; read?: unknown } | null;
  return typeof v?.pipe === 'function' && typeof v.on === 'function' && typeof v.read === 'function';
}

function isWebStream(value: unknown): value is ReadableStream<Uint8Array> {
  return (
    value instanceof ReadableStream ||
    typeof (value as { getReader?: unknown } | null)?.getReader === 'function'
  );
}

/**
 * Checks one upload item's shape (no file system access) and turns it into a part.
 * Returns the problems instead when there are any.
 */
export function toPart(value: unknown): Part | string[] {
  const problems: string[] = [];
  let filename: unknown;
  let contentType: unknown;
  let source: Source | undefined;
  if (typeof value === 'string') {
    if (value === '') return ['must be a file path, { path }, or { data, filename }, got an empty string'];
    source = { kind: 'path', path: value };
    filename = basename(value);
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const item = value as Record<string, unknown>;
    contentType = item.contentType;
    if ('path' in item && item.path !== undefined) {
      if ('data' in item && item.data !== undefined) return ['give either path or data, not both'];
      if (typeof item.path !== 'string' || item.path === '') return ['path must be a non-empty string'];
      source = { kind: 'path', path: item.path };
      filename = item.filename ?? basename(item.path);
    } else if ('data' in item && item.data !== undefined) {
      source = dataSource(item.data, problems);
      filename = item.filename;
      if (filename === undefined) problems.push('filename is required with data');
    } else {
      return ['must be a file path, { path, filename?, contentType? } or { data, filename, contentType? }'];
    }
  } else {
    return ['must be a file path, { path, filename?, contentType? } or { data, filename, contentType? }'];
  }
  if (filename !== undefined) problems.push(...filenameProblems(filename));
  if (contentType !== undefined && !isContentType(contentType)) {
    problems.push(`contentType must be a media type such as "image/jpeg", got ${quote(contentType)}`);
  }
  if (problems.length > 0 || !source) return problems;
  const name = filename as string;
  return { filename: name, contentType: (contentType as string | undefined) ?? contentTypeFor(name), source };
}

function dataSource(data: unknown, problems: string[]): Source | undefined {
  if (data instanceof Uint8Array) {
    // A view, not a copy: the caller's bytes are sent as they are.
    return { kind: 'bytes', bytes: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
  }
  if (data instanceof Blob) return { kind: 'blob', blob: data };
  if (isWebStream(data)) {
    if (data.locked) problems.push('data is a ReadableStream that is locked (already being read)');
    return { kind: 'web', stream: data as NodeReadableStream<Uint8Array> };
  }
  if (isNodeReadable(data)) {
    if (data.destroyed || data.readableEnded || data.errored)
      problems.push('data is a stream that was already read or destroyed');
    return { kind: 'readable', stream: data instanceof Readable ? data : new Readable().wrap(data) };
  }
  problems.push('data must be a Buffer/Uint8Array, a Blob, a Node Readable or a web ReadableStream');
  return undefined;
}

function filenameProblems(filename: unknown): string[] {
  if (typeof filename !== 'string' || filename === '') return ['filename must be a non-empty string'];
  if (CONTROL_RE.test(filename))
    return ['filename must not contain control characters (such as line breaks)'];
  try {
    encodeURIComponent(filename);
  } catch {
    return ['filename must be well-formed Unicode text'];
  }
  return [];
}
