/**
 * The one seam between the transport and OpenTelemetry. The transport asks `traceCall()` per
 * call; without OpenTelemetry that is one property read and the call runs untraced. The
 * OpenTelemetry code (and `@opentelemetry/api`, an optional peer) is loaded only once an
 * application has registered a tracer provider.
 */
import type * as OtelApi from '@opentelemetry/api';
import { VERSION } from '../version.js';
import type { CallTracer, TracedCall } from './types.js';

/**
 * The optional peer's name in a variable: bundlers leave such an `import()` to run time, so a
 * function bundled without `@opentelemetry/api` installed builds with no flag (esbuild refused
 * to resolve the literal), and one with it installed does not carry a second copy of the API.
 */
const OTEL_API = '@opentelemetry/api';

/**
 * Where `@opentelemetry/api` 1.x keeps what an application registered (`Symbol.for`, shared by
 * every copy of the API); `trace` is there once a tracer provider is registered.
 */
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let tracer: CallTracer | undefined;
let loading: Promise<CallTracer | undefined> | undefined;
/** Set when `@opentelemetry/api` could not be loaded: from then on calls run untraced at once. */
let unavailable = false;

/**
 * The span wrapper for a call of `method` on `route` (a path template such as
 * `/incidents/{incidentId}/events`), or `undefined` when nothing is listening.
 */
export function traceCall(method: string, route: string): TracedCall | undefined {
  const loaded = tracer;
  if (loaded) return (run) => loaded.trace(method, route, run);
  if (unavailable || (loading === undefined && !tracerProviderRegistered())) return undefined;
  // First traced call: load the OpenTelemetry side once; calls meanwhile wait for it.
  loading ??= Promise.all([
    import(/* webpackIgnore: true */ /* @vite-ignore */ OTEL_API) as Promise<typeof OtelApi>,
    import('./otel.js'),
  ]).then(
    ([api, otel]) => {
      tracer = otel.createCallTracer(api, VERSION);
      return tracer;
    },
    // The API is not resolvable from here (a bundle that left it out): stay untraced.
    () => {
      unavailable = true;
      return undefined;
    },
  );
  const pending = loading;
  return async (run) => {
    const ready = await pending;
    return ready ? ready.trace(method, route, run) : run(undefined);
  };
}

function tracerProviderRegistered(): boolean {
  const api = (globalThis as { [OTEL_API_GLOBAL]?: { trace?: unknown } })[OTEL_API_GLOBAL];
  return api?.trace !== undefined;
}
