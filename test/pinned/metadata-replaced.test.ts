/**
 * A look-up that fails after `clear()` replaced it must not drop the look-up that replaced it:
 * callers arriving after the failure still share the newer one (a mutation of
 * src/metadata-cache.ts's `#drop` once got past).
 */
import { describe, expect, it } from 'vitest';
import { MetadataCache } from '../../src/metadata-cache.js';
import type { IncidentFieldDescriptor } from '../../src/schemas/metadata.js';

const query = { programmeCode: 'PRG', policyTypeCode: 'T1', countryCode: 'GB' };

describe('MetadataCache after clear()', () => {
  it('a failing old look-up leaves the newer one shared', async () => {
    const answers: Array<{ resolve(v: IncidentFieldDescriptor[]): void; reject(e: unknown): void }> = [];
    const cache = new MetadataCache(
      60_000,
      () => new Promise<IncidentFieldDescriptor[]>((resolve, reject) => answers.push({ resolve, reject })),
    );
    const old = cache.get(query);
    cache.clear();
    const newer = cache.get(query);
    expect(answers).toHaveLength(2);
    answers[0]?.reject(new Error('down'));
    await expect(old).rejects.toThrow('down');
    const later = cache.get(query);
    expect(answers).toHaveLength(2);
    answers[1]?.resolve([{ identifier: 'f:A' }]);
    await expect(Promise.all([newer, later])).resolves.toEqual([
      [{ identifier: 'f:A' }],
      [{ identifier: 'f:A' }],
    ]);
  });

  it('the last caller of an old look-up giving up leaves the newer one shared', async () => {
    const answers: Array<{ resolve(v: IncidentFieldDescriptor[]): void }> = [];
    const cache = new MetadataCache(
      60_000,
      () => new Promise<IncidentFieldDescriptor[]>((resolve) => answers.push({ resolve })),
    );
    const leaving = new AbortController();
    const old = cache.get(query, { signal: leaving.signal });
    cache.clear();
    const newer = cache.get(query);
    leaving.abort();
    await expect(old).rejects.toMatchObject({ name: 'AbortError' });
    const later = cache.get(query);
    expect(answers).toHaveLength(2);
    answers[1]?.resolve([]);
    await expect(Promise.all([newer, later])).resolves.toEqual([[], []]);
  });
});
