/**
 * The redactor's promises that a mutation of src/internal/redact.ts once got past: every
 * occurrence is redacted, a non-ASCII token is found URL-encoded, no other character's JSON
 * escape is taken for the token, a deep value and an error's body and headers are redacted,
 * a rewritten field keeps its attributes, and the per-token cache stays bounded.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, redactorFor } from '../../src/internal/redact.js';

describe('Redactor.text', () => {
  it('redacts every occurrence, not only the first', () => {
    expect(new Redactor('s3cret').text('a s3cret, b s3cret')).toBe(`a ${REDACTED}, b ${REDACTED}`);
  });

  it('finds a non-ASCII token URL-encoded as UTF-8 bytes, in either case', () => {
    const redactor = new Redactor('pässwörd');
    expect(redactor.text(`t=${encodeURIComponent('pässwörd')}`)).toBe(`t=${REDACTED}`);
    expect(redactor.text(`t=${encodeURIComponent('pässwörd').toLowerCase()}`)).toBe(`t=${REDACTED}`);
    // The code point as one %XX is no encoding of it.
    expect(redactor.text('t=p%E4ssw%F6rd')).toBe('t=p%E4ssw%F6rd');
  });

  it('needs no Buffer (the edge build redacts on runtimes without one)', () => {
    const buffer = globalThis.Buffer;
    // @ts-expect-error: removed for this test, as on workerd or in a browser
    delete globalThis.Buffer;
    try {
      expect(new Redactor('pässwörd').text(`t=${encodeURIComponent('pässwörd')}&u=pässwörd`)).toBe(
        `t=${REDACTED}&u=${REDACTED}`,
      );
    } finally {
      globalThis.Buffer = buffer;
    }
  });

  it('takes the JSON escapes of `/`, `"` and `\\` for those characters only', () => {
    const redactor = new Redactor('ab');
    for (const text of ['\\/\\/', '\\"\\"', '\\\\\\\\', 'a\\/', '\\"b'])
      expect(redactor.text(text)).toBe(text);
    expect(new Redactor('a/"\\b').text('a\\/\\"\\\\b')).toBe(REDACTED);
  });
});

describe('Redactor.value', () => {
  it('redacts a bigint that spells the token', () => {
    const redactor = new Redactor('123456789012345678901');
    expect(redactor.value(123456789012345678901n)).toBe(REDACTED);
    expect(redactor.value([7n])).toEqual([7n]);
  });

  it('replaces what lies 32 levels down or deeper, in arrays and objects alike', () => {
    const redactor = new Redactor('s3cret');
    const nest = (depth: number, leaf: unknown, inObject: boolean): unknown => {
      let value = leaf;
      for (let i = 0; i < depth; i++) value = inObject ? { k: value } : [value];
      return value;
    };
    const unwrap = (value: unknown, depth: number): unknown => {
      let out = value;
      for (let i = 0; i < depth; i++) out = Array.isArray(out) ? out[0] : (out as { k: unknown }).k;
      return out;
    };
    for (const inObject of [false, true]) {
      // The leaf at depth 31 is kept; at depth 32 (a whole branch past the limit) it is replaced.
      expect(unwrap(redactor.value(nest(31, { ok: 1 }, inObject)), 31)).toEqual({ ok: 1 });
      expect(unwrap(redactor.value(nest(32, { ok: 1 }, inObject)), 32)).toBe(REDACTED);
    }
  });
});

describe('Redactor.error', () => {
  const token = 's3cret';

  it('redacts the token from an error’s own body and headers, keeping them enumerable', () => {
    const error = Object.assign(new Error('failed'), {
      body: { echo: `Bearer ${token}` },
      headers: { 'x-echo': token, 'content-type': 'application/json' },
    });
    new Redactor(token).error(error);
    expect(error.body).toEqual({ echo: `Bearer ${REDACTED}` });
    expect(error.headers).toEqual({ 'x-echo': REDACTED, 'content-type': 'application/json' });
    expect(Object.keys(error)).toEqual(['body', 'headers']);
    expect(JSON.stringify(error)).not.toContain(token);
  });

  it('keeps a rewritten field’s attributes: message stays hidden, writable and configurable', () => {
    const error = new Error(`failed: ${token}`);
    new Redactor(token).error(error);
    expect(Object.getOwnPropertyDescriptor(error, 'message')).toEqual({
      value: `failed: ${REDACTED}`,
      writable: true,
      enumerable: false,
      configurable: true,
    });
  });

  it('gives an inherited message an own redacted one, writable and hidden', () => {
    class Echoed extends Error {}
    Object.defineProperty(Echoed.prototype, 'message', { value: `echoed ${token}`, writable: true });
    const error = new Echoed();
    new Redactor(token).error(error);
    expect(error.message).toBe(`echoed ${REDACTED}`);
    expect(Object.getOwnPropertyDescriptor(error, 'message')).toMatchObject({
      writable: true,
      enumerable: false,
    });
  });
});

describe('redactorFor', () => {
  it('keeps the redactor of each of the last 8 tokens, and drops the first kept past that', () => {
    const kept = Array.from({ length: 8 }, (_, i) => redactorFor(`token-${i}`));
    for (const [i, redactor] of kept.entries()) expect(redactorFor(`token-${i}`)).toBe(redactor);
    redactorFor('token-8');
    expect(redactorFor('token-1')).toBe(kept[1]);
    expect(redactorFor('token-0')).not.toBe(kept[0]);
  });
});
