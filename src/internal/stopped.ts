import { ClaimsTimeoutError } from '../errors.js';
import type { Outcome } from '../outcome.js';
import { abortError } from '../wire/abort.js';
import { type CallSignal, STOPPED } from './call-signal.js';

/*
 * How a call ends when its CallSignal stopped it: the waits it cuts, the error it gets.
 */

/**
 * Waits between attempts; the call's signal ends the wait. A wait that would pass the
 * deadline is not begun: the call ends at once, with the last attempt's error as cause.
 */
export function pause(ms: number, signal: CallSignal, last: Error): Promise<void> {
  if (ms >= signal.remaining()) {
    signal.stop('deadline', last);
    return Promise.reject(STOPPED);
  }
  return signal.sleep(ms);
}

/** The message of a call past its deadline. */
export function deadlineMessage(deadlineMs: number): string {
  return `Deadline passed: the call did not finish within deadlineMs (${deadlineMs} ms)`;
}

/**
 * The error of a call its signal stopped: the caller's `AbortError`, or a `ClaimsTimeoutError`
 * naming the deadline or the phase that stalled. Whatever a wire or phase threw meanwhile is
 * only the way the stop showed, kept as `cause` when it says more.
 */
export function stoppedError(
  signal: CallSignal,
  thrown: unknown,
  timeoutMs: number,
  current: Outcome,
): Error {
  if (signal.stopped === 'aborted') {
    return thrown instanceof Error && thrown.name === 'AbortError' ? thrown : abortError(signal);
  }
  const cause =
    signal.reason instanceof Error && signal.reason.name !== 'CallStopped' ? signal.reason : undefined;
  const message =
    signal.stopped === 'deadline'
      ? deadlineMessage(signal.deadlineMs)
      : `Request timed out: ${signal.idlePhase} made no progress for ${timeoutMs} ms`;
  return new ClaimsTimeoutError(message, { cause, outcome: current });
}
