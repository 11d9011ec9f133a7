import type { CallSignal } from './call-signal.js';

/**
 * One timer for every call in flight, not one per call: each tick stops the calls whose
 * deadline passed or whose watched phase stalled. Registering a call is a `Set.add`. The
 * timer runs only while calls are in flight (it stops on the first tick that finds none),
 * and keeps the process alive meanwhile, as a call's own timer would.
 */
export const TICK_MS = 50;

const calls = new Set<CallSignal>();
let timer: NodeJS.Timeout | undefined;

/** Watches `call` until it ends. */
export function watch(call: CallSignal): void {
  calls.add(call);
  timer ??= setInterval(tick, TICK_MS);
}

export function unwatch(call: CallSignal): void {
  calls.delete(call);
}

/** Passed to undici and fetch as the reason of a call stopped by its deadline or a stall. */
export class CallStopped extends Error {
  override name = 'CallStopped';
}

function tick(): void {
  const now = performance.now();
  for (const call of calls) {
    // Stryker disable next-line ConditionalExpression: a shortcut only: stop() does nothing to a call already stopped
    if (call.aborted) continue;
    if (now >= call.deadlineAt)
      call.stop('deadline', new CallStopped(`deadline of ${call.deadlineMs} ms passed`));
    else if (now >= call.idleAt) call.stop('idle', new CallStopped(`${call.idlePhase} made no progress`));
  }
  // Only the timer runs a tick, so it is set here.
  if (calls.size === 0) {
    clearInterval(timer);
    timer = undefined;
  }
}
