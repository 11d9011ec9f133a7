/**
 * One listener per caller `AbortSignal`, fanning out to every call waiting on it. A signal
 * shared by many calls in flight would otherwise collect a listener per call (and per
 * undici request, and per wait between attempts), and Node prints
 * `MaxListenersExceededWarning` past 10.
 */
const subscribers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `listener` once when `signal` aborts; returns the function that stops listening.
 * The caller checks `signal.aborted` first: an aborted signal fires no event.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let set = subscribers.get(signal);
  if (set === undefined) {
    const created = new Set<() => void>();
    set = created;
    subscribers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        subscribers.delete(signal);
        for (const fire of created) fire();
        created.clear();
      },
      { once: true },
    );
  }
  const own = set;
  own.add(listener);
  return () => own.delete(listener);
}

/** How many calls are listening to `signal` through the fan-out (for leak checks in tests). */
export function waitingOn(signal: AbortSignal): number {
  return subscribers.get(signal)?.size ?? 0;
}
