import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type FormData from 'form-data';
import { fileStreamOpener } from './file.js';
import type { Part, Source } from './inputs.js';
import { partHeader } from './parts.js';
import { progressCounter, type UploadProgressListener } from './progress.js';
import { type SourceState, sourceFailureError } from './source-failure.js';

// Buffers are handed on in slices so the transport's progress timeout sees steady writes.
const BYTES_CHUNK = 1024 * 1024;

type OpenFile = (path: string) => Readable;

/**
 * A fresh multipart body over `parts` for one attempt, with its headers.
 * @param sizes each part's byte size, `undefined` for a stream (then the body is chunked).
 */
export async function openMultipart(
  parts: readonly Part[],
  sizes: ReadonlyArray<number | undefined>,
  state: SourceState,
  onProgress?: UploadProgressListener,
): Promise<{ stream: Readable; headers: Record<string, string> }> {
  // form-data (and its mime table) loads node:fs at require time: import it only when uploading.
  const { default: FormDataClass } = await import('form-data');
  // node:fs is loaded already (by form-data): the opener costs nothing when no part is a file.
  const openFile = await fileStreamOpener();
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
  const counter = onProgress ? progressCounter(onProgress, sizes) : undefined;
  for (const [i, part] of parts.entries()) {
    const header = partHeader(boundary, part);
    const given = part.source.kind === 'readable' ? part.source.stream : undefined;
    if (given) sources.add(given);
    // A function is combined-stream's lazy stream: it is called when the part's turn comes,
    // so a file is opened only then (one descriptor at a time, however many files).
    const lazy = (next: (stream: Readable) => void): void => {
      let stream = given;
      if (!stream) {
        stream = openSource(part.source as Exclude<Source, { kind: 'readable' }>, openFile);
        sources.add(stream);
        state.watch(stream, part.filename);
      }
      // A second 'data' listener beside form-data's pipe: it only counts, the pipe keeps the pace.
      if (counter) stream.on('data', counter(i, part.filename));
      next(stream);
    };
    // Stryker disable next-line StringLiteral: form-data writes a part header given whole as it is, without the field name
    form.append('', lazy, { header, knownLength: sizes[i] ?? 0 });
  }
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  // Sizes are all known for paths, bytes and blobs: then send Content-Length, else chunked.
  if (sizes.every((size) => size !== undefined)) headers['content-length'] = String(form.getLengthSync());
  return { stream: body, headers };
}

/** A stream over a source the SDK opens itself (a caller's Node stream is sent as it is). */
function openSource(source: Exclude<Source, { kind: 'readable' }>, openFile: OpenFile): Readable {
  switch (source.kind) {
    case 'path':
      return openFile(source.path);
    case 'bytes':
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: in object mode the 'data' chunks are the same views of the caller's bytes: same bytes, same progress counts
      return Readable.from(slices(source.bytes), { objectMode: false });
    case 'blob':
      return Readable.fromWeb(source.blob.stream() as NodeReadableStream<Uint8Array>);
    case 'web':
      return Readable.fromWeb(nativeStream(source.stream));
  }
}

/**
 * The stream itself when it is this runtime's `ReadableStream`, else (another realm's, or a
 * polyfill's, which `Readable.fromWeb` refuses) one of this runtime's that reads it.
 */
function nativeStream(stream: ReadableStream<Uint8Array>): NodeReadableStream<Uint8Array> {
  // Stryker disable next-line ConditionalExpression: this realm's stream wrapped as well sends the same bytes and forwards a cancel; the branch only saves a layer
  if (stream instanceof ReadableStream) return stream as NodeReadableStream<Uint8Array>;
  const reader = (stream as { getReader(): ReadableStreamDefaultReader<Uint8Array> }).getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    // Stryker disable next-line ObjectLiteral: a one-chunk queue instead of none only reads one chunk ahead of the body
    { highWaterMark: 0 },
  ) as NodeReadableStream<Uint8Array>;
}

// Views, not copies: a non-object-mode Readable takes a Uint8Array chunk as a Buffer over it.
function* slices(bytes: Uint8Array): Generator<Uint8Array> {
  // Stryker disable next-line EqualityOperator: a last empty slice, pushed to a byte-mode Readable, emits nothing
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
    // Stryker disable next-line ObjectLiteral: how far the body reads ahead of the socket (throughput), not which bytes or in what order
    super({ highWaterMark: 256 * 1024 });
    this.#form = form;
    this.#sources = sources;
    form.on('data', (chunk: Buffer | string) => {
      if (!this.push(chunk)) form.pause();
    });
    form.on('end', () => this.push(null));
    // combined-stream re-emits a source's error, which SourceState.watch has already used to
    // destroy this body; the listener keeps an 'error' without one from crashing the process.
    // Stryker disable next-line ArrowFunction: see above, the body is destroyed already
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
