/**
 * The pauses a call makes between attempts, captured where the SDK begins them
 * (`CallSignal.sleep`): tests check each delay exactly instead of timing the call on the wall
 * clock, and need not wait them out. Restore with `vi.restoreAllMocks()` after each test.
 */
import { vi } from 'vitest';
import { RateGate } from '../../src/batch/rate-gate.js';
import { CallSignal } from '../../src/internal/call-signal.js';

/** Records each pause asked for; waits 0 ms instead, so a retry follows at once. */
export function capturePauses(): number[] {
  const pauses: number[] = [];
  const sleep = CallSignal.prototype.sleep;
  vi.spyOn(CallSignal.prototype, 'sleep').mockImplementation(function (this: CallSignal, ms: number) {
    pauses.push(ms);
    return sleep.call(this, 0);
  });
  return pauses;
}

/**
 * Aborts `controller` as soon as the call begins a pause, so the abort lands in the wait however
 * loaded the machine is; records each pause asked for (waited for real) and how it ended.
 */
export function abortOnPause(controller: AbortController): { pauses: number[]; ends: Promise<string>[] } {
  const pauses: number[] = [];
  const ends: Promise<string>[] = [];
  const sleep = CallSignal.prototype.sleep;
  vi.spyOn(CallSignal.prototype, 'sleep').mockImplementation(function (this: CallSignal, ms: number) {
    pauses.push(ms);
    const slept = sleep.call(this, ms);
    ends.push(
      slept.then(
        () => 'waited out',
        () => 'cut short',
      ),
    );
    controller.abort();
    return slept;
  });
  return { pauses, ends };
}

/**
 * The pauses a batch sets on its whole run (`RateGate.pause`), recorded; each is set as 0 ms
 * instead, so the next attempt follows at once. Restore with `vi.restoreAllMocks()`.
 */
export function captureBatchPauses(): number[] {
  const pauses: number[] = [];
  const pause = RateGate.prototype.pause;
  vi.spyOn(RateGate.prototype, 'pause').mockImplementation(function (this: RateGate, ms: number) {
    pauses.push(ms);
    pause.call(this, 0);
  });
  return pauses;
}
