import { concatBytes, utf8 } from '../internal/bytes.js';

/**
 * A body's bytes collected up to a cap, then decoded once as UTF-8: the one capped reading that
 * every wire does (each feeds it the chunks its own stream type yields). No `Buffer`: the fetch
 * wire runs on edge runtimes too.
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

  /**
   * The text read; when over the cap, only its first `maxBytes` bytes.
   * @param cut true when the reading stopped at another cap (a compressed body's raw bytes).
   */
  result(cut = false): { text: string; truncated: boolean } {
    const truncated = cut || this.#size > this.maxBytes;
    return { text: utf8(concatBytes(this.#chunks, this.maxBytes)), truncated };
  }
}
