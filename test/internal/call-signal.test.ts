/**
 * The pieces behind deadlines and shared signals: one listener per caller signal, a call's own
 * signal (stop, race, sleep), and the one shared ticker that stops calls past their deadline or
 * stalled, and stops itself when no call is in flight.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadlineMessage, stoppedError } from '../../src/call-errors.js';
import { attemptOfError, nextStep } from '../../src/call-policy.js';
import { ClaimsTimeoutError } from '../../src/errors.js';
import { onAbort } from '../../src/internal/abort-fanout.js';
import { CallSignal, CallStopped, STOPPED, TICK_MS } from '../../src/internal/call-signal.js';
import { outcomeOf } from '../../src/outcome.js';

/**
 * The shared ticker runs on a fake clock: every test starts with no timer and ends with none, so
 * a ticker left by one test cannot decide another's ticks.
 */
const signals: CallSignal[] = [];
function call(deadlineMs: number, caller?: AbortSignal): CallSignal {
  const signal = new CallSignal(deadlineMs, caller);
  signals.push(signal);
  return signal;
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
  });
});
afterEach(() => {
  for (const signal of signals.splice(0)) signal.end();
  vi.advanceTimersByTime(TICK_MS); // the ticker stops on the first tick without calls
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

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
  it('stops a call at its deadline, and a stalled phase at its idle time', () => {
    const late = call(2 * TICK_MS);
    const stalled = call(60_000);
    stalled.watchIdle('the request body', 2 * TICK_MS);
    vi.advanceTimersByTime(2 * TICK_MS - 1);
    expect([late.aborted, stalled.aborted]).toEqual([false, false]);
    vi.advanceTimersByTime(1);
    expect(late.stopped).toBe('deadline');
    expect(stalled.stopped).toBe('idle');
  });

  it('a phase that keeps progressing is not stopped; unwatching ends the idle watch', () => {
    const signal = call(60_000);
    for (let i = 0; i < 6; i++) {
      signal.watchIdle('the request body', 3 * TICK_MS);
      vi.advanceTimersByTime(TICK_MS);
    }
    signal.unwatchIdle();
    vi.advanceTimersByTime(5 * TICK_MS);
    expect(signal.aborted).toBe(false);
  });

  it('runs only while calls are in flight: no timer is left once they end', () => {
    expect(vi.getTimerCount()).toBe(0);
    const calls = Array.from({ length: 20 }, () => new CallSignal(60_000, undefined));
    expect(vi.getTimerCount()).toBe(1);
    for (const each of calls) each.end();
    vi.advanceTimersByTime(TICK_MS);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('CallSignal listeners', () => {
  it('calls the listeners still added when it stops, not the removed ones', () => {
    const call = new CallSignal(60_000, undefined);
    const fired: string[] = [];
    const listener = (name: string) => () => fired.push(name);
    const [first, second, third] = [listener('first'), listener('second'), listener('third')];
    call.addEventListener('abort', first);
    call.addEventListener('abort', second);
    call.addEventListener('abort', third);
    call.removeEventListener('abort', first);
    call.removeEventListener('abort', third);
    call.removeEventListener('abort', listener('never added'));
    call.stop('aborted', new Error('stop'));
    call.end();
    expect(fired).toEqual(['second']);
  });

  it('a sleep begun on a stopped call rejects at once', async () => {
    const stopped = call(60_000);
    stopped.stop('aborted', new Error('stop'));
    const outcome = stopped.sleep(5_000).then(
      () => 'slept',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(1);
    expect(await Promise.race([outcome, Promise.resolve('still waiting')])).toBe(STOPPED);
  });
});

/**
 * When a call is stopped and with what error (src/internal/call-signal.ts, call-errors.ts): the
 * shared ticker stops a call at its deadline or stall exactly when it is due, a wait that
 * would reach the deadline is not begun, and the error a stopped call rejects with: the
 * caller's AbortError, or a ClaimsTimeoutError whose cause is what went wrong meanwhile
 * (never the SDK's internal CallStopped reason).
 */
describe('stops', () => {
  describe('the ticker', () => {
    it('stops a call on the tick its deadline is reached, not one later', () => {
      const signal = call(2 * TICK_MS);
      vi.advanceTimersByTime(TICK_MS);
      expect(signal.stopped).toBeUndefined();
      vi.advanceTimersByTime(TICK_MS);
      expect(signal.stopped).toBe('deadline');
      expect(signal.reason).toBeInstanceOf(CallStopped);
      expect((signal.reason as Error).name).toBe('CallStopped');
      expect((signal.reason as Error).message).toBe(`deadline of ${2 * TICK_MS} ms passed`);
    });

    it('stops a stalled phase on the tick it is due, naming the phase', () => {
      const signal = call(60_000);
      signal.watchIdle('the request body', TICK_MS);
      vi.advanceTimersByTime(TICK_MS);
      expect(signal.stopped).toBe('idle');
      expect((signal.reason as Error).message).toBe('the request body made no progress');
    });

    it('a deadline and a stall due together: the deadline is named', () => {
      const signal = call(TICK_MS);
      signal.watchIdle('the accessToken provider', TICK_MS);
      vi.advanceTimersByTime(TICK_MS);
      expect(signal.stopped).toBe('deadline');
    });

    it('a call the caller aborted keeps its abort', () => {
      const controller = new AbortController();
      const signal = call(TICK_MS, controller.signal);
      controller.abort('mine');
      vi.advanceTimersByTime(TICK_MS);
      expect(signal.stopped).toBe('aborted');
      expect(signal.reason).toBe('mine');
    });
  });

  describe('pause between attempts', () => {
    it('a wait that would end right at the deadline is not begun: the call ends with the last error', async () => {
      const signal = call(10 * TICK_MS);
      const last = new Error('503 from the server');
      await expect(signal.pause(10 * TICK_MS, last)).rejects.toBe(STOPPED);
      expect(signal.stopped).toBe('deadline');
      expect(signal.reason).toBe(last);
    });

    it('a wait that ends before the deadline is waited', async () => {
      const signal = call(10 * TICK_MS);
      const waited = signal.pause(10 * TICK_MS - 1, new Error('503'));
      await vi.advanceTimersByTimeAsync(10 * TICK_MS - 1);
      await expect(waited).resolves.toBeUndefined();
      expect(signal.stopped).toBeUndefined();
    });
  });

  const CALL = { method: 'GET', url: 'https://claims.example.com/api/x', attempts: 2 };

  describe('the error of a stopped call', () => {
    it("the caller's abort: a fresh AbortError with the caller's reason and the call's outcome", () => {
      const controller = new AbortController();
      const signal = call(60_000, controller.signal);
      const reason = new Error('user left');
      controller.abort(reason);
      const error = stoppedError(signal, 1_000, 'not_sent', CALL);
      expect(error).toBeInstanceOf(DOMException);
      expect(error.name).toBe('AbortError');
      expect(error.message).toBe('The operation was aborted');
      expect(error.cause).toBe(reason);
      expect(outcomeOf(error)).toBe('not_sent');
      expect(error).not.toBe(stoppedError(signal, 1_000, 'not_sent', CALL));
      const sent = stoppedError(signal, 1_000, 'unknown', CALL);
      expect(sent.message).toBe('The operation was aborted (the request may have been processed)');
      expect(outcomeOf(sent)).toBe('unknown');
    });

    it('a caller that repeats calls itself (the batch) never repeats a stopped one, and keeps what its attempt may have done', () => {
      const controller = new AbortController();
      const signal = call(60_000, controller.signal);
      controller.abort();
      const state = {
        method: 'GET',
        retries: 0,
        replayable: true,
        freshResendUsed: false,
        newTokenUsed: false,
        tokenProvider: false,
        earlierMayHaveActed: false,
      };
      for (const phase of ['not_sent', 'unknown', 'processed'] as const) {
        const attempt = attemptOfError(stoppedError(signal, 1_000, phase, CALL));
        expect(attempt).toEqual({ kind: 'stopped', phase });
        expect(
          nextStep(attempt, state, { maxRetries: 5, maxRetryAfterMs: 600_000, longerWait: 'wait_max' }),
        ).toEqual({
          next: 'fail',
          outcome: phase,
        });
      }
    });

    it("the caller's abort without a reason: no cause", () => {
      const controller = new AbortController();
      const signal = call(60_000, controller.signal);
      signal.stop('aborted', undefined);
      expect(Object.hasOwn(stoppedError(signal, 1_000, 'not_sent', CALL), 'cause')).toBe(false);
    });

    it('the deadline, stopped by the ticker: no cause (CallStopped is internal)', () => {
      const signal = call(TICK_MS);
      vi.advanceTimersByTime(TICK_MS);
      const error = stoppedError(signal, 1_000, 'not_sent', CALL);
      expect(error).toBeInstanceOf(ClaimsTimeoutError);
      expect(error.message).toBe(`GET ${CALL.url}: ${deadlineMessage(TICK_MS)}`);
      expect(error.message).toBe(
        `GET ${CALL.url}: Deadline passed: the call did not finish within deadlineMs (${TICK_MS} ms)`,
      );
      expect(error).toMatchObject({ method: 'GET', url: CALL.url, attempts: 2 });
      expect(error.cause).toBeUndefined();
    });

    it('a stall, stopped by the ticker: the phase and timeoutMs named, no cause', () => {
      const signal = call(60_000);
      signal.watchIdle('the request body', TICK_MS);
      vi.advanceTimersByTime(TICK_MS);
      const error = stoppedError(signal, 1_234, 'not_sent', CALL);
      expect(error).toBeInstanceOf(ClaimsTimeoutError);
      expect(error.message).toBe(
        `GET ${CALL.url}: Request timed out: the request body made no progress for 1234 ms`,
      );
      expect(error.cause).toBeUndefined();
    });

    it('the deadline reached in a wait: the last attempt’s error as cause', async () => {
      const signal = call(TICK_MS);
      const last = new Error('503 from the server');
      await signal.pause(TICK_MS, last).catch(() => undefined);
      expect(stoppedError(signal, 1_000, 'rejected', CALL).cause).toBe(last);
    });

    it('a reason that is not an Error is not a cause', () => {
      const signal = call(60_000);
      signal.stop('idle', 'not an error');
      expect(stoppedError(signal, 1_000, 'not_sent', CALL).cause).toBeUndefined();
    });
  });
});
