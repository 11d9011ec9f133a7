/**
 * After a batch is stopped (its `signal`, or a stop of its own), how long a journal store may
 * take to answer a call under way, in ms, before the run gives it up and reports what it
 * knows: a store that never answers cannot keep a stopped batch running. An object, not a
 * constant, so that tests can shorten it (never part of the public API).
 */
export const storeGrace = { ms: 5_000 };

/** The journal store gave no answer within the grace. */
export class StoreGaveNoAnswer extends Error {
  override name = 'StoreGaveNoAnswer';
}

/** A promise that rejects `storeGrace.ms` after `signal` aborts; `dispose()` clears its timer. */
export function graceAfter(signal: AbortSignal): { expired: Promise<never>; dispose(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (reject: (error: unknown) => void) => () => {
    timer = setTimeout(() => reject(new StoreGaveNoAnswer()), storeGrace.ms);
  };
  let onAbort: (() => void) | undefined;
  const expired = new Promise<never>((_, reject) => {
    onAbort = arm(reject);
    if (signal.aborted) onAbort();
    else {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, and dispose() removes the listener either way
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  expired.catch(() => undefined);
  return {
    expired,
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort as () => void);
    },
  };
}

/** `promise`, or StoreGaveNoAnswer once the grace after `signal` has passed. */
export async function withinGrace<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  const grace = graceAfter(signal);
  try {
    return await Promise.race([promise, grace.expired]);
  } finally {
    grace.dispose();
  }
}

/** The grace in words, for messages: `5 s`. */
export function graceText(): string {
  return `${storeGrace.ms / 1000} s`;
}
