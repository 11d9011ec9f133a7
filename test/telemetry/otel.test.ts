import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ClaimsClient, outcomeOf } from 'claims-notification-sdk';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { traceCall } from '../../src/telemetry/call-span.js';
import { WIRE_CHOICE, type WireChoice } from '../../src/wire/cold-start-wire.js';
import { event, incident } from '../helpers/fixtures.js';
import { json, useRecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'tok_otel_secret_0123456789';
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const appTracer = () => trace.getTracer('the-application');

const server = useRecordingServer();
const client = (
  extra: Partial<ConstructorParameters<typeof ClaimsClient>[0]> & { [WIRE_CHOICE]?: WireChoice } = {},
) => new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 2, ...extra });

const sdkSpans = (): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === 'claims-notification-sdk');
const onlySdkSpan = (): ReadableSpan => {
  const spans = sdkSpans();
  expect(spans).toHaveLength(1);
  return spans[0] as ReadableSpan;
};
const traceparentOf = (span: ReadableSpan) =>
  `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

describe('without a registered tracer provider', () => {
  it('traceCall is a no-op: the call runs untraced, nothing is loaded', () => {
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')]).toBeUndefined();
    expect(traceCall('POST', '/incidents')).toBeUndefined();
  });
});

describe('with a tracer provider registered', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  afterEach(() => exporter.reset());
  afterAll(() => {
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('one CLIENT span per call, named after the route, with the HTTP client attributes and the traceparent on the wire', async () => {
    server.handle((_r, res) => json(res, 201, { incidentId: 'INC-1' }));
    await appTracer().startActiveSpan('handle-form', async (parent) => {
      await client().incidents.create(incident);
      parent.end();
    });
    const span = onlySdkSpan();
    expect(span.name).toBe('POST /incidents');
    expect(span.kind).toBe(SpanKind.CLIENT);
    const port = Number(new URL(server.url).port);
    expect(span.attributes).toEqual({
      'http.request.method': 'POST',
      'url.template': '/incidents',
      'url.full': `${server.url}/incidents`,
      'server.address': '127.0.0.1',
      'server.port': port,
      'http.response.status_code': 201,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    const parent = exporter.getFinishedSpans().find((s) => s.name === 'handle-form');
    expect(span.parentSpanContext?.spanId).toBe(parent?.spanContext().spanId);
    expect(span.spanContext().traceId).toBe(parent?.spanContext().traceId);
    expect(server.requests[0]?.headers.traceparent).toBe(traceparentOf(span));
  });

  it('names a call with ids by its template, not the ids', async () => {
    server.handle((_r, res) => json(res, 201, {}));
    await client().events.create('INC-42', event);
    const span = onlySdkSpan();
    expect(span.name).toBe('POST /incidents/{incidentId}/events');
    expect(span.attributes['url.template']).toBe('/incidents/{incidentId}/events');
    expect(span.attributes['url.full']).toBe(`${server.url}/incidents/INC-42/events`);
  });

  it('a retried call: one span, one event per retry wait, resend_count, the last status', async () => {
    let n = 0;
    server.handle((_r, res) => {
      n++;
      if (n <= 2) json(res, 503, { message: 'busy' }, { 'retry-after': '0' });
      else json(res, 200, []);
    });
    await client().metadata.programmes();
    const span = onlySdkSpan();
    expect(span.name).toBe('GET /metadata/programmes');
    expect(span.attributes['http.request.resend_count']).toBe(2);
    expect(span.attributes['http.response.status_code']).toBe(200);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'claims.retry',
        { 'claims.retry.delay_ms': 0, 'claims.retry.reason': '503', 'http.request.resend_count': 1 },
      ],
      [
        'claims.retry',
        { 'claims.retry.delay_ms': 0, 'claims.retry.reason': '503', 'http.request.resend_count': 2 },
      ],
    ]);
    // every attempt carries the same call's traceparent
    expect(new Set(server.requests.map((r) => r.headers.traceparent))).toEqual(
      new Set([traceparentOf(span)]),
    );
  });

  it('a failed call: status ERROR, error.type the status code, claims.outcome from outcomeOf', async () => {
    server.handle((_r, res) => json(res, 500, { message: 'boom' }));
    const error = await client()
      .incidents.create(incident)
      .catch((e: unknown) => e);
    const span = onlySdkSpan();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'error.type': '500',
      'http.response.status_code': 500,
      'claims.outcome': 'unknown',
    });
    expect(span.attributes['claims.outcome']).toBe(outcomeOf(error));
  });

  it('no answer at all: error.type is the error class, no status code, outcome not_sent', async () => {
    const refused = new ClaimsClient({ baseUrl: 'http://127.0.0.1:1', accessToken: TOKEN, maxRetries: 0 });
    await expect(refused.incidents.create(incident)).rejects.toThrow();
    const span = onlySdkSpan();
    expect(span.attributes['error.type']).toBe('ClaimsConnectionError');
    expect(span.attributes['claims.outcome']).toBe('not_sent');
    expect(span.attributes['http.response.status_code']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('the token appears in no span: name, attributes, events, status (401 with a provider, echoed token)', async () => {
    const tokens = [TOKEN, `${TOKEN}-2`];
    let asked = 0;
    server.handle((req, res) => {
      const auth = String(req.headers.authorization);
      if (auth === `Bearer ${tokens[1]}`) json(res, 200, []);
      else json(res, 401, { message: `token ${auth} expired` }, { 'www-authenticate': auth });
    });
    const withProvider = client({ accessToken: () => tokens[Math.min(asked++, 1)] as string });
    await withProvider.metadata.programmes();
    server.handle((req, res) => json(res, 500, { message: `bad ${String(req.headers.authorization)}` }));
    await expect(withProvider.incidents.create(incident)).rejects.toThrow();
    const spans = sdkSpans();
    expect(spans).toHaveLength(2);
    expect(spans[0]?.events.map((e) => e.attributes?.['claims.retry.reason'])).toEqual(['401']);
    const text = JSON.stringify(
      spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
    );
    for (const token of tokens) expect(text).not.toContain(token);
    // The status says the error's class, not its message (which held the server's words).
    expect(spans[1]?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'InternalServerError' });
  });

  it('the fetch wire is traced the same way, traceparent included', async () => {
    server.handle((_r, res) => json(res, 200, []));
    await client({ fetch: globalThis.fetch }).metadata.programmes();
    const span = onlySdkSpan();
    expect(span.attributes['http.response.status_code']).toBe(200);
    expect(server.requests[0]?.headers.traceparent).toBe(traceparentOf(span));
  });

  describe("with undici's own instrumentation active", () => {
    // Constructed here, not at collection: an instrumentation enables itself when constructed.
    let instrumentation: UndiciInstrumentation | undefined;
    beforeAll(() => {
      instrumentation = new UndiciInstrumentation();
      instrumentation.setTracerProvider(provider);
    });
    afterAll(() => instrumentation?.disable());

    it('a plain undici request gets its CLIENT span (the instrumentation works here)', async () => {
      server.handle((_r, res) => json(res, 200, {}));
      const res = await request(`${server.url}/plain`);
      await res.body.dump();
      const undiciSpans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
      expect(undiciSpans).toHaveLength(1);
      expect(undiciSpans[0]?.instrumentationScope.name).toContain('undici');
    });

    it('an SDK call makes exactly one CLIENT span and sends one traceparent, its own (every wire)', async () => {
      const wires = [{ [WIRE_CHOICE]: 'undici' as const }, { [WIRE_CHOICE]: 'http' as const }, { fetch }];
      for (const wire of wires) {
        exporter.reset();
        server.requests.length = 0;
        server.handle((_r, res) => json(res, 201, { incidentId: 'INC-2' }));
        await client(wire).incidents.create(incident);
        const clientSpans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
        expect(clientSpans.map((s) => s.instrumentationScope.name)).toEqual(['claims-notification-sdk']);
        expect(server.requests[0]?.headers.traceparent).toBe(traceparentOf(clientSpans[0] as ReadableSpan));
      }
    });
  });
});
