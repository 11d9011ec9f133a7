/**
 * CLIENT spans per call with the HTTP client semantic conventions. Loaded only by
 * `call-span.ts`, once an application has registered a tracer provider; it hands over the
 * `@opentelemetry/api` module it loaded, so that this file imports it for types only (a
 * bundle of the SDK then never holds a static import of the optional peer).
 */
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Span } from '@opentelemetry/api';
import { ClaimsApiError } from '../errors.js';
import { redactUrl } from '../internal/describe.js';
import { outcomeOf } from '../outcome.js';
import type { Wire } from '../wire/types.js';
import type { CallSpan, CallTracer } from './types.js';

/**
 * `suppressTracing()` of `@opentelemetry/core`, without depending on it: the key is a
 * `Symbol.for` of this description, and the SDK's tracers and the W3C propagator honour it.
 * Under it undici's instrumentation makes no span of its own and adds no second `traceparent`.
 */
const SUPPRESS_TRACING = Symbol.for('OpenTelemetry SDK Context Key SUPPRESS_TRACING');
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * @param version the SDK's, for the tracer: given by the caller rather than imported, so that
 *   this lazily loaded file shares no module with the main entry but the error tree (each module
 *   shared one way more is one more file for a fresh process to load).
 */
export function createCallTracer(api: typeof OtelApi, version: string): CallTracer {
  const { context, SpanKind, trace } = api;
  const tracer = trace.getTracer('claims-notification-sdk', version);
  return {
    trace(method, route, run) {
      const span = tracer.startSpan(`${method} ${route}`, {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': method, 'url.template': route },
      });
      const active = trace.setSpan(context.active(), span);
      const call = new OtelCallSpan(api, span, active);
      return context
        .with(active, () => run(call))
        .then(
          (value) => {
            call.end(undefined);
            return value;
          },
          (error: unknown) => {
            call.end(error);
            throw error;
          },
        );
    },
  };
}

class OtelCallSpan implements CallSpan {
  #attempts = 0;
  #status: number | undefined;

  constructor(
    private readonly api: typeof OtelApi,
    private readonly span: Span,
    private readonly active: Context,
  ) {}

  wire(wire: Wire): Wire {
    return (req) => {
      const resend = this.#attempts++;
      if (resend === 0) this.span.setAttributes(urlAttributes(req.url));
      else this.span.setAttribute('http.request.resend_count', resend);
      this.#status = undefined;
      // A copy: the transport's header sets are shared between calls.
      const headers = { ...req.headers };
      this.api.propagation.inject(this.active, headers);
      return this.api.context
        .with(this.active.setValue(SUPPRESS_TRACING, true), () => wire({ ...req, headers }))
        .then((response) => {
          this.#status = response.status;
          return response;
        });
    };
  }

  retry(delayMs: number, reason: string): void {
    this.span.addEvent('claims.retry', {
      'claims.retry.delay_ms': Math.round(delayMs),
      'claims.retry.reason': reason,
      'http.request.resend_count': this.#attempts,
    });
  }

  end(error: unknown): void {
    const span = this.span;
    if (this.#status !== undefined) span.setAttribute('http.response.status_code', this.#status);
    if (error !== undefined) {
      span.setAttribute('error.type', errorType(error));
      const outcome = outcomeOf(error);
      if (outcome !== undefined) span.setAttribute('claims.outcome', outcome);
      // The error's class, never its message: a message may hold a server's words, which may
      // echo the claim (names, dates of birth), and spans go to stores no one vetted for that.
      span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: errorClass(error) });
    }
    span.end();
  }
}

function urlAttributes(full: string): Attributes {
  const url = new URL(full);
  return {
    // Credentials in the query (a gateway's subscription-key, a signature) redacted, as the
    // HTTP semantic conventions ask.
    'url.full': redactUrl(full, 'REDACTED'),
    'server.address': url.hostname.replace(/^\[|\]$/g, ''),
    'server.port': url.port ? Number(url.port) : (DEFAULT_PORTS[url.protocol] ?? 0),
  };
}

/** The status code for an HTTP error answer (semantic conventions), else the error's class name. */
function errorType(error: unknown): string {
  if (error instanceof ClaimsApiError) return String(error.status);
  return errorClass(error);
}

/** The error's class name (`NotFoundError`, `ClaimsTimeoutError`, `AbortError`), or `_OTHER`. */
function errorClass(error: unknown): string {
  return error instanceof Error ? error.name : '_OTHER';
}
