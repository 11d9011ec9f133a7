/**
 * What callers may give to upload, and its shape check. Free of Node modules (types only): the
 * edge entry's web multipart and the schemas' `{ file }` check, which loads with every call,
 * use it as well as the Node entry.
 */
import type { Readable } from 'node:stream';
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

/**
 * A file on disk, streamed from it (never read whole into memory).
 * @example { path: './photos/ceiling.jpg', filename: 'ceiling.jpg', contentType: 'image/jpeg' }
 */
export interface UploadPath {
  /**
   * The file to read: absolute, or relative to the process's working directory. It must
   * exist and be a readable regular file when the call starts, or nothing is sent.
   */
  path: string;
  /** Stored file name. @default the path's base name */
  filename?: string;
  /** The part's `Content-Type`. @default looked up from the file name's extension, else `application/octet-stream` */
  contentType?: string;
}

/** One file to upload: a path, `{ path, filename?, contentType? }` or `{ data, filename, contentType? }`. */
export type UploadItem = string | UploadPath | UploadData;

/**
 * Where a part's bytes come from. A `readable` is any Node-style stream (a `Readable`, or an
 * old-style stream the Node uploads wrap in one); only the Node entry can send it.
 */
export type Source =
  | { kind: 'path'; path: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'blob'; blob: Blob }
  | { kind: 'readable'; stream: Readable }
  | { kind: 'web'; stream: ReadableStream<Uint8Array> };

/** One upload item, checked and normalised: what its part is called, typed and read from. */
export interface Part {
  filename: string;
  contentType: string;
  source: Source;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what it rejects
const CONTROL_RE = /[\x00-\x1f\x7f]/;

// Duck-typed, not `instanceof Readable`: this file must not load node:stream (edge entry).
function isNodeReadable(value: unknown): value is Readable {
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
    filename = baseName(value);
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const item = value as Record<string, unknown>;
    contentType = item.contentType;
    if ('path' in item && item.path !== undefined) {
      if ('data' in item && item.data !== undefined) return ['give either path or data, not both'];
      if (typeof item.path !== 'string' || item.path === '') return ['path must be a non-empty string'];
      source = { kind: 'path', path: item.path };
      filename = item.filename ?? baseName(item.path);
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
    // The caller's bytes as they are, not a copy.
    return { kind: 'bytes', bytes: data };
  }
  if (data instanceof Blob) return { kind: 'blob', blob: data };
  if (isWebStream(data)) {
    if (data.locked) problems.push('data is a ReadableStream that is locked (already being read)');
    return { kind: 'web', stream: data };
  }
  if (isNodeReadable(data)) {
    if (data.destroyed || data.readableEnded || data.errored)
      problems.push('data is a stream that was already read or destroyed');
    return { kind: 'readable', stream: data };
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

/**
 * The last segment of a path, as `node:path` `basename` gives it on this platform: `/` always,
 * and `\\` too on Windows (where drive letters are dropped as well).
 */
export function baseName(path: string): string {
  const windows = (globalThis as { process?: { platform?: string } }).process?.platform === 'win32';
  // Runs of separators leave empty segments, dropped below.
  const separators = windows ? /[\\/]/ : /\//;
  const trimmed = windows ? path.replace(/^[A-Za-z]:/, '') : path;
  const segments = trimmed.split(separators).filter((segment) => segment !== '');
  return segments[segments.length - 1] ?? '';
}
