/**
 * When a call is stopped and with what error (src/internal/call-signal.ts, call-errors.ts): the
 * shared ticker stops a call at its deadline or stall exactly when it is due, a wait that
 * would reach the deadline is not begun, and the error a stopped call rejects with: the
 * caller's AbortError, or a ClaimsTimeoutError whose cause is what went wrong meanwhile
 * (never the SDK's internal CallStopped reason).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadlineMessage, stoppedError } from '../../src/call-errors.js';
import { ClaimsTimeoutError } from '../../src/errors.js';
import { CallSignal, CallStopped, STOPPED, TICK_MS } from '../../src/internal/call-signal.js';
import { outcomeOf } from '../../src/outcome.js';

const signals: CallSignal[] = [];
function call(deadlineMs: number, caller?: AbortSignal): CallSignal {
  const signal = new CallSignal(deadlineMs, caller);
  signals.push(signal);
  return signal;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
});
afterEach(() => {
  for (const signal of signals.splice(0)) signal.end();
  vi.advanceTimersByTime(TICK_MS); // the ticker stops on the first tick without calls
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

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
