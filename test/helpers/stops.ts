/**
 * What stopped each call, captured where the SDK stops it (`CallSignal.stop`): the reason and
 * the deadline or idle time of the call, as the SDK was given them. A test then shows which of
 * the call's own timers ended it, and with which setting, instead of timing the call on the
 * wall clock (when each timer fires is tested under a fake clock in call-signal.test.ts).
 * Restore with `vi.restoreAllMocks()` after each test.
 */
import { vi } from 'vitest';
import { CallSignal, type StopReason } from '../../src/internal/call-signal.js';

export interface Stop {
  why: StopReason;
  /** The call's `deadlineMs`. */
  deadlineMs: number;
  /** For an `idle` stop: the phase watched and its `timeoutMs`. */
  idle?: { phase: string; timeoutMs: number };
}

export function captureStops(): Stop[] {
  const stops: Stop[] = [];
  const watched = new WeakMap<CallSignal, { phase: string; timeoutMs: number }>();
  const watchIdle = CallSignal.prototype.watchIdle;
  vi.spyOn(CallSignal.prototype, 'watchIdle').mockImplementation(function (
    this: CallSignal,
    phase: string,
    timeoutMs: number,
  ) {
    watched.set(this, { phase, timeoutMs });
    watchIdle.call(this, phase, timeoutMs);
  });
  const stop = CallSignal.prototype.stop;
  vi.spyOn(CallSignal.prototype, 'stop').mockImplementation(function (
    this: CallSignal,
    why: StopReason,
    reason: unknown,
  ) {
    // A call stops once: later calls change nothing.
    if (!this.aborted) {
      const idle = watched.get(this);
      stops.push({ why, deadlineMs: this.deadlineMs, ...(why === 'idle' && idle ? { idle } : {}) });
    }
    stop.call(this, why, reason);
  });
  return stops;
}
