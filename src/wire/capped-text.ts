/**
 * A body's bytes collected up to a cap, then decoded once as UTF-8: the one capped reading that
 * both wires do (each feeds it the chunks its own stream type yields).
 */
export class CappedText {
  readonly #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(private readonly maxBytes: number) {}

  /** Keeps a chunk; true once the body went past the cap, when the reader must stop. */
  add(chunk: Uint8Array): boolean {
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
    return this.#size > this.maxBytes;
  }

  /** The text read; when over the cap, only its first `maxBytes` bytes. */
  result(): { text: string; truncated: boolean } {
    const all = Buffer.concat(this.#chunks);
    const truncated = this.#size > this.maxBytes;
    return { text: (truncated ? all.subarray(0, this.maxBytes) : all).toString('utf8'), truncated };
  }
}
