import { onAbort } from './abort-fanout.js';

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
  idlePhase: string | undefined = undefined;
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

  /** A listener for the stop (the type is always `'abort'`: a wire's `AbortSignal` look-alike). */
  addEventListener(_type: 'abort', listener: Listener, _options?: unknown): void {
    this.#listen(listener);
  }

  removeEventListener(_type: 'abort', listener: Listener): void {
    this.#unlisten(listener);
  }

  #listen(listener: Listener): void {
    if (this.#listeners) this.#listeners.push(listener);
    else this.#listeners = [listener];
  }

  #unlisten(listener: Listener): void {
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    const at = listeners.indexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
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
      this.#listen(stop);
      promise.then(
        (value) => {
          this.#unlisten(stop);
          resolve(value);
        },
        (error: unknown) => {
          this.#unlisten(stop);
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
        this.#unlisten(stop);
        resolve();
      }, ms);
      this.#listen(stop);
    });
  }

  /**
   * Waits between attempts. A wait that would pass the deadline is not begun: the call stops
   * at once, `last` (the last attempt's error) as the reason its error keeps as `cause`.
   */
  pause(ms: number, last: Error): Promise<void> {
    if (ms >= this.remaining()) {
      this.stop('deadline', last);
      return Promise.reject(STOPPED);
    }
    return this.sleep(ms);
  }
}

/**
 * What a phase of the transport rejects with once its call stopped; the transport turns it
 * into the call's `AbortError` or `ClaimsTimeoutError`, which only it can describe (so the
 * message is never shown, and a mutant of it is equivalent).
 */
// Stryker disable next-line StringLiteral: never shown (see above)
export const STOPPED: Error = new Error('the call was stopped');

/*
 * The deadline and stall watch: one timer for every call in flight, not one per call. Each
 * tick stops the calls whose deadline passed or whose watched phase stalled. Registering a
 * call is a `Set.add`. The timer runs only while calls are in flight (it stops on the first
 * tick that finds none), and keeps the process alive meanwhile, as a call's own timer would.
 */

/** How often the deadlines and stalls of the calls in flight are checked, in ms. */
export const TICK_MS = 50;

const calls = new Set<CallSignal>();
let timer: ReturnType<typeof setInterval> | undefined;

function watch(call: CallSignal): void {
  calls.add(call);
  timer ??= setInterval(tick, TICK_MS);
}

function unwatch(call: CallSignal): void {
  calls.delete(call);
}

/** Passed to undici and fetch as the reason of a call stopped by its deadline or a stall. */
export class CallStopped extends Error {
  override name = 'CallStopped';
}

function tick(): void {
  const now = performance.now();
  // stop() does nothing to a call already stopped.
  for (const call of calls) {
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
