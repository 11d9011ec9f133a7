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

describe('createLambdaHandler: events with parts missing or lying', () => {
  const options = { headerName: HEADER, headerValue: SECRET };

  it('no event, no method, no body at all: 405, 405, and 400 "empty"', async () => {
    const handler = createLambdaHandler(options, () => {});
    expect((await handler(undefined as never)).statusCode).toBe(405);
    expect((await handler({ headers: { [HEADER]: SECRET }, body: delivery() })).statusCode).toBe(405);
    for (const body of [undefined, null]) {
      const res = await handler({ httpMethod: 'POST', headers: { [HEADER]: SECRET }, body });
      expect(res.statusCode).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ error: 'Webhook body is empty' });
    }
  });

  it('a Content-Length over the cap is refused by itself, whatever the body', async () => {
    let calls = 0;
    const handler = createLambdaHandler({ ...options, maxBodyBytes: 1000 }, () => void calls++);
    const res = await handler({
      httpMethod: 'POST',
      headers: { [HEADER]: SECRET, 'content-length': '1001' },
      body: delivery(),
    });
    expect(res.statusCode).toBe(413);
    expect(calls).toBe(0);
  });

  it('a base64 body is decoded while its length could still hold maxBodyBytes, refused past that', async () => {
    const handler = createLambdaHandler({ ...options, maxBodyBytes: 100 }, () => {});
    const event = (body: string) => ({
      httpMethod: 'POST',
      headers: { [HEADER]: SECRET },
      body,
      isBase64Encoded: true,
    });
    // 100 bytes take at most 136 base64 characters; up to 140 are decoded (here: not base64, so 400).
    expect((await handler(event('%'.repeat(140)))).statusCode).toBe(400);
    expect((await handler(event('%'.repeat(141)))).statusCode).toBe(413);
    const exact = Buffer.from(`{"pad":"${'x'.repeat(90)}"}`).toString('base64');
    expect((await handler(event(exact))).statusCode).toBe(200);
  });

  it('headers without a value are left out of the handler’s headers', async () => {
    const seen: Headers[] = [];
    const handler = createLambdaHandler(options, (_p, { headers }) => void seen.push(headers));
    await handler({
      httpMethod: 'POST',
      headers: { [HEADER]: SECRET, 'x-gone': undefined, 'x-kept': 'v' },
      body: '{}',
    });
    expect(seen[0]?.has('x-gone')).toBe(false);
    expect(seen[0]?.get('x-kept')).toBe('v');
  });
});
