import { afterEach, describe, expect, it, vi } from 'vitest';

// node:crypto is loaded on the first compare (not on import); these pin both ways of loading it.
async function freshSameSecret() {
  vi.resetModules();
  return (await import('../../src/internal/same-secret.js')).sameSecret;
}

describe('sameSecret', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('tells equal secrets from different ones, including a prefix and an empty one', async () => {
    const sameSecret = await freshSameSecret();
    expect(sameSecret('s3cret-value', 's3cret-value')).toBe(true);
    expect(sameSecret('s3cret-valuf', 's3cret-value')).toBe(false);
    expect(sameSecret('s3cret', 's3cret-value')).toBe(false);
    expect(sameSecret('', 's3cret-value')).toBe(false);
    expect(sameSecret('ünïcode', 'ünïcode')).toBe(true);
    // Hashed as UTF-8: characters past Latin-1 are not cut to one byte (Ā would equal \0).
    expect(sameSecret('\u0100', '\u0000')).toBe(false);
    expect(sameSecret('\u{1F511}', '\u{1F512}')).toBe(false);
  });

  it('works on a Node 20 without process.getBuiltinModule (before 20.16)', async () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    const sameSecret = await freshSameSecret();
    expect(sameSecret('token-a', 'token-a')).toBe(true);
    expect(sameSecret('token-a', 'token-b')).toBe(false);
  });
});
