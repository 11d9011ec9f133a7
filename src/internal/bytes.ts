/**
 * Byte helpers that run on every runtime (no `Buffer`): the fetch wire and the web multipart
 * body use them on Deno, Bun and workerd as well as on Node.
 */

/** The chunks as one array, cut to `limit` bytes when given. */
export function concatBytes(chunks: readonly Uint8Array[], limit = Number.POSITIVE_INFINITY): Uint8Array {
  let size = 0;
  for (const chunk of chunks) size += chunk.byteLength;
  const out = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) {
    const take = Math.min(chunk.byteLength, out.byteLength - at);
    out.set(chunk.subarray(0, take), at);
    at += take;
  }
  return out;
}

/**
 * UTF-8 text of the bytes, exactly as `Buffer#toString('utf8')` gives it: malformed
 * sequences become U+FFFD and a leading byte order mark is kept (TextDecoder drops it unless
 * told not to), so the answer is judged on what was sent.
 */
export function utf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

const encoder = new TextEncoder();

/** The UTF-8 bytes of a string. */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}
