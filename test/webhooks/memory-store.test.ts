import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClaimsValidationError } from '../../src/errors.js';
import { MemoryDeliveryStore } from '../../src/webhooks/index.js';
import { deliveryStoreContract } from './delivery-store-contract.js';

deliveryStoreContract('MemoryDeliveryStore', async ({ retentionMs }) => ({
  store: new MemoryDeliveryStore({ retentionMs }),
}));

describe('MemoryDeliveryStore bounds', () => {
  afterEach(() => void vi.useRealTimers());

  it('keeps at most maxEntries keys, forgetting the oldest done ones first, never a held one', async () => {
    const store = new MemoryDeliveryStore({ maxEntries: 3 });
    await store.claim('held', 60_000);
    for (const key of ['a', 'b', 'c']) {
      await store.claim(key, 60_000);
      await store.done(key);
    }
    expect(store.size).toBe(3);
    expect(await store.isDone('a')).toBe(false); // the oldest done key went first
    expect(await store.isDone('b')).toBe(true);
    expect(await store.claim('held', 60_000)).toBe(false); // still held
    // Done again later: now the newest, so 'b' goes before it.
    await store.claim('d', 60_000);
    expect(await store.isDone('b')).toBe(false);
    expect(await store.isDone('c')).toBe(true);
  });

  it('the default retention is 24 hours', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new MemoryDeliveryStore();
    await store.claim('k', 1000);
    await store.done('k');
    vi.setSystemTime(24 * 60 * 60 * 1000 - 1);
    expect(await store.isDone('k')).toBe(true);
    vi.setSystemTime(24 * 60 * 60 * 1000);
    expect(await store.isDone('k')).toBe(false);
    expect(await store.claim('k', 1000)).toBe(true);
  });

  it('expired keys are swept from the front on claim, so memory follows the retention', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new MemoryDeliveryStore({ retentionMs: 1000 });
    for (let i = 0; i < 100; i++) {
      await store.claim(`k${i}`, 1000);
      await store.done(`k${i}`);
    }
    expect(store.size).toBe(100);
    vi.setSystemTime(1000);
    await store.claim('new', 1000);
    expect(store.size).toBe(1);
  });

  it('the default bound is 10,000 keys', async () => {
    const store = new MemoryDeliveryStore();
    for (let i = 0; i < 10_050; i++) {
      await store.claim(`k${i}`, 60_000);
      await store.done(`k${i}`);
    }
    expect(store.size).toBe(10_000);
    expect(await store.isDone('k49')).toBe(false);
    expect(await store.isDone('k50')).toBe(true);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses retentionMs and maxEntries of %s',
    (bad) => {
      for (const name of ['retentionMs', 'maxEntries']) {
        const error = (() => {
          try {
            new MemoryDeliveryStore({ [name]: bad });
          } catch (e) {
            return e;
          }
        })();
        expect(error).toBeInstanceOf(ClaimsValidationError);
        expect((error as ClaimsValidationError).issues).toEqual([
          { path: name, message: 'must be a positive whole number' },
        ]);
      }
    },
  );

  it('property: any sequence of operations keeps the store within its bound and never loses a held key', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('claim' as const), key: fc.string({ maxLength: 3 }) }),
      fc.record({ kind: fc.constant('release' as const), key: fc.string({ maxLength: 3 }) }),
      fc.record({ kind: fc.constant('done' as const), key: fc.string({ maxLength: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), async (max, ops) => {
        const store = new MemoryDeliveryStore({ maxEntries: max });
        // A model: which keys this caller holds (claimed, not yet released or done).
        const held = new Set<string>();
        for (const { kind, key } of ops) {
          if (kind === 'claim') {
            const won = await store.claim(key, 60_000);
            if (held.has(key)) expect(won).toBe(false);
            if (won) held.add(key);
          } else if (kind === 'release') {
            await store.release(key);
            held.delete(key);
          } else if (held.has(key)) {
            await store.done(key);
            held.delete(key);
          }
          expect(store.size).toBeLessThanOrEqual(Math.max(max, held.size));
        }
        for (const key of held) expect(await store.claim(key, 60_000)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('MemoryDeliveryStore expiry, to the millisecond', () => {
  afterEach(() => void vi.useRealTimers());

  it('a hold that ran out behind a live one is free (the sweep stops at the live one)', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new MemoryDeliveryStore();
    await store.claim('long', 60_000);
    await store.claim('short', 100);
    vi.setSystemTime(99);
    expect(await store.claim('short', 100)).toBe(false);
    vi.setSystemTime(100); // its hold ends at 100 exactly
    expect(await store.claim('short', 100)).toBe(true);
    expect(await store.claim('long', 100)).toBe(false);
  });

  it('a done key behind a live one is forgotten at its retention to the millisecond', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new MemoryDeliveryStore({ retentionMs: 50 });
    await store.claim('long', 60_000);
    await store.claim('k', 1000);
    await store.done('k');
    vi.setSystemTime(49);
    expect(await store.isDone('k')).toBe(true);
    expect(await store.claim('k', 1000)).toBe(false);
    vi.setSystemTime(50);
    expect(await store.isDone('k')).toBe(false);
    expect(await store.claim('k', 1000)).toBe(true);
  });
});
