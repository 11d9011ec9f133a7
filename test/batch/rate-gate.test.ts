import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The gate's waits, captured: each `sleep(ms)` moves the clock on by `ms` (or rejects at once
// when its signal is already aborted, as node's does), so no test waits in real time.
const slept: number[] = [];
let onSleep: (() => void) | undefined;
vi.mock('node:timers/promises', () => ({
  setTimeout: async (ms: number, _value: unknown, options: { signal?: AbortSignal } = {}) => {
    if (options.signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    slept.push(ms);
    vi.setSystemTime(Date.now() + ms);
    onSleep?.();
  },
}));
const { RateGate } = await import('../../src/batch/rate-gate.js');

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(1_000_000);
  slept.length = 0;
  onSleep = undefined;
});
afterEach(() => vi.useRealTimers());

describe('RateGate: one pause for the whole batch', () => {
  it('is open until paused, closed for exactly the pause, open again when it has passed', () => {
    const gate = new RateGate();
    expect(gate.isOpen(undefined)).toBe(true);
    gate.pause(500);
    expect(gate.isOpen(undefined)).toBe(false);
    vi.setSystemTime(1_000_499);
    expect(gate.isOpen(undefined)).toBe(false);
    vi.setSystemTime(1_000_500);
    expect(gate.isOpen(undefined)).toBe(true);
  });

  it('keeps the longer of two pauses: a shorter one asked later does not shorten it', () => {
    const gate = new RateGate();
    gate.pause(10_000);
    gate.pause(100);
    vi.setSystemTime(1_005_000);
    expect(gate.isOpen(undefined)).toBe(false);
    gate.pause(6_000); // ends at 1_011_000, after the first
    vi.setSystemTime(1_010_500);
    expect(gate.isOpen(undefined)).toBe(false);
    vi.setSystemTime(1_011_000);
    expect(gate.isOpen(undefined)).toBe(true);
  });

  it('is not open once the batch is stopped, paused or not', () => {
    const gate = new RateGate();
    const stopped = AbortSignal.abort();
    expect(gate.isOpen(new AbortController().signal)).toBe(true);
    expect(gate.isOpen(stopped)).toBe(false);
    gate.pause(100);
    expect(gate.isOpen(stopped)).toBe(false);
  });

  it('ready(): waits out exactly what is left of the pause, then says go', async () => {
    const gate = new RateGate();
    gate.pause(1_500);
    vi.setSystemTime(1_000_400);
    await expect(gate.ready(undefined)).resolves.toBe(true);
    expect(slept).toEqual([1_100]);
    expect(Date.now()).toBe(1_001_500);
  });

  it('ready(): waits again for a pause set while it waited', async () => {
    const gate = new RateGate();
    gate.pause(1_000);
    onSleep = () => {
      onSleep = undefined;
      gate.pause(2_000); // a 429 came back while this claim waited
    };
    await expect(gate.ready(new AbortController().signal)).resolves.toBe(true);
    expect(slept).toEqual([1_000, 2_000]);
  });

  it('ready(): no wait when open; false when the batch is stopped, before or during the wait', async () => {
    const gate = new RateGate();
    await expect(gate.ready(undefined)).resolves.toBe(true);
    await expect(gate.ready(AbortSignal.abort())).resolves.toBe(false);
    expect(slept).toEqual([]);
    gate.pause(1_000);
    await expect(gate.ready(AbortSignal.abort())).resolves.toBe(false);
    expect(slept).toEqual([]);
    const stop = new AbortController();
    onSleep = () => {
      onSleep = undefined;
      stop.abort();
      gate.pause(5_000);
    };
    await expect(gate.ready(stop.signal)).resolves.toBe(false);
    expect(slept).toEqual([1_000]);
  });

  it('ready(): false when the wait itself is aborted', async () => {
    const gate = new RateGate();
    gate.pause(1_000);
    const stop = new AbortController();
    // The signal aborts between the check and the sleep: the sleep rejects, the gate says no.
    const { signal } = stop;
    let reads = 0;
    const racing = new Proxy(signal, {
      get(target, name) {
        if (name === 'aborted') return reads++ > 0;
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await expect(gate.ready(racing)).resolves.toBe(false);
    expect(slept).toEqual([]);
  });
});
