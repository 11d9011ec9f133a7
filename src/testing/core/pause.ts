/**
 * Waits `ms`, or less when `signal` aborts (the caller went away: nobody is left to answer).
 * Resolves `true` when it was the abort. An `idle` wait keeps no process alive by itself.
 */
export function pause(ms: number, signal?: AbortSignal, idle = false): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (aborted: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(aborted);
    };
    const onAbort = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    if (idle) timer.unref();
    signal?.addEventListener('abort', onAbort);
  });
}
