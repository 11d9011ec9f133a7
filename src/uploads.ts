import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type FormData from 'form-data';
import { ClaimsError, ClaimsValidationError, type ValidationIssue } from './errors.js';
import type { StreamBody } from './transport.js';

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

type Source =
  | { kind: 'path'; path: string }
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'blob'; blob: Blob }
  | { kind: 'readable'; stream: Readable }
  | { kind: 'web'; stream: NodeReadableStream<Uint8Array> };

export interface Part {
  filename: string;
  contentType: string;
  source: Source;
}

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
  if (contentType !== undefined && (typeof contentType !== 'string' || !CONTENT_TYPE_RE.test(contentType))) {
    problems.push(
      `contentType must be a media type such as "image/jpeg", got ${JSON.stringify(contentType)}`,
    );
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

/** A checked upload, ready to send: the multipart body and what the answer must match. */
export interface PreparedUpload {
  /** The request body; `open()` builds a fresh multipart stream for each attempt. */
  body: StreamBody;
  /** File names in order. */
  filenames: string[];
  /** Set when a source failed while being sent (a caller's stream erroring, a file vanishing). */
  sourceFailure(): { filename: string; error: unknown } | undefined;
}

/**
 * Checks upload items before anything is sent and builds their multipart body. Paths are
 * opened and stat-ed here (missing, a directory, unreadable: all reported at once), so a
 * bad path is a `ClaimsValidationError` and never a half-sent request.
 * @param issuePath names item `i` in issues, e.g. `files[0]` or `attachments[2].file`.
 * @throws ClaimsValidationError listing every problem.
 */
export async function prepareUpload(
  items: readonly unknown[],
  issuePath: (index: number) => string,
): Promise<PreparedUpload> {
  const issues: ValidationIssue[] = [];
  const parts: Part[] = [];
  const oneShot = new Set<unknown>();
  for (const [i, item] of items.entries()) {
    const part = toPart(item);
    if (Array.isArray(part)) {
      for (const message of part) issues.push({ path: issuePath(i), message });
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

  // Checked in parallel; problems are reported in the order of the items, not of completion.
  const found: ValidationIssue[][] = parts.map(() => []);
  const sizes = await Promise.all(
    parts.map((part, i) => sizeOf(part.source, (message) => found[i]?.push({ path: issuePath(i), message }))),
  );
  if (found.some((list) => list.length > 0)) throw new ClaimsValidationError(found.flat());

  const state = new SourceState();
  for (const part of parts) {
    // A caller's Node stream may fail before its turn, or before the request even starts:
    // listen from now on, so such an error fails the upload instead of crashing the process.
    if (part.source.kind === 'readable') state.watch(part.source.stream, part.filename);
  }
  const body: StreamBody = {
    replayable: parts.every((p) => p.source.kind !== 'readable' && p.source.kind !== 'web'),
    open: () => openMultipart(parts, sizes, state),
  };
  return { body, filenames: parts.map((p) => p.filename), sourceFailure: () => state.failure };
}

/** Which source failed first, and the body of the attempt in progress, to cut it off. */
class SourceState {
  failure: { filename: string; error: unknown } | undefined;
  current: MultipartStream | undefined;

  watch(stream: Readable, filename: string): void {
    stream.on('error', (error: unknown) => {
      this.failure ??= { filename, error };
      // Also when the part's turn has not come yet: then nothing else listens, and the
      // request must fail rather than wait for a part that will never end.
      this.current?.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  }
}

/** The byte size of a source, `undefined` when only reading it would tell (a stream). */
async function sizeOf(source: Source, problem: (message: string) => void): Promise<number | undefined> {
  switch (source.kind) {
    case 'bytes':
      return source.bytes.byteLength;
    case 'blob':
      return source.blob.size;
    case 'readable':
    case 'web':
      return undefined;
    case 'path':
      return statPath(source.path, problem);
  }
}

async function statPath(path: string, problem: (message: string) => void): Promise<number | undefined> {
  // Loaded here, not at the top: the main entry must not pull in node:fs (serverless cold start).
  const { open } = await import('node:fs/promises');
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // Opening (not just stat) proves the file is readable by this process, ACLs included.
    handle = await open(path, 'r');
    const stat = await handle.stat();
    if (stat.isDirectory()) problem(`${JSON.stringify(path)} is a directory, not a file`);
    else if (!stat.isFile()) problem(`${JSON.stringify(path)} is not a regular file`);
    else return stat.size;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') problem(`no such file: ${JSON.stringify(path)}`);
    else if (code === 'EACCES' || code === 'EPERM')
      problem(`cannot read ${JSON.stringify(path)}: permission denied`);
    else if (code === 'EISDIR') problem(`${JSON.stringify(path)} is a directory, not a file`);
    else
      problem(
        `cannot read ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`,
      );
  } finally {
    await handle?.close();
  }
  return undefined;
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

// Buffers are handed on in slices so the transport's progress timeout sees steady writes.
const BYTES_CHUNK = 1024 * 1024;

async function openMultipart(
  parts: readonly Part[],
  sizes: ReadonlyArray<number | undefined>,
  state: SourceState,
): Promise<{ stream: Readable; headers: Record<string, string> }> {
  // form-data (and its mime table) loads node:fs at require time: import it only when uploading.
  const { default: FormDataClass } = await import('form-data');
  const { createReadStream } = parts.some((p) => p.source.kind === 'path')
    ? await import('node:fs')
    : { createReadStream: undefined };
  if (state.failure) {
    // A caller's stream failed before this attempt could start (checked after the awaits
    // above, so no failure can slip in between): the upload fails as a whole.
    throw sourceFailureError(state.failure);
  }
  const form = new FormDataClass();
  const boundary = form.getBoundary();
  const sources = new Set<Readable>();
  const body = new MultipartStream(form, sources);
  state.current = body;
  for (const [i, part] of parts.entries()) {
    const header =
      `--${boundary}\r\nContent-Disposition: ${contentDisposition(part.filename)}\r\n` +
      `Content-Type: ${part.contentType}\r\n\r\n`;
    const given = part.source.kind === 'readable' ? part.source.stream : undefined;
    if (given) sources.add(given);
    // A function is combined-stream's lazy stream: it is called when the part's turn comes,
    // so a file is opened only then (one descriptor at a time, however many files).
    const lazy = (next: (stream: Readable) => void): void => {
      let stream = given;
      if (!stream) {
        stream = openSource(part.source, createReadStream);
        sources.add(stream);
        state.watch(stream, part.filename);
      }
      next(stream);
    };
    form.append('', lazy, { header, knownLength: sizes[i] ?? 0 });
  }
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  // Sizes are all known for paths, bytes and blobs: then send Content-Length, else chunked.
  if (sizes.every((size) => size !== undefined)) headers['content-length'] = String(form.getLengthSync());
  return { stream: body, headers };
}

/** An error's message, for a message of ours that wraps it. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function openSource(
  source: Source,
  createReadStream: typeof import('node:fs').createReadStream | undefined,
): Readable {
  switch (source.kind) {
    case 'path':
      return (createReadStream as typeof import('node:fs').createReadStream)(source.path, {
        highWaterMark: 256 * 1024,
      });
    case 'bytes':
      return Readable.from(slices(source.bytes), { objectMode: false });
    case 'blob':
      return Readable.fromWeb(source.blob.stream() as NodeReadableStream<Uint8Array>);
    case 'readable':
      return source.stream;
    case 'web':
      return Readable.fromWeb(source.stream);
  }
}

function* slices(bytes: Buffer): Generator<Buffer> {
  for (let start = 0; start < bytes.byteLength; start += BYTES_CHUNK) {
    yield bytes.subarray(start, start + BYTES_CHUNK);
  }
}

/**
 * A plain `Readable` over form-data's old-style stream: undici and `Readable.toWeb` (the
 * fetch wire) both want one, strings become UTF-8 bytes, and destroying it, which the
 * transport does when an attempt fails, also destroys the source being read: a file
 * descriptor or a caller's stream is never left open by a failed upload.
 */
class MultipartStream extends Readable {
  readonly #form: FormData;
  readonly #sources: Set<Readable>;

  constructor(form: FormData, sources: Set<Readable>) {
    super({ highWaterMark: 256 * 1024 });
    this.#form = form;
    this.#sources = sources;
    form.on('data', (chunk: Buffer | string) => {
      if (!this.push(chunk)) form.pause();
    });
    form.on('end', () => this.push(null));
    form.on('error', (error: Error) => this.destroy(error));
  }

  // A resume already scheduled when the stream is destroyed still emits buffered data;
  // Readable.toWeb (the fetch wire) would enqueue it into its closed controller and throw.
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'data' && this.destroyed) return false;
    return super.emit(event, ...args);
  }

  override _read(): void {
    // The first call starts form-data; later ones resume the part it paused.
    this.#form.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#form.destroy();
    for (const source of this.#sources) source.destroy();
    this.#sources.clear();
    callback(error);
  }
}
