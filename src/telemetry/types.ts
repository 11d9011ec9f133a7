/**
 * The seam between the transport and OpenTelemetry: what the transport calls, per call. It
 * belongs to the core (the transport imports these types, and nothing else of telemetry/);
 * `call-span.ts` and `otel.ts` implement it, loaded only once a tracer provider is registered.
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

/** What `traceCall` is: the transport is given it by the Node entry (its Platform). */
export type TraceCall = (method: string, route: string) => TracedCall | undefined;
