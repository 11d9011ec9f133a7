import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type FormData from 'form-data';
import { fileStreamOpener } from './file.js';
import type { Part, Source } from './inputs.js';
import { type SourceState, sourceFailureError } from './source-failure.js';

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

type OpenFile = (path: string) => Readable;

/**
 * A fresh multipart body over `parts` for one attempt, with its headers.
 * @param sizes each part's byte size, `undefined` for a stream (then the body is chunked).
 */
export async function openMultipart(
  parts: readonly Part[],
  sizes: ReadonlyArray<number | undefined>,
  state: SourceState,
): Promise<{ stream: Readable; headers: Record<string, string> }> {
  // form-data (and its mime table) loads node:fs at require time: import it only when uploading.
  const { default: FormDataClass } = await import('form-data');
  const openFile = parts.some((p) => p.source.kind === 'path') ? await fileStreamOpener() : undefined;
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
        stream = openSource(part.source, openFile);
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

function openSource(source: Source, openFile: OpenFile | undefined): Readable {
  switch (source.kind) {
    case 'path':
      return (openFile as OpenFile)(source.path);
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
