/**
 * eachLimited, the bounded fan-out behind `claims forms pull` and `checkForms`: never more than
 * `limit` look-ups at once, every item once, and nothing started after the first failure.
 */
import { describe, expect, it } from 'vitest';
import { eachLimited } from '../../src/forms/live.js';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('eachLimited', () => {
  it('runs every item once, at most limit at once, and uses all of them', async () => {
    for (const [count, limit] of [
      [10, 4],
      [3, 4],
      [4, 1],
    ] as const) {
      const items = Array.from({ length: count }, (_, i) => i);
      const seen: number[] = [];
      let running = 0;
      let most = 0;
      await eachLimited(items, limit, async (item) => {
        running += 1;
        most = Math.max(most, running);
        await tick();
        seen.push(item);
        running -= 1;
      });
      expect(seen.sort((a, b) => a - b)).toEqual(items);
      expect(most).toBe(Math.min(limit, count));
    }
  });

  it('no items: resolves without calling work', async () => {
    let called = false;
    await eachLimited([], 4, async () => {
      called = true;
    });
    expect(called).toBe(false);
  });

  it('rejects with the first failure; no item starts after it, those running finish', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const failure = new Error('look-up failed');
    const run = eachLimited([0, 1, 2, 3, 4, 5, 6, 7], 2, async (item) => {
      started.push(item);
      if (item === 2) throw failure;
      await tick();
      await tick();
      finished.push(item);
    });
    await expect(run).rejects.toBe(failure);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // 0 and 1 start; 0 finishes, 2 starts and fails; 1 was running and finishes; nothing more.
    expect(started).toEqual([0, 1, 2]);
    expect(finished.sort()).toEqual([0, 1]);
  });
});
