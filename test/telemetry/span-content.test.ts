/**
 * Spans carry the status, the error class and the outcome, never text from bodies or from the
 * server's messages (#27.10): a server's error text that echoes a claim (a name, a date of
 * birth) reaches no span, on any wire; credentials in the query of `url.full` are redacted.
 * A real in-memory exporter, as an application would register one.
 */
import * as api from '@opentelemetry/api';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ClaimsClient, outcomeOf } from 'claims-notification-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCallTracer } from '../../src/telemetry/otel.js';
import { VERSION } from '../../src/version.js';
import { WIRE_CHOICE, type WireChoice } from '../../src/wire/cold-start-wire.js';
import { incident } from '../helpers/fixtures.js';
import { json, useRecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'tok_span_content_0123456789';
/** What a claims server echoes of a claim in its error text, and must reach no span. */
const CLAIM_TEXT = 'Jane Q. Claimant, born 1970-01-31, policy HX-99182';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const server = useRecordingServer();
const WIRES: Array<{ name: string; options: Record<string, unknown> }> = [
  { name: 'undici', options: { [WIRE_CHOICE]: 'undici' as WireChoice } },
  { name: 'node:http', options: { [WIRE_CHOICE]: 'http' as WireChoice } },
  { name: 'fetch', options: { fetch: globalThis.fetch } },
];

const sdkSpans = (): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === 'claims-notification-sdk');
const everything = (spans: ReadableSpan[]) =>
  JSON.stringify(
    spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
  );

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

describe.each(WIRES)('$name wire', ({ options }) => {
  const client = () =>
    new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 1, ...options });

  it.each([
    [422, 'UnprocessableEntityError', '422', 'rejected'],
    [500, 'InternalServerError', '500', 'unknown'],
  ])(
    'a %i answer whose text echoes the claim: status, class and outcome only',
    async (status, name, type, outcome) => {
      server.handle((_r, res) =>
        json(
          res,
          status,
          { message: `Rejected: ${CLAIM_TEXT}`, errors: [{ detail: CLAIM_TEXT }] },
          { 'retry-after': '0' },
        ),
      );
      const error = await client()
        .incidents.create(incident, { checkExtendedFields: false })
        .catch((e: unknown) => e);
      expect((error as Error).message).toContain(CLAIM_TEXT); // the caller still reads it…
      const [span, ...others] = sdkSpans();
      expect(others).toEqual([]);
      expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: name });
      expect(span?.attributes).toMatchObject({
        'http.response.status_code': status,
        'error.type': type,
        'claims.outcome': outcome,
      });
      expect(span?.attributes['claims.outcome']).toBe(outcomeOf(error));
      const text = everything(sdkSpans());
      for (const part of ['Jane', '1970-01-31', 'HX-99182', 'Rejected']) expect(text).not.toContain(part); // …no span does
    },
  );

  it('a 2xx answer that is not what the spec promises: the class, not the body', async () => {
    server.handle((_r, res) => json(res, 201, { note: CLAIM_TEXT }));
    const error = await client()
      .incidents.create(incident, { checkExtendedFields: false })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('ClaimsResponseValidationError');
    const [span] = sdkSpans();
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'ClaimsResponseValidationError' });
    expect(span?.attributes['error.type']).toBe('ClaimsResponseValidationError');
    expect(span?.attributes['claims.outcome']).toBe('processed');
    expect(everything(sdkSpans())).not.toContain('Jane');
  });

  it('credentials in the query of url.full are redacted, the rest kept', async () => {
    server.handle((_r, res) => json(res, 200, {}));
    await client().metadata.programmes({ 'subscription-key': 'k-123', sig: 's-456', region: 'eu' });
    expect(server.requests[0]?.query).toEqual({ 'subscription-key': 'k-123', sig: 's-456', region: 'eu' });
    const [span] = sdkSpans();
    expect(span?.attributes['url.full']).toBe(
      `${server.url}/metadata/programmes?subscription-key=REDACTED&sig=REDACTED&region=eu`,
    );
    expect(everything(sdkSpans())).not.toMatch(/k-123|s-456/);
  });
});

it('a run that rejects with something not an Error ends its span with _OTHER', async () => {
  const tracer = createCallTracer(api, VERSION);
  await expect(
    tracer.trace('GET', '/x', async () => {
      throw 'not an error';
    }),
  ).rejects.toBe('not an error');
  const [span] = sdkSpans();
  expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: '_OTHER' });
  expect(span?.attributes['error.type']).toBe('_OTHER');
});
