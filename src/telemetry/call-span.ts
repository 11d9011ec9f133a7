/**
 * The one seam between the transport and OpenTelemetry. The transport asks `traceCall()` per
 * call; without OpenTelemetry that is one property read and the call runs untraced. The
 * OpenTelemetry code (and `@opentelemetry/api`, an optional peer) is loaded only once an
 * application has registered a tracer provider.
 */
import type { Wire } from '../wire/types.js';

/** What the transport tells the span of one call. */
export interface CallSpan {
  /**
   * The wire for this call's attempts: each attempt carries the call's `traceparent`, counts
   * as a resend after the first, and runs with HTTP client instrumentation (undici's)
   * suppressed, so the call has one CLIENT span, not two.
   */
  wire(wire: Wire): Wire;
  /** One retry decided: the wait before it, in ms, and why (a status or an error name). */
  retry(delayMs: number, reason: string): void;
}

/** Runs a call inside its span; the span ends when the call settles. */
export type TracedCall = <T>(run: (span: CallSpan | undefined) => Promise<T>) => Promise<T>;

/** Made by `./otel.ts` once `@opentelemetry/api` is loaded. */
export interface CallTracer {
  trace<T>(method: string, route: string, run: (span: CallSpan) => Promise<T>): Promise<T>;
}

/**
 * Where `@opentelemetry/api` 1.x keeps what an application registered (`Symbol.for`, shared by
 * every copy of the API); `trace` is there once a tracer provider is registered.
 */
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let tracer: CallTracer | undefined;
let loading: Promise<CallTracer | undefined> | undefined;
/** Set when `@opentelemetry/api` could not be loaded: from then on calls run untraced at once. */
let unavailable = false;

/** What {@link traceCall} is: the transport is given it by the Node entry (its Platform). */
export type TraceCall = (method: string, route: string) => TracedCall | undefined;

/**
 * The span wrapper for a call of `method` on `route` (a path template such as
 * `/incidents/{incidentId}/events`), or `undefined` when nothing is listening.
 */
export function traceCall(method: string, route: string): TracedCall | undefined {
  const loaded = tracer;
  if (loaded) return (run) => loaded.trace(method, route, run);
  if (unavailable || (loading === undefined && !tracerProviderRegistered())) return undefined;
  // First traced call: load the OpenTelemetry side once; calls meanwhile wait for it.
  loading ??= Promise.all([import('@opentelemetry/api'), import('./otel.js')]).then(
    ([api, otel]) => {
      tracer = otel.createCallTracer(api);
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
