import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type FormData from 'form-data';
import { ClaimsValidationError, type ValidationIssue } from './errors.js';
import type { StreamBody } from './transport.js';
import {
  checkItems,
  contentDisposition,
  type Part,
  type Source,
  sourceFailureError,
} from './uploads/parts.js';

// Kept importable from here, where they lived before the edge entry needed them without Node.
export {
  contentDisposition,
  contentTypeFor,
  errorMessage,
  sourceFailureError,
  toPart,
} from './uploads/parts.js';

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

/** A checked upload, ready to send: the multipart body and what the answer must match. */
export interface PreparedUpload {
  /** The request body; `open()` builds a fresh multipart stream for each attempt. */
  body: StreamBody;
  /** File names in order. */
  filenames: string[];
  /** Set when a source failed while being sent (a caller's stream erroring, a file vanishing). */
  sourceFailure(): { filename: string; error: unknown } | undefined;
}

/** Checks upload items and builds their multipart body: {@link prepareUpload}, or the edge entry's web one. */
export type PrepareUpload = (
  items: readonly unknown[],
  issuePath: (index: number) => string,
) => Promise<PreparedUpload>;

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
  const parts = checkItems(items, issuePath).map(withNodeSource);

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

/**
 * The part with a source Node's streams take as it is: bytes as a `Buffer` view (not a copy),
 * and an old-style stream (`pipe`/`on`/`read`, not a `Readable`) wrapped in one.
 */
function withNodeSource(part: Part): Part {
  const { source } = part;
  if (source.kind === 'bytes') {
    const { buffer, byteOffset, byteLength } = source.bytes;
    return { ...part, source: { kind: 'bytes', bytes: Buffer.from(buffer, byteOffset, byteLength) } };
  }
  if (source.kind === 'readable' && !(source.stream instanceof Readable)) {
    const wrapped = new Readable().wrap(source.stream as NodeJS.ReadableStream);
    return { ...part, source: { kind: 'readable', stream: wrapped } };
  }
  return part;
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
      return Readable.from(slices(source.bytes as Buffer), { objectMode: false });
    case 'blob':
      return Readable.fromWeb(source.blob.stream() as NodeReadableStream<Uint8Array>);
    case 'readable':
      return source.stream;
    case 'web':
      return Readable.fromWeb(source.stream as NodeReadableStream<Uint8Array>);
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
