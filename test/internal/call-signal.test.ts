/**
 * The pieces behind deadlines and shared signals: one listener per caller signal, a call's own
 * signal (stop, race, sleep), and the one shared ticker that stops calls past their deadline or
 * stalled, and stops itself when no call is in flight.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/internal/abort-fanout.js';
import { CallSignal, STOPPED, TICK_MS } from '../../src/internal/call-signal.js';

function timers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('onAbort', () => {
  it('adds one listener to a signal however many subscribe, and fires each subscriber once', () => {
    const controller = new AbortController();
    const fired: number[] = [];
    const stops = Array.from({ length: 50 }, (_, i) => onAbort(controller.signal, () => fired.push(i)));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stops[0]?.();
    controller.abort();
    controller.abort();
    expect(fired).toHaveLength(49);
    expect(fired).not.toContain(0);
  });
});

describe('CallSignal', () => {
  it('stops once: listeners fire once, with the first reason kept', () => {
    const signal = new CallSignal(60_000, undefined);
    let calls = 0;
    signal.addEventListener('abort', () => calls++);
    signal.stop('idle', 'first');
    signal.stop('deadline', 'second');
    expect([signal.aborted, signal.stopped, signal.reason, calls]).toEqual([true, 'idle', 'first', 1]);
    signal.end();
  });

  it("follows the caller's signal, already aborted or aborted later", () => {
    const before = new AbortController();
    before.abort('early');
    const early = new CallSignal(60_000, before.signal);
    expect([early.stopped, early.reason]).toEqual(['aborted', 'early']);
    early.end();

    const later = new AbortController();
    const call = new CallSignal(60_000, later.signal);
    later.abort('late');
    expect([call.stopped, call.reason]).toEqual(['aborted', 'late']);
    call.end();
  });

  it('an ended call no longer listens to the caller signal', () => {
    const controller = new AbortController();
    const call = new CallSignal(60_000, controller.signal);
    call.end();
    controller.abort();
    expect(call.aborted).toBe(false);
  });

  it('race and sleep reject with STOPPED as soon as the call stops', async () => {
    const signal = new CallSignal(60_000, undefined);
    const raced = signal.race(new Promise<never>(() => {}));
    const slept = signal.sleep(60_000);
    signal.stop('aborted', undefined);
    await expect(raced).rejects.toBe(STOPPED);
    await expect(slept).rejects.toBe(STOPPED);
    await expect(signal.race(Promise.resolve(1))).rejects.toBe(STOPPED);
    signal.end();
  });

  it('race passes the value or error through while the call runs', async () => {
    const signal = new CallSignal(60_000, undefined);
    await expect(signal.race(Promise.resolve('token'))).resolves.toBe('token');
    await expect(signal.race(Promise.reject(new Error('no')))).rejects.toThrow('no');
    signal.end();
  });
});

describe('the shared ticker', () => {
  it('stops a call at its deadline, and a stalled phase at its idle time', async () => {
    const late = new CallSignal(100, undefined);
    const stalled = new CallSignal(60_000, undefined);
    stalled.watchIdle('the request body', 100);
    const started = performance.now();
    await until(() => late.aborted && stalled.aborted);
    const ms = performance.now() - started;
    expect(late.stopped).toBe('deadline');
    expect(stalled.stopped).toBe('idle');
    expect(ms).toBeGreaterThanOrEqual(90);
    expect(ms).toBeLessThan(100 + 10 * TICK_MS + 1_000);
    late.end();
    stalled.end();
  });

  it('a phase that keeps progressing is not stopped; unwatching ends the idle watch', async () => {
    const signal = new CallSignal(60_000, undefined);
    for (let i = 0; i < 6; i++) {
      signal.watchIdle('the request body', 150);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    signal.unwatchIdle();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(signal.aborted).toBe(false);
    signal.end();
  });

  it('runs only while calls are in flight: no timer is left once they end', async () => {
    await until(() => timers() === 0, 500);
    const before = timers();
    const calls = Array.from({ length: 20 }, () => new CallSignal(60_000, undefined));
    expect(timers()).toBe(before + 1);
    for (const call of calls) call.end();
    await until(() => timers() === before);
    expect(timers()).toBe(before);
  });
});
