/**
 * What every DeliveryStore must do, for any store: MemoryDeliveryStore runs it here; a shared
 * store (PostgreSQL) runs the same cases against its database, with `sleep` long enough for
 * its clock. `make` returns a fresh, empty store with the given retention.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryStore } from '../../src/webhooks/index.js';

export interface StoreUnderTest {
  store: DeliveryStore;
  close?(): Promise<void>;
}

export function deliveryStoreContract(
  name: string,
  make: (options: { retentionMs: number }) => Promise<StoreUnderTest>,
): void {
  describe(`${name}: the DeliveryStore contract`, () => {
    async function withStore(retentionMs: number, run: (store: DeliveryStore) => Promise<void>) {
      const made = await make({ retentionMs });
      try {
        await run(made.store);
      } finally {
        await made.close?.();
      }
    }
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it('a free key is claimed once; a held key is not done', async () => {
      await withStore(60_000, async (store) => {
        expect(await store.claim('k', 60_000)).toBe(true);
        expect(await store.claim('k', 60_000)).toBe(false);
        expect(await store.isDone?.('k')).toBe(false);
        expect(await store.claim('other', 60_000)).toBe(true);
      });
    });

    it('concurrent claims of one key: exactly one wins', async () => {
      await withStore(60_000, async (store) => {
        const results = await Promise.all(Array.from({ length: 20 }, () => store.claim('race', 60_000)));
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    it('release frees a held key; a done key stays done after release', async () => {
      await withStore(60_000, async (store) => {
        await store.claim('k', 60_000);
        await store.release('k');
        expect(await store.claim('k', 60_000)).toBe(true);
        await store.done('k');
        await store.release('k');
        expect(await store.claim('k', 60_000)).toBe(false);
        expect(await store.isDone?.('k')).toBe(true);
        await store.release('never-claimed');
        expect(await store.isDone?.('never-claimed')).toBe(false);
      });
    });

    it('a hold ends by itself after ttlMs (a receiver that died mid-handler)', async () => {
      await withStore(60_000, async (store) => {
        expect(await store.claim('k', 50)).toBe(true);
        await sleep(120);
        expect(await store.claim('k', 60_000)).toBe(true);
      });
    });

    it('a done key is forgotten after the retention', async () => {
      await withStore(100, async (store) => {
        await store.claim('k', 60_000);
        await store.done('k');
        expect(await store.isDone?.('k')).toBe(true);
        await sleep(200);
        expect(await store.isDone?.('k')).toBe(false);
        expect(await store.claim('k', 60_000)).toBe(true);
      });
    });

    it('keys are exact: case, spaces and long keys are distinct keys', async () => {
      await withStore(60_000, async (store) => {
        const long = 'x'.repeat(1000);
        for (const key of ['a', 'A', ' a', 'a ', long, `${long}y`, 'ключ', '🔑']) {
          expect(await store.claim(key, 60_000)).toBe(true);
        }
      });
    });
  });
}
