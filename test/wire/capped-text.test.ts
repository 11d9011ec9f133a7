import { describe, expect, it } from 'vitest';
import { CappedText } from '../../src/wire/capped-text.js';

describe('CappedText, the capped body reading of both wires', () => {
  it('a body of exactly the cap is whole, not truncated', () => {
    const read = new CappedText(6);
    expect(read.add(Buffer.from('abc'))).toBe(false);
    expect(read.add(Buffer.from('def'))).toBe(false);
    expect(read.result()).toEqual({ text: 'abcdef', truncated: false });
  });

  it('one byte past the cap stops the reader and keeps the first maxBytes', () => {
    const read = new CappedText(6);
    expect(read.add(Buffer.from('abcd'))).toBe(false);
    expect(read.add(Buffer.from('efg'))).toBe(true);
    expect(read.result()).toEqual({ text: 'abcdef', truncated: true });
  });

  it('decodes UTF-8 across chunk boundaries', () => {
    const bytes = Buffer.from('né€', 'utf8');
    const read = new CappedText(100);
    for (const byte of bytes) read.add(Uint8Array.of(byte));
    expect(read.result()).toEqual({ text: 'né€', truncated: false });
  });

  it('an empty body is empty text', () => {
    expect(new CappedText(0).result()).toEqual({ text: '', truncated: false });
  });
});
