import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createWebMiddleware } from '../../src/webhooks/index.js';
import { closeServer, send } from './http-send.js';
import {
  delivery,
  HEADER,
  type Received,
  receiverContract,
  SECRET,
  type SentRequest,
} from './receiver-contract.js';

/** A Web Request as a fetch-shaped runtime hands it over; chunked: a stream with no length. */
function webRequest(url: string, sent: SentRequest): Request {
  const body = sent.body ?? '';
  const init: RequestInit & { duplex?: 'half' } = { method: sent.method ?? 'POST', headers: sent.headers };
  if (init.method === 'GET' || init.method === 'HEAD') return new Request(url, init);
  if (!sent.chunked) return new Request(url, { ...init, body });
  const bytes = new TextEncoder().encode(body);
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 16 * 1024));
      at += 16 * 1024;
    },
  });
  return new Request(url, { ...init, body: stream, duplex: 'half' } as RequestInit);
}

async function received(response: Response): Promise<Received> {
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}

receiverContract(
  'a Web Request handler (Next.js route handlers, workerd, Deno, Bun)',
  async (options, onDelivery) => {
    const handle = createWebMiddleware(options, onDelivery);
    return {
      send: async (r) => received(await handle(webRequest('http://receiver.test/hooks', r))),
      close: async () => {},
    };
  },
);

receiverContract(
  'Hono, through app.request',
  async (options, onDelivery) => {
    const handle = createWebMiddleware(options, onDelivery);
    const app = new Hono();
    app.post('/hooks/claims', (c) => handle(c.req.raw));
    return {
      send: async (r) => received(await app.request(webRequest('http://receiver.test/hooks/claims', r))),
      close: async () => {},
    };
  },
  { routed: true },
);

receiverContract(
  'Hono on its Node server (@hono/node-server)',
  async (options, onDelivery) => {
    const handle = createWebMiddleware(options, onDelivery);
    const app = new Hono();
    app.post('/hooks/claims', (c) => handle(c.req.raw));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    return {
      send: (r) => send(port, '/hooks/claims', r),
      close: () => closeServer(server as unknown as import('node:http').Server),
    };
  },
  { routed: true },
);

describe('createWebMiddleware after something read the body', () => {
  it('a Hono middleware that parsed the JSON first: 500, saying so', async () => {
    const errors: unknown[] = [];
    const handle = createWebMiddleware(
      { headerName: HEADER, headerValue: SECRET, onError: (e) => void errors.push(e) },
      () => {},
    );
    const app = new Hono();
    app.post('/hooks', async (c) => {
      await c.req.raw.clone().text(); // a clone leaves the original readable: fine
      return handle(c.req.raw);
    });
    app.post('/parsed', async (c) => {
      await c.req.raw.json();
      return handle(c.req.raw);
    });
    const init = { method: 'POST', headers: { [HEADER]: SECRET }, body: delivery() };
    expect((await app.request('http://x/hooks', init)).status).toBe(200);
    const res = await app.request('http://x/parsed', init);
    expect(res.status).toBe(500);
    expect((await res.json()).error).toMatch(/already read \(Request\.bodyUsed is true\)/);
    expect(errors).toHaveLength(1);
  });

  it('a request other than POST: 405 with Allow: POST', async () => {
    const handle = createWebMiddleware({ headerName: HEADER, headerValue: SECRET }, () => {});
    const res = await handle(new Request('http://x/hooks', { headers: { [HEADER]: SECRET } }));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('a stream that fails mid-body (the sender went away): 400, cut off', async () => {
    let calls = 0;
    const handle = createWebMiddleware({ headerName: HEADER, headerValue: SECRET }, () => void calls++);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"a":'));
        controller.error(new Error('socket hang up'));
      },
    });
    const init = { method: 'POST', headers: { [HEADER]: SECRET }, body: stream, duplex: 'half' };
    const res = await handle(new Request('http://x/hooks', init as RequestInit));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/cut off/);
    expect(calls).toBe(0);
  });
});

describe('createWebMiddleware reading the stream', () => {
  it('a POST with no body: 400, the body is empty', async () => {
    const handle = createWebMiddleware({ headerName: HEADER, headerValue: SECRET }, () => {});
    const res = await handle(
      new Request('http://x/hooks', { method: 'POST', headers: { [HEADER]: SECRET } }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Webhook body is empty' });
  });

  it('a stream over the cap is cancelled: nothing more of it is read', async () => {
    let pulls = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(1024).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const handle = createWebMiddleware(
      { headerName: HEADER, headerValue: SECRET, maxBodyBytes: 4096 },
      () => {},
    );
    const init = { method: 'POST', headers: { [HEADER]: SECRET }, body: stream, duplex: 'half' };
    const res = await handle(new Request('http://x/hooks', init as RequestInit));
    expect(res.status).toBe(413);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cancelled).toBe(true);
    expect(pulls).toBeLessThan(10);
  });
});
