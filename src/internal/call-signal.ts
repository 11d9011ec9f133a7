import { onAbort } from './abort-fanout.js';
import { unwatch, watch } from './deadline.js';

/** Why a call was stopped before it settled. */
export type StopReason =
  /** The caller's `signal` aborted. */
  | 'aborted'
  /** `deadlineMs` passed. */
  | 'deadline'
  /** A phase the transport watches itself (token provider, request body) made no progress for `timeoutMs`. */
  | 'idle';

type Listener = () => void;

/**
 * One call's own abort signal, handed to the wire for every attempt and to every wait: it
 * aborts when the caller's signal does, when the call's deadline passes, or when a watched
 * phase stalls. A plain object with the part of `EventTarget` that undici and the SDK use,
 * not an `AbortController`: a platform controller per request cost a quarter of the
 * throughput. Once stopped it stays stopped: the call is over.
 */
export class CallSignal {
  aborted = false;
  /** The caller's abort reason, or the internal reason of a deadline or stall. */
  reason: unknown = undefined;
  stopped: StopReason | undefined = undefined;
  /** `performance.now()` past which the call is over. */
  readonly deadlineAt: number;
  /** `performance.now()` past which the phase under way has stalled; `Infinity` when none is watched. */
  idleAt = Number.POSITIVE_INFINITY;
  /** What the watched phase is, for the message: `'the accessToken provider'`, `'the request body'`. */
  // Stryker disable next-line StringLiteral: read only for a stall, and only watchIdle starts a watch, setting it first
  idlePhase = '';
  // Mostly one listener at a time (the wire's, or a wait's): an array, made when first needed.
  #listeners: Listener[] | undefined = undefined;
  #unsubscribe: (() => void) | undefined = undefined;

  constructor(
    readonly deadlineMs: number,
    caller: AbortSignal | undefined,
  ) {
    this.deadlineAt = performance.now() + deadlineMs;
    if (caller?.aborted) this.stop('aborted', caller.reason);
    else if (caller) this.#unsubscribe = onAbort(caller, () => this.stop('aborted', caller.reason));
    watch(this);
  }

  /** Starts watching a phase: it stalls when `refresh` is not called for `timeoutMs`. */
  watchIdle(phase: string, timeoutMs: number): void {
    this.idlePhase = phase;
    this.idleAt = performance.now() + timeoutMs;
  }

  unwatchIdle(): void {
    this.idleAt = Number.POSITIVE_INFINITY;
  }

  /** ms left before the deadline (negative once past). */
  remaining(): number {
    return this.deadlineAt - performance.now();
  }

  stop(why: StopReason, reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.stopped = why;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: Listener, _options?: unknown): void {
    if (this.#listeners) this.#listeners.push(listener);
    else this.#listeners = [listener];
  }

  removeEventListener(_type: 'abort', listener: Listener): void {
    const at = this.#listeners?.indexOf(listener) ?? -1;
    // Stryker disable next-line OptionalChaining: `at` is -1 when there is no list, so the splice is never reached without one
    if (at >= 0) this.#listeners?.splice(at, 1);
  }

  /** The call is over: no more ticks, no more listening to the caller's signal. */
  end(): void {
    this.#unsubscribe?.();
    this.#listeners = undefined;
    unwatch(this);
  }

  /** `promise`, or a rejection with {@link STOPPED} as soon as the call stops. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.aborted) return Promise.reject(STOPPED);
    return new Promise<T>((resolve, reject) => {
      const stop = (): void => reject(STOPPED);
      // Stryker disable next-line StringLiteral: a CallSignal ignores the event type (it has only abort listeners)
      this.addEventListener('abort', stop);
      promise.then(
        (value) => {
          // Stryker disable next-line StringLiteral: a CallSignal ignores the event type (it has only abort listeners)
          this.removeEventListener('abort', stop);
          resolve(value);
        },
        (error: unknown) => {
          // Stryker disable next-line StringLiteral: a CallSignal ignores the event type (it has only abort listeners)
          this.removeEventListener('abort', stop);
          reject(error);
        },
      );
    });
  }

  /** Waits `ms`; rejects with {@link STOPPED} as soon as the call stops. */
  sleep(ms: number): Promise<void> {
    if (this.aborted) return Promise.reject(STOPPED);
    return new Promise<void>((resolve, reject) => {
      const stop = (): void => {
        clearTimeout(timer);
        reject(STOPPED);
      };
      const timer = setTimeout(() => {
        // Stryker disable next-line StringLiteral: a CallSignal ignores the event type (it has only abort listeners)
        this.removeEventListener('abort', stop);
        resolve();
      }, ms);
      // Stryker disable next-line StringLiteral: a CallSignal ignores the event type (it has only abort listeners)
      this.addEventListener('abort', stop);
    });
  }
}

/**
 * What a phase of the transport rejects with once its call stopped; the transport turns it
 * into the call's `AbortError` or `ClaimsTimeoutError`, which only it can describe.
 */
// Stryker disable next-line StringLiteral: never shown: the transport replaces it with the call's AbortError or ClaimsTimeoutError
export const STOPPED: Error = new Error('the call was stopped');
