/**
 * The byte helpers the fetch wire and the web multipart body use on every runtime
 * (src/internal/bytes.ts): chunks joined and cut at a limit exactly, and UTF-8 text exactly as
 * Node's Buffer gives it, so an answer is judged on the bytes the server sent.
 */
import { describe, expect, it } from 'vitest';
import { concatBytes, utf8, utf8Bytes } from '../../src/internal/bytes.js';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('concatBytes', () => {
  it('joins the chunks in order', () => {
    expect(concatBytes([bytes(1, 2), bytes(), bytes(3), bytes(4, 5)])).toEqual(bytes(1, 2, 3, 4, 5));
  });

  it.each([
    [0, bytes()],
    [1, bytes(1)],
    [2, bytes(1, 2)],
    [3, bytes(1, 2, 3)],
    [4, bytes(1, 2, 3, 4)],
    [5, bytes(1, 2, 3, 4, 5)],
    [6, bytes(1, 2, 3, 4, 5)],
  ])('cut at a limit of %i bytes, inside or between chunks', (limit, joined) => {
    expect(concatBytes([bytes(1, 2), bytes(3), bytes(4, 5)], limit)).toEqual(joined);
  });
});

describe('utf8', () => {
  it('keeps a leading byte order mark, as Buffer does', () => {
    const sent = bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d);
    expect(utf8(sent)).toBe('\uFEFF{}');
    expect(utf8(sent)).toBe(Buffer.from(sent).toString('utf8'));
  });

  it('turns malformed sequences into U+FFFD, as Buffer does', () => {
    const sent = bytes(0x61, 0xff, 0xc3, 0x62);
    expect(utf8(sent)).toBe(Buffer.from(sent).toString('utf8'));
    expect(utf8(sent)).toBe('a\uFFFD\uFFFDb');
  });

  it('round-trips with utf8Bytes', () => {
    const text = '\uFEFFé \u{1F600}';
    expect(utf8Bytes(text)).toEqual(new Uint8Array(Buffer.from(text, 'utf8')));
    expect(utf8(utf8Bytes(text))).toBe(text);
  });
});
