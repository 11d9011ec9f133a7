/**
 * Uploads on runtimes without Node (the edge entry: workerd, Deno, Bun, browsers): the
 * multipart body is built as a web `ReadableStream`, read part by part as fetch sends it.
 * The wire format is the Node entry's byte for byte (multipart-stream.ts).
 */
import { utf8Bytes } from '../internal/bytes.js';
import type { StreamBody } from '../transport.js';
import type { WebStreamBody } from '../wire/types.js';
import type { Part, Source } from './inputs.js';
import { checkItems, newBoundary, partHeader } from './parts.js';
import type { PreparedUpload } from './prepare.js';
import { progressCounter, type UploadProgressListener } from './progress.js';

/** Why an item that only Node can read is refused here, and what to give instead. */
const NEEDS_NODE: Readonly<Partial<Record<Source['kind'], string>>> = {
  path: 'a file path needs Node (a file system), and this build of the SDK runs without it: give { data, filename } with a Blob, Uint8Array or ReadableStream',
  readable:
    'a Node stream needs Node, and this build of the SDK runs without it: give a web ReadableStream, a Blob or a Uint8Array',
};

// Bytes are handed on in slices so the wire's progress timeout sees steady writes.
const BYTES_CHUNK = 1024 * 1024;
const CRLF = utf8Bytes('\r\n');

/**
 * Checks upload items before anything is sent and builds their multipart body from web
 * streams. Bytes and Blobs can be sent again (a 429 is retried); a `ReadableStream` is read
 * once. File paths and Node streams are refused with a `ClaimsValidationError`.
 * @param issuePath names item `i` in issues, e.g. `files[0]` or `attachments[2].file`.
 */
export async function prepareWebUpload(
  items: readonly unknown[],
  issuePath: (index: number) => string,
  onProgress?: UploadProgressListener,
): Promise<PreparedUpload> {
  const parts = checkItems(items, issuePath, (source) => NEEDS_NODE[source.kind]);

  const state: UploadState = {};
  const body: StreamBody = {
    replayable: parts.every((p) => p.source.kind !== 'web'),
    open: async () => openWebMultipart(parts, state, onProgress),
  };
  return { body, files: parts.length, sourceFailure: () => state.failure };
}

interface UploadState {
  /** The first source that failed while being read, with its error. */
  failure?: { filename: string; error: unknown };
}

function openWebMultipart(
  parts: readonly Part[],
  state: UploadState,
  onProgress: UploadProgressListener | undefined,
): { stream: WebStreamBody; headers: Record<string, string> } {
  const boundary = newBoundary();
  const heads = parts.map((part) => utf8Bytes(partHeader(boundary, part)));
  const closing = utf8Bytes(`--${boundary}--\r\n`);
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  const sizes = parts.map(sizeOf);
  // Sizes are all known for bytes and blobs: then send Content-Length, else chunked.
  if (sizes.every((size) => size !== undefined)) {
    let length = closing.byteLength;
    for (const [i, size] of sizes.entries())
      length += (heads[i] as Uint8Array).byteLength + size + CRLF.byteLength;
    headers['content-length'] = String(length);
  }
  const counter = onProgress ? progressCounter(onProgress, sizes) : undefined;
  return { stream: new WebMultipart(parts, heads, closing, state, counter), headers };
}

function sizeOf(part: Part): number | undefined {
  const { source } = part;
  if (source.kind === 'bytes') return source.bytes.byteLength;
  if (source.kind === 'blob') return source.blob.size;
  return undefined;
}

/**
 * The multipart body as a web stream, pulled one chunk at a time: a part's source is opened
 * only when its turn comes, and destroying the body cancels the source being read, so a
 * caller's stream is never left locked by a failed upload.
 */
class WebMultipart implements WebStreamBody {
  readonly web: ReadableStream<Uint8Array>;
  readonly #chunks: AsyncIterator<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #destroyed = false;

  constructor(
    private readonly parts: readonly Part[],
    private readonly heads: readonly Uint8Array[],
    private readonly closing: Uint8Array,
    private readonly state: UploadState,
    private readonly counter: ReturnType<typeof progressCounter> | undefined,
  ) {
    this.#chunks = this.#all();
    this.web = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          try {
            const { done, value } = await this.#chunks.next();
            if (done || this.#destroyed) controller.close();
            else controller.enqueue(value);
          } catch (error) {
            controller.error(error);
          }
        },
        cancel: (reason) => this.destroy(reason instanceof Error ? reason : undefined),
      },
      { highWaterMark: 0 },
    );
  }

  // Also called again by `cancel` when the destroyed body was being read: a second cancel of
  // the same reader changes nothing. Sources not started yet are never opened.
  destroy(error?: Error): void {
    this.#destroyed = true;
    this.#reader?.cancel(error).catch(() => undefined);
  }

  async *#all(): AsyncGenerator<Uint8Array> {
    for (const [i, part] of this.parts.entries()) {
      yield this.heads[i] as Uint8Array;
      const counted = this.counter?.(i, part.filename);
      for await (const chunk of this.#content(part)) {
        yield chunk;
        // Pulled by fetch (highWaterMark 0): counted once it has been taken to be sent.
        counted?.(chunk);
      }
      yield CRLF;
    }
    yield this.closing;
  }

  async *#content(part: Part): AsyncGenerator<Uint8Array> {
    const { source } = part;
    if (source.kind === 'bytes') {
      for (let start = 0; start < source.bytes.byteLength; start += BYTES_CHUNK) {
        yield source.bytes.subarray(start, start + BYTES_CHUNK);
      }
      return;
    }
    // Paths and Node streams were refused by prepareWebUpload: what is left is a web stream.
    const stream =
      source.kind === 'blob' ? source.blob.stream() : (source as Extract<Source, { kind: 'web' }>).stream;
    const reader = stream.getReader();
    this.#reader = reader;
    try {
      // destroy() cancels this reader: its next read is done, which ends the loop.
      for (;;) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (error) {
          this.state.failure ??= { filename: part.filename, error };
          throw error;
        }
        if (result.done) return;
        // A caller's stream of strings is sent as their UTF-8 bytes, as Node's streams do.
        const chunk: unknown = result.value;
        yield typeof chunk === 'string' ? utf8Bytes(chunk) : (chunk as Uint8Array);
      }
    } finally {
      this.#reader = undefined;
      reader.releaseLock();
    }
  }
}
