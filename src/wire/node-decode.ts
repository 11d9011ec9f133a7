/**
 * Decoding of a compressed answer on the node wires (undici's `request` and `node:http` hand
 * over the bytes as sent; fetch decodes by itself). The client never asks for an encoding, but a
 * server or proxy may compress anyway: the body is decoded as fetch would (gzip, deflate, br),
 * its decoded bytes counted against the same cap. `node:zlib` is loaded by the first encoded answer.
 */
import type { Transform } from 'node:stream';
import { quote } from '../internal/quote.js';
import { type BodySource, type Decode, RAW_CAP } from './attempt.js';
import { WireFailure } from './failure.js';

/** Codings applied one over another are decoded up to this many (fetch's own limit is 5). */
const MAX_CODINGS = 3;

type Zlib = typeof import('node:zlib');

export const decodeNodeBody: Decode = (source, encodings, onRaw) => decoded(source, encodings, onRaw);

async function* decoded(
  source: BodySource,
  encodings: readonly string[],
  onRaw: (bytes: number) => boolean,
): AsyncGenerator<Uint8Array> {
  if (encodings.length > MAX_CODINGS) {
    throw undecodable(
      `content-encoding applies ${encodings.length} codings (at most ${MAX_CODINGS} are decoded)`,
    );
  }
  const unknown = encodings.find((coding) => !KNOWN.has(coding));
  if (unknown !== undefined) {
    throw undecodable(`content-encoding ${quote(unknown)} is not one the SDK decodes (gzip, deflate, br)`);
  }
  const [zlib, { pipeline, Readable }] = await Promise.all([import('node:zlib'), import('node:stream')]);
  const raw = counted(source, onRaw);
  const first = await raw.next();
  if (first.done) return;
  // Decoded in the reverse order of their application; a `deflate` first in line may be raw
  // deflate, without zlib's header (as fetch reads it).
  const stages = [...encodings]
    .reverse()
    .map((coding, i) => stage(zlib, coding, i === 0 ? first.value : undefined));
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: object mode passes the same bytes; byte mode bounds what is read ahead in bytes, not in 16 chunks of any size
  const input = Readable.from(resumed(first.value, raw), { objectMode: false });
  const output = stages[stages.length - 1] as Transform;
  pipeline([input, ...stages], () => undefined);
  for await (const chunk of output) yield chunk as Uint8Array;
}

const KNOWN: ReadonlySet<string> = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

function stage(zlib: Zlib, coding: string, firstChunk: Uint8Array | undefined): Transform {
  if (coding === 'br') return zlib.createBrotliDecompress();
  if (coding === 'deflate') {
    // zlib's header: a low nibble of 8 (deflate) in its first byte.
    return firstChunk !== undefined && ((firstChunk[0] as number) & 0x0f) !== 0x08
      ? zlib.createInflateRaw()
      : zlib.createInflate();
  }
  // gzip and x-gzip; a truncated stream is an error, not a short body.
  return zlib.createGunzip();
}

async function* counted(
  source: BodySource,
  onRaw: (bytes: number) => boolean,
): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const chunk of source.chunks()) {
    if (onRaw(chunk.byteLength)) throw RAW_CAP;
    yield chunk;
  }
}

async function* resumed(first: Uint8Array, rest: AsyncGenerator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield first;
  yield* rest;
}

function undecodable(why: string): WireFailure {
  return new WireFailure('decode', `the body could not be decoded: ${why}`, 'maybe');
}
