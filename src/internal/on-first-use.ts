/**
 * A module the SDK loads on first use (`() => import('./x.js')`, a static path so bundlers still
 * include it), imported once and shared by every caller after. A failed import is not kept:
 * the next call tries again.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
