import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One pause for a whole batch: when any call is told to slow down (429, `Retry-After`), no
 * claim of the batch is sent until the asked time has passed.
 */
export class RateGate {
  #until = 0;

  /** Holds every send for `ms` from now (a longer pause already set stays). */
  pause(ms: number): void {
    this.#until = Math.max(this.#until, Date.now() + ms);
  }

  /** Holds every send until `until` (ms since the epoch; a later pause already set stays). */
  pauseUntil(until: number): void {
    this.#until = Math.max(this.#until, until);
  }

  /** Whether sending is allowed now, without waiting: no pause set and `signal` not aborted. */
  isOpen(signal: AbortSignal | undefined): boolean {
    return this.#until <= Date.now() && !signal?.aborted;
  }

  /** Resolves when sending is allowed; false when `signal` aborted the wait. */
  async ready(signal: AbortSignal | undefined): Promise<boolean> {
    for (let left = this.#until - Date.now(); left > 0; left = this.#until - Date.now()) {
      if (signal?.aborted) return false;
      // Only an abort rejects the sleep: the next turn says so.
      await sleep(left, undefined, { signal }).catch(() => undefined);
    }
    return !signal?.aborted;
  }
}
