import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bounded, echo, keyText, MAX_ECHOED, plainText, terminalJson } from '../../src/batch/echo.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: what must never reach a terminal
const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('echo: a value as a message quotes it', () => {
  it('quotes a string, escaping quotes, backslashes and every control character JSON-style', () => {
    expect(echo('A-1')).toBe('"A-1"');
    expect(echo('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(echo('\n\r\t')).toBe('"\\n\\r\\t"');
    expect(echo('\u001b]0;x\u0007')).toBe('"\\u001b]0;x\\u0007"');
    expect(echo('\u0000\u001f\u007f\u0080\u009f')).toBe('"\\u0000\\u001f\\u007f\\u0080\\u009f"');
    expect(echo('\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069')).toBe(
      '"\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069"',
    );
    // Printable neighbours of the ranges are left alone.
    expect(echo(' ~\u00a0\u061b\u200d\u2027\u202f\u2065\u206a')).toBe(
      '" ~\u00a0\u061b\u200d\u2027\u202f\u2065\u206a"',
    );
  });

  it('shows other values as JSON, escaped too', () => {
    expect(echo(7001)).toBe('7001');
    expect(echo(null)).toBe('null');
    expect(echo(undefined)).toBe('undefined');
    expect(echo({ a: '\u009b' })).toBe('{"a":"\\u009b"}');
    expect(echo(10n)).toBe('10');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(echo(cycle)).toBe('[object Object]');
  });

  it(`is bounded: at most ${MAX_ECHOED} characters of the value, then …, never splitting a surrogate pair`, () => {
    const long = 'x'.repeat(5_000_000);
    expect(echo(long)).toBe(`"${'x'.repeat(MAX_ECHOED - 1)}…"`);
    expect(echo('x'.repeat(MAX_ECHOED))).toBe(`"${'x'.repeat(MAX_ECHOED)}"`);
    expect(bounded(`${'x'.repeat(MAX_ECHOED - 2)}😀😀`)).toBe(`${'x'.repeat(MAX_ECHOED - 2)}…`);
    expect(bounded('abcdef', 4)).toBe('abc…');
    // Cut inside a pair: the pair goes whole; the edges of the high-surrogate range count, nothing past them.
    expect(bounded(`${'x'.repeat(MAX_ECHOED - 2)}😀yy`)).toBe(`${'x'.repeat(MAX_ECHOED - 2)}…`);
    expect(bounded('abc\uD800\uDC00def', 5)).toBe('abc…');
    expect(bounded('abc\uDBFF\uDFFFdef', 5)).toBe('abc…');
    expect(bounded('abc\uE000def', 5)).toBe('abc\uE000…');
    expect(bounded('abc\uD7FFdef', 5)).toBe('abc\uD7FF…');
  });

  it('never lets a raw control character through, whatever the value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const quoted = echo(text);
        return !RAW.test(quoted) && quoted.length <= MAX_ECHOED * 6 + 3;
      }),
    );
  });
});

describe('plainText: free text for a terminal', () => {
  it('escapes control characters without quoting, and bounds the text', () => {
    expect(plainText('refused \u001b[31mred\u001b[0m "ok"\\')).toBe(
      'refused \\u001b[31mred\\u001b[0m "ok"\\',
    );
    expect(plainText('a\nb')).toBe('a\\nb');
    expect(plainText('y'.repeat(1_500))).toBe(`${'y'.repeat(999)}…`);
    expect(plainText('y'.repeat(20), 10)).toBe(`${'y'.repeat(9)}…`);
  });
});

describe('keyText: a key in a table row', () => {
  it('shows a plain key as it is, and quotes one that could split a row or be misread', () => {
    expect(keyText('POL-1234/2026-11-02 a')).toBe('POL-1234/2026-11-02 a');
    expect(keyText('K2\nK3\tforged')).toBe('"K2\\nK3\\tforged"');
    expect(keyText('a\\b')).toBe('"a\\\\b"');
    expect(keyText('"quoted"')).toBe('"\\"quoted\\""');
    expect(keyText('in"side')).toBe('in"side');
    expect(keyText('ends"')).toBe('ends"');
    expect(keyText('k'.repeat(MAX_ECHOED))).toBe('k'.repeat(MAX_ECHOED));
    expect(keyText('k'.repeat(MAX_ECHOED + 1))).toBe(`"${'k'.repeat(MAX_ECHOED - 1)}…"`);
    expect(keyText('\u202e')).toBe('"\\u202e"');
  });
});

describe('terminalJson: indented JSON for a terminal', () => {
  it('keeps its line breaks, escapes what JSON leaves raw, and still parses to the same value', () => {
    const value = { note: 'a\u009b31m\u007f\u202e\u2028b', list: [1, '\n\u001b'] };
    const text = terminalJson(value);
    expect(text).toBe(
      '{\n  "note": "a\\u009b31m\\u007f\\u202e\\u2028b",\n  "list": [\n    1,\n    "\\n\\u001b"\n  ]\n}',
    );
    expect(JSON.parse(text)).toEqual(value);
    expect(terminalJson(undefined)).toBe('null');
  });
});
