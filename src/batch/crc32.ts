import * as zlib from 'node:zlib';

/** CRC-32 (IEEE), for the journal's per-line checksum. */
const TABLE = (() => {
  const table = new Uint32Array(256);
  // Stryker disable next-line EqualityOperator: a 257th entry is not kept by a Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** `zlib.crc32` (native) where Node has it (20.15 and later), else the table below. */
const native = (zlib as { crc32?: (data: Uint8Array | string) => number }).crc32;

/** The CRC-32 of some bytes, or of a string's UTF-8 bytes. */
export function crc32(data: Uint8Array | string): number {
  // Stryker disable next-line ConditionalExpression: both paths give the same checksum (a test compares them); which one runs is only speed
  if (native) return native(data);
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: Node before 20.15 only (this one has zlib.crc32)
  return crc32InJs(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
}

export function crc32InJs(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
