/**
 * Chaos: a seeded share of calls gets a random fault. The same seed gives the same schedule
 * (a soak test can be replayed); the rate holds over many calls; every kind turns up.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsValidationError } from '../../src/index.js';
import { ChaosSchedule, mulberry32 } from '../../src/testing/core/faults/chaos.js';
import { type SandboxCall, SandboxCore } from '../../src/testing/index.js';

const kindOf = (fault: object | undefined) => (fault === undefined ? 'none' : Object.keys(fault)[0]);

describe('mulberry32', () => {
  it('is a pure function of its seed, in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const first = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(first).size).toBe(1000);
    expect(mulberry32(43)()).not.toBe(first[0]);
    // Pinned: a change of the generator changes every replayed schedule.
    expect(Array.from({ length: 3 }, mulberry32(1))).toEqual([
      0.6270739405881613, 0.002735721180215478, 0.5274470399599522,
    ]);
    expect(mulberry32(2 ** 32 - 1)()).toBeLessThan(1);
  });
});

describe('ChaosSchedule', () => {
  it('gives the same faults for the same seed, call after call', () => {
    const one = new ChaosSchedule({ rate: 0.3, seed: 7 });
    const two = new ChaosSchedule({ rate: 0.3, seed: 7 });
    const run = (s: ChaosSchedule) => Array.from({ length: 500 }, () => s.draw());
    const first = run(one);
    expect(run(two)).toEqual(first);
    expect(run(new ChaosSchedule({ rate: 0.3, seed: 8 }))).not.toEqual(first);
  });

  it('hits about `rate` of the calls, with every kind, each valid', () => {
    const chaos = new ChaosSchedule({ rate: 0.1, seed: 12345 });
    const draws = Array.from({ length: 20_000 }, () => chaos.draw());
    const hits = draws.filter((d) => d !== undefined);
    expect(hits.length / draws.length).toBeGreaterThan(0.09);
    expect(hits.length / draws.length).toBeLessThan(0.11);
    expect(new Set(hits.map(kindOf))).toEqual(
      new Set(['status', 'delayMs', 'reset', 'timeout', 'truncate', 'drip']),
    );
    const core = new SandboxCore();
    for (const fault of hits.slice(0, 200)) core.faults.next({ route: 'POST /incidents', fault });
    expect(
      new Set(hits.filter((h) => h && 'status' in h).map((h) => (h as { status: number }).status)),
    ).toEqual(new Set([500, 502, 503, 429]));
  });

  it('rate 0 never hits, rate 1 always does', () => {
    const never = new ChaosSchedule({ rate: 0, seed: 1 });
    const always = new ChaosSchedule({ rate: 1, seed: 1 });
    expect(Array.from({ length: 200 }, () => never.draw()).every((d) => d === undefined)).toBe(true);
    expect(Array.from({ length: 200 }, () => always.draw()).every((d) => d !== undefined)).toBe(true);
  });

  it('picks a random seed when none is given, and says which', () => {
    const seeds = new Set(Array.from({ length: 20 }, () => new ChaosSchedule({ rate: 0.5 }).seed));
    expect(seeds.size).toBeGreaterThan(15);
    for (const seed of seeds) expect(Number.isInteger(seed) && seed >= 0 && seed <= 0xffff_ffff).toBe(true);
  });

  it.each([
    [{ rate: -0.1 }, 'chaos.rate'],
    [{ rate: 1.5 }, 'chaos.rate'],
    [{ rate: Number.NaN }, 'chaos.rate'],
    [{ rate: '0.1' }, 'chaos.rate'],
    [{ rate: 0.1, seed: -1 }, 'chaos.seed'],
    [{ rate: 0.1, seed: 1.5 }, 'chaos.seed'],
    [{ rate: 0.1, seed: 2 ** 32 }, 'chaos.seed'],
  ])('refuses %j (%s)', (options, path) => {
    const error = (() => {
      try {
        new SandboxCore({ chaos: options as never });
      } catch (e) {
        return e;
      }
    })() as ClaimsValidationError;
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(error.issues.map((i) => i.path)).toEqual([path]);
    expect(error.message).toMatch(/^Invalid sandbox chaos: chaos\.(rate|seed): must be/);
  });
});

describe('a sandbox with chaos', () => {
  const send = (core: SandboxCore) =>
    core.handle({
      method: 'GET',
      path: '/metadata/programmes',
      query: new URLSearchParams(),
      headers: { authorization: `Bearer ${core.token}` },
      body: new Uint8Array(),
    });

  it('replays: the same seed and calls give the same faults in `calls`', async () => {
    const run = async () => {
      const core = new SandboxCore({ chaos: { rate: 0.5, seed: 99 }, limits: { maxCalls: 100 } });
      for (let i = 0; i < 40; i++) await send(core);
      return core.calls.map((c: SandboxCall) => [c.status, c.fault]);
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first.filter(([, fault]) => fault !== undefined).length).toBeGreaterThan(10);
    expect(new SandboxCore({ chaos: { rate: 0.5, seed: 99 } }).chaos).toEqual({ rate: 0.5, seed: 99 });
    expect(new SandboxCore().chaos).toBeUndefined();
  });

  it('a queued fault goes first and takes no draw from the schedule', async () => {
    const plain = new SandboxCore({ chaos: { rate: 1, seed: 5 } });
    const queued = new SandboxCore({ chaos: { rate: 1, seed: 5 } });
    queued.faults.next({ route: 'GET /metadata/programmes', fault: { status: 418 } });
    await send(plain);
    await send(queued);
    await send(queued);
    expect(queued.calls.map((c) => c.fault)).toEqual([{ status: 418 }, plain.calls[0]?.fault]);
  });
});
