import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { graceAfter, graceText, StoreGaveNoAnswer, storeGrace, withinGrace } from '../../src/batch/grace.js';

// The grace a stopped batch gives a journal store, on a fake clock: nothing waits in real time.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Whether `promise` has settled, and how (without waiting for it). */
function watch(promise: Promise<unknown>): { state: 'pending' | 'resolved' | 'rejected'; value?: unknown } {
  const seen: { state: 'pending' | 'resolved' | 'rejected'; value?: unknown } = { state: 'pending' };
  promise.then(
    (value) => Object.assign(seen, { state: 'resolved', value }),
    (value: unknown) => Object.assign(seen, { state: 'rejected', value }),
  );
  return seen;
}

describe('the store grace', () => {
  it('is 5 s, said so in messages', () => {
    expect(storeGrace.ms).toBe(5_000);
    expect(graceText()).toBe('5 s');
    storeGrace.ms = 250;
    try {
      expect(graceText()).toBe('0.25 s');
    } finally {
      storeGrace.ms = 5_000;
    }
  });

  it('graceAfter: runs out exactly the grace after the abort, not before, and never without one', async () => {
    const stop = new AbortController();
    const grace = graceAfter(stop.signal);
    const expired = watch(grace.expired);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(expired.state).toBe('pending');
    stop.abort();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(expired.state).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(expired.state).toBe('rejected');
    expect(expired.value).toBeInstanceOf(StoreGaveNoAnswer);
    expect((expired.value as Error).name).toBe('StoreGaveNoAnswer');
    grace.dispose();
  });

  it('graceAfter: starts at once on a signal already aborted', async () => {
    const grace = graceAfter(AbortSignal.abort());
    const expired = watch(grace.expired);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(expired.state).toBe('rejected');
    grace.dispose();
  });

  it('dispose(): clears the timer and stops listening (an abort after it starts nothing)', async () => {
    const running = new AbortController();
    const started = graceAfter(running.signal);
    const first = watch(started.expired);
    running.abort();
    started.dispose();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(first.state).toBe('pending');

    const later = new AbortController();
    const unused = graceAfter(later.signal);
    const second = watch(unused.expired);
    unused.dispose();
    later.abort();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(second.state).toBe('pending');
  });

  it('an unhandled expiry is no unhandled rejection (nobody may be racing it)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      graceAfter(AbortSignal.abort());
      await vi.advanceTimersByTimeAsync(5_000);
      vi.useRealTimers();
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it('withinGrace: the answer when it comes in time, StoreGaveNoAnswer when not; no signal, no limit', async () => {
    const stop = new AbortController();
    await expect(withinGrace(Promise.resolve('answer'), stop.signal)).resolves.toBe('answer');
    await expect(withinGrace(Promise.reject(new Error('disk full')), stop.signal)).rejects.toThrow(
      'disk full',
    );
    expect(vi.getTimerCount()).toBe(0);

    const never = new Promise<string>(() => undefined);
    const unbounded = watch(withinGrace(never, undefined));
    const bounded = watch(withinGrace(never, stop.signal));
    stop.abort();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(bounded.state).toBe('rejected');
    expect(bounded.value).toBeInstanceOf(StoreGaveNoAnswer);
    expect(unbounded.state).toBe('pending');
    expect(vi.getTimerCount()).toBe(0);

    const late = new AbortController();
    let answer!: (value: string) => void;
    const slow = watch(withinGrace(new Promise<string>((resolve) => (answer = resolve)), late.signal));
    late.abort();
    await vi.advanceTimersByTimeAsync(4_000);
    answer('in time');
    await vi.advanceTimersByTimeAsync(0);
    expect(slow).toEqual({ state: 'resolved', value: 'in time' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
