/**
 * The lossless JSON scan leaves every float alone, however many digits its fraction or
 * exponent has: a mutation of the scan's float skipping (src/internal/json.ts) once got past.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonLossless, quoteInexactNumbers } from '../../src/internal/json.js';

const FLOATS = [
  '1.5e+10000000000000000',
  '1.5E-10000000000000000',
  '1e-10000000000000000',
  '2E+10000000000000000',
  '-1.25e+10000000000000000',
  '12345678901234567.5',
  '0.12345678901234567890',
  '-0.5e-12345678901234567',
];

describe('quoteInexactNumbers', () => {
  it.each(FLOATS)('leaves the float %s as it is, and parses it as JSON.parse does', (float) => {
    const text = `{"f":${float},"g":[${float}]}`;
    expect(quoteInexactNumbers(text)).toBe(text);
    expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
  });

  it('still quotes an unsafe integer after a float', () => {
    expect(quoteInexactNumbers('[1.5e+10000000000000000,9007199254740993]')).toBe(
      '[1.5e+10000000000000000,"9007199254740993"]',
    );
  });
});
