import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { fileStreamOpener } from './file.js';
import type { Part, Source } from './inputs.js';
import { newBoundary, partHeader } from './parts.js';
import { progressCounter, type UploadProgressListener } from './progress.js';
import { type SourceState, sourceFailureError } from './source-failure.js';

// Buffers are handed on in slices so the transport's progress timeout sees steady writes.
const BYTES_CHUNK = 1024 * 1024;
const CRLF = Buffer.from('\r\n');

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
  // node:fs is one Node loads at its start: the opener costs nothing when no part is a file.
  const openFile = await fileStreamOpener();
  if (state.failure) {
    // A caller's stream failed before this attempt could start (checked after the await
    // above, so no failure can slip in between): the upload fails as a whole.
    throw sourceFailureError(state.failure);
  }
  const boundary = newBoundary();
  const heads = parts.map((part) => Buffer.from(partHeader(boundary, part)));
  const closing = Buffer.from(`--${boundary}--\r\n`);
  const counter = onProgress ? progressCounter(onProgress, sizes) : undefined;
  const open = (part: Part, i: number): Readable => {
    let stream: Readable;
    if (part.source.kind === 'readable') stream = part.source.stream;
    else {
      stream = openSource(part.source, openFile);
      state.watch(stream, part.filename);
    }
    if (counter) stream.on('data', counter(i, part.filename));
    return stream;
  };
  const body = new MultipartStream(parts, heads, closing, open);
  state.current = body;
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  // Sizes are all known for paths, bytes and blobs: then send Content-Length, else chunked.
  if (sizes.every((size) => size !== undefined)) {
    let length = closing.byteLength;
    for (const [i, size] of sizes.entries())
      length += (heads[i] as Buffer).byteLength + size + CRLF.byteLength;
    headers['content-length'] = String(length);
  }
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
 * The multipart body: each part's head, its bytes, a CRLF, then the closing boundary (the
 * layout of the edge build's web-multipart.ts, byte for byte). A part's source is opened only
 * when its turn comes (one file descriptor at a time, however many files) and paused while the
 * socket is behind. Strings a caller's stream yields become their UTF-8 bytes. Destroying it,
 * which the transport does when an attempt fails, also destroys every source not yet ended: a
 * file descriptor or a caller's stream is never left open by a failed upload.
 */
class MultipartStream extends Readable {
  readonly #sources = new Set<Readable>();
  #index = -1;
  /** The source being read, until its end. */
  #current: Readable | undefined;

  constructor(
    private readonly parts: readonly Part[],
    private readonly heads: readonly Buffer[],
    private readonly closing: Buffer,
    private readonly open: (part: Part, index: number) => Readable,
  ) {
    // Stryker disable next-line ObjectLiteral: how far the body reads ahead of the socket (throughput), not which bytes or in what order
    super({ highWaterMark: 256 * 1024 });
    // A caller's streams are the body's from the start: destroying it before their turn destroys them too.
    for (const part of parts) if (part.source.kind === 'readable') this.#sources.add(part.source.stream);
  }

  // A resume already scheduled when the stream is destroyed still emits buffered data;
  // Readable.toWeb (the fetch wire) would enqueue it into its closed controller and throw.
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'data' && this.destroyed) return false;
    return super.emit(event, ...args);
  }

  override _read(): void {
    if (this.#current) this.#current.resume();
    else this.#next();
  }

  /** Starts the next part (its head, then its source), or ends the body after the last. */
  #next(): void {
    const index = ++this.#index;
    const part = this.parts[index];
    if (part === undefined) {
      this.push(this.closing);
      this.push(null);
      return;
    }
    this.push(this.heads[index]);
    const stream = this.open(part, index);
    this.#sources.add(stream);
    this.#current = stream;
    stream.on('data', (chunk: Buffer | string) => {
      if (!this.push(chunk)) stream.pause();
    });
    stream.once('end', () => {
      this.#current = undefined;
      this.#sources.delete(stream);
      // Else the next _read starts the next part, once the socket took what is queued.
      if (this.push(CRLF)) this.#next();
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    for (const source of this.#sources) source.destroy();
    this.#sources.clear();
    callback(error);
  }
}
