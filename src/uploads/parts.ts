/**
 * What an upload item is and how its part is described: shape checks, file names, content
 * types and the part's `Content-Disposition`. Free of Node modules, so the edge entry's web
 * multipart and the Node entry's form-data multipart share it (and the schemas' `{ file }`
 * check, which loads with every call).
 */
import type { Readable } from 'node:stream';
import { ClaimsError, ClaimsValidationError, type ValidationIssue } from '../errors.js';

/**
 * Content types for the files claims usually carry, by lower-case extension. A table of our
 * own rather than form-data's mime-types lookup: form-data only consults that lookup when it
 * writes the part header itself, and we write it (see `contentDisposition`).
 */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  rtf: 'application/rtf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  zip: 'application/zip',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
  eml: 'message/rfc822',
  msg: 'application/vnd.ms-outlook',
};
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** The content type a part gets when none is given: from the extension of `filename`. */
export function contentTypeFor(filename: string): string {
  const dot = filename.lastIndexOf('.');
  if (dot < 0) return DEFAULT_CONTENT_TYPE;
  return CONTENT_TYPES[filename.slice(dot + 1).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}

// type "/" subtype, then optional parameters in printable ASCII (RFC 9110 tokens).
const CONTENT_TYPE_RE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+(\s*;[\x20-\x7e\t]*)?$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what it rejects
const CONTROL_RE = /[\x00-\x1f\x7f]/;

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

export interface Part {
  filename: string;
  contentType: string;
  source: Source;
}

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

/** The error for a source that failed while its upload was prepared or sent; its own error is the cause. */
export function sourceFailureError(failure: { filename: string; error: unknown }): ClaimsError {
  return new ClaimsError(
    `Upload aborted: reading ${JSON.stringify(failure.filename)} failed: ${errorMessage(failure.error)}`,
    { cause: failure.error },
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
  if (contentType !== undefined && (typeof contentType !== 'string' || !CONTENT_TYPE_RE.test(contentType))) {
    problems.push(
      `contentType must be a media type such as "image/jpeg", got ${JSON.stringify(contentType)}`,
    );
  }
  if (problems.length > 0 || !source) return problems;
  const name = filename as string;
  return { filename: name, contentType: (contentType as string | undefined) ?? contentTypeFor(name), source };
}

/**
 * Checks every item ({@link toPart}) and that no stream is given twice, and returns the parts.
 * `refuse` says why a source cannot be read on this runtime (the edge build: paths and Node
 * streams), or nothing when it can.
 * @throws ClaimsValidationError listing every problem, each at `issuePath(i)`.
 */
export function checkItems(
  items: readonly unknown[],
  issuePath: (index: number) => string,
  refuse: (source: Source) => string | undefined = () => undefined,
): Part[] {
  const issues: ValidationIssue[] = [];
  const parts: Part[] = [];
  const oneShot = new Set<unknown>();
  for (const [i, item] of items.entries()) {
    const part = toPart(item);
    if (Array.isArray(part)) {
      for (const message of part) issues.push({ path: issuePath(i), message });
      continue;
    }
    const refused = refuse(part.source);
    if (refused !== undefined) {
      issues.push({ path: issuePath(i), message: refused });
      continue;
    }
    const { source } = part;
    if (source.kind === 'readable' || source.kind === 'web') {
      if (oneShot.has(source.stream)) {
        issues.push({
          path: issuePath(i),
          message: 'the same stream is given twice; it can be read only once',
        });
      }
      oneShot.add(source.stream);
    }
    parts.push(part);
  }
  if (issues.length > 0) throw new ClaimsValidationError(issues);
  return parts;
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
 * The part's `Content-Disposition`: form name empty (spec 4.1). `filename` is quoted the way
 * browsers do it (UTF-8, `"` as `%22`), which servers read back inconsistently for anything
 * beyond plain ASCII: busboy reads it as latin1, nothing turns `%22` back into a quote. So a
 * name that is not plain ASCII also gets an RFC 5987 `filename*`, which busboy, ASP.NET,
 * Go and Python parsers prefer and decode exactly.
 */
export function contentDisposition(filename: string): string {
  const quoted = filename.replace(/"/g, '%22');
  const header = `form-data; name=""; filename="${quoted}"`;
  if (/^[\x20-\x7e]*$/.test(filename) && !/["%\\]/.test(filename)) return header;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${header}; filename*=UTF-8''${encoded}`;
}

/** An error's message, for a message of ours that wraps it. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The last segment of a path, as `node:path` `basename` gives it on this platform: `/` always,
 * and `\\` too on Windows (where drive letters are dropped as well).
 */
export function baseName(path: string): string {
  const windows = (globalThis as { process?: { platform?: string } }).process?.platform === 'win32';
  const separators = windows ? /[\\/]+/ : /\/+/;
  const trimmed = windows ? path.replace(/^[A-Za-z]:/, '') : path;
  const segments = trimmed.split(separators).filter((segment) => segment !== '');
  return segments[segments.length - 1] ?? '';
}
