import { describe, expect, it } from 'vitest';
import { onFirstUse } from '../../src/internal/on-first-use.js';

describe('onFirstUse', () => {
  it('does not load before the first call', () => {
    let loads = 0;
    onFirstUse(async () => ++loads);
    expect(loads).toBe(0);
  });

  it('loads once: concurrent and later callers share the first import', async () => {
    let loads = 0;
    const module = { name: 'the module' };
    const load = onFirstUse(async () => {
      loads++;
      return module;
    });
    const first = load();
    const concurrent = load();
    expect(concurrent).toBe(first);
    expect(await Promise.all([first, concurrent, load()])).toEqual([module, module, module]);
    expect(await load()).toBe(module);
    expect(loads).toBe(1);
  });

  it('a failed import rejects its callers and is tried again on the next call', async () => {
    const failure = new Error('Cannot find module ./chunk.js');
    let loads = 0;
    const load = onFirstUse(async () => {
      loads++;
      if (loads === 1) throw failure;
      return 'loaded';
    });
    const first = load();
    const concurrent = load();
    await expect(first).rejects.toBe(failure);
    await expect(concurrent).rejects.toBe(failure);
    expect(loads).toBe(1);
    await expect(load()).resolves.toBe('loaded');
    await expect(load()).resolves.toBe('loaded');
    expect(loads).toBe(2);
  });
});
