import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLambdaHandler, type LambdaHttpEvent } from '../../src/webhooks/index.js';
import {
  delivery,
  HEADER,
  type Received,
  receiverContract,
  SECRET,
  type SentRequest,
} from './receiver-contract.js';

type Shape = 'apiGatewayV1' | 'apiGatewayV2' | 'functionUrl' | 'alb';
const recorded = JSON.parse(
  readFileSync(new URL('./fixtures/lambda-events.json', import.meta.url), 'utf8'),
) as Record<Shape, LambdaHttpEvent & Record<string, unknown>>;

/** The recorded event of `shape`, carrying one delivery the way that integration passes it. */
function eventOf(shape: Shape, sent: SentRequest, base64: boolean): LambdaHttpEvent {
  const event = structuredClone(recorded[shape]) as LambdaHttpEvent & Record<string, unknown>;
  const method = sent.method ?? 'POST';
  const body = sent.body ?? '';
  const headers: Record<string, string> = {
    ...sent.headers,
    'content-length': String(Buffer.byteLength(body)),
  };
  if (shape === 'apiGatewayV1') {
    // REST APIs keep the sender's header case, and list every copy in multiValueHeaders.
    event.httpMethod = method;
    event.headers = { ...event.headers, ...headers };
    event.multiValueHeaders = {
      ...event.multiValueHeaders,
      ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    };
  } else if (shape === 'alb') {
    event.httpMethod = method;
    event.headers = { ...event.headers, ...lowerCase(headers) };
  } else {
    (event.requestContext as { http: { method: string } }).http.method = method;
    event.headers = { ...event.headers, ...lowerCase(headers) };
  }
  event.body = base64 ? Buffer.from(body).toString('base64') : body;
  event.isBase64Encoded = base64;
  return event;
}

const lowerCase = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

for (const [shape, base64] of [
  ['apiGatewayV1', false],
  ['apiGatewayV1', true],
  ['apiGatewayV2', false],
  ['functionUrl', true],
  ['alb', false],
] as Array<[Shape, boolean]>) {
  receiverContract(
    `AWS Lambda, ${shape} event${base64 ? ', base64 body' : ''}`,
    async (options, onDelivery) => {
      const handler = createLambdaHandler(options, onDelivery);
      return {
        send: async (r): Promise<Received> => {
          const result = await handler(eventOf(shape, r, base64));
          return { status: result.statusCode, headers: result.headers, body: result.body };
        },
        close: async () => {},
      };
    },
    { chunked: false },
  );
}

describe('createLambdaHandler: what only events have', () => {
  const options = { headerName: HEADER, headerValue: SECRET, onError: () => {} };

  it('a REST API event whose secret header came twice with different values: 401', async () => {
    const handler = createLambdaHandler(options, () => {});
    const event = eventOf('apiGatewayV1', { headers: { [HEADER]: SECRET }, body: delivery() }, false);
    event.multiValueHeaders = { ...event.multiValueHeaders, [HEADER]: [SECRET, 'other'] };
    expect((await handler(event)).statusCode).toBe(401);
    event.multiValueHeaders = { ...event.multiValueHeaders, [HEADER]: [SECRET, SECRET] };
    expect((await handler(event)).statusCode).toBe(200);
  });

  it('a base64 body over the cap is refused before decoding; bad base64 is a 400', async () => {
    const handler = createLambdaHandler({ ...options, maxBodyBytes: 100 }, () => {});
    const event = eventOf('functionUrl', { headers: { [HEADER]: SECRET }, body: delivery() }, true);
    delete (event.headers as Record<string, string>)['content-length'];
    event.body = 'A'.repeat(1_000_000);
    const big = await handler(event);
    expect(big.statusCode).toBe(413);
    event.body = '%%%not base64%%%';
    const bad = await handler(event);
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).error).toMatch(/base64/);
  });

  it('a base64 body of non-ASCII JSON decodes byte for byte', async () => {
    const seen: unknown[] = [];
    const handler = createLambdaHandler(options, (p) => void seen.push(p));
    const body = JSON.stringify({ detail: 'Schaden am Gebäude — 東京 🏠' });
    const event = eventOf('functionUrl', { headers: { [HEADER]: SECRET }, body }, true);
    expect((await handler(event)).statusCode).toBe(200);
    expect(seen).toEqual([JSON.parse(body)]);
  });

  it('an event with no body, or no headers at all: 400 and 401, never a throw', async () => {
    const handler = createLambdaHandler(options, () => {});
    const noBody = eventOf('apiGatewayV2', { headers: { [HEADER]: SECRET } }, false);
    noBody.body = null;
    delete (noBody.headers as Record<string, string>)['content-length'];
    expect((await handler(noBody)).statusCode).toBe(400);
    const bare = { httpMethod: 'POST', headers: null, multiValueHeaders: null, body: delivery() };
    expect((await handler(bare)).statusCode).toBe(401);
    expect((await handler({ requestContext: { http: { method: 'GET' } } })).statusCode).toBe(405);
  });
});
