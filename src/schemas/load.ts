type Schemas = typeof import('./index.js');

let loading: Promise<Schemas> | undefined;

/**
 * The schemas, loaded (with zod) on the first call that needs them rather than on import:
 * zod takes most of the SDK's import time, and a serverless function should pay for it only
 * when it makes a call. Later calls get the same module at once.
 */
export function schemas(): Promise<Schemas> {
  loading ??= import('./index.js');
  return loading;
}
