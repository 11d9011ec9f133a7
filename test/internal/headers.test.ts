import { describe, expect, it } from 'vitest';
import { mergeHeaders } from '../../src/internal/headers.js';

describe('mergeHeaders', () => {
  it('merges case-insensitively, later wins, undefined removes', () => {
    expect(
      mergeHeaders(
        { Accept: 'a', 'X-One': '1' },
        undefined,
        { accept: 'b', 'x-two': '2' },
        { 'X-ONE': undefined },
      ),
    ).toStrictEqual({ accept: 'b', 'x-two': '2' }); // removed: no key left holding `undefined`
  });
});
