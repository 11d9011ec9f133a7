/**
 * `isSendableToken`: what may go into `Authorization: Bearer <token>` (visible ASCII, at least
 * one character). The client and the transport refuse anything else before a request is sent;
 * their tests check the refusal, this one the rule itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSendableToken } from '../../src/internal/options.js';

describe('isSendableToken', () => {
  it.each(['a', 'abc.DEF-123_~+/=', '!~', 'eyJhbGciOiJIUzI1NiJ9.e30.sig'])('%j is sendable', (token) => {
    expect(isSendableToken(token)).toBe(true);
  });

  it.each(['', ' ', 'tok en', 'tok\n', 'tok\r\nX-Evil: 1', '\u00e9t\u00e9', 'tok\u0000', 'tok\u007f'])(
    '%j is not',
    (token) => {
      expect(isSendableToken(token)).toBe(false);
    },
  );

  it.each([42, undefined, null, { toString: () => 'tok' }])('a %s is not a token', (token) => {
    expect(isSendableToken(token)).toBe(false);
  });

  it('any string of visible ASCII is sendable; one character outside it makes it not', () => {
    const visible = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      minLength: 1,
    });
    const outside = fc
      .oneof(fc.integer({ min: 0, max: 0x20 }), fc.integer({ min: 0x7f, max: 0xffff }))
      .map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(visible, outside, visible, (before, bad, after) => {
        expect(isSendableToken(before + after)).toBe(true);
        expect(isSendableToken(before + bad + after)).toBe(false);
      }),
    );
  });
});
