import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { fastifyWebhooks } from '../../src/webhooks/index.js';
import { send } from './http-send.js';
import { delivery, HEADER, receiverContract, SECRET } from './receiver-contract.js';

receiverContract(
  'Fastify',
  async (options, onDelivery) => {
    const app = Fastify();
    await app.register(fastifyWebhooks, { path: '/hooks/claims', ...options, onDelivery });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    return { send: (r) => send(port, '/hooks/claims', r), close: () => app.close() };
  },
  { routed: true },
);

describe('fastifyWebhooks in an app', () => {
  it("the rest of the app keeps Fastify's JSON parser; the plugin's route reads the raw body", async () => {
    const app = Fastify();
    const seen: unknown[] = [];
    await app.register(fastifyWebhooks, {
      path: '/hooks',
      headerName: HEADER,
      headerValue: SECRET,
      onDelivery: (payload) => void seen.push(payload),
    });
    app.post('/other', async (request) => ({ parsed: request.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    try {
      const headers = { [HEADER]: SECRET, 'content-type': 'application/json' };
      const other = await send(port, '/other', { headers, body: '{"a":1}' });
      expect(JSON.parse(other.body)).toEqual({ parsed: { a: 1 } });
      expect((await send(port, '/hooks', { headers, body: delivery() })).status).toBe(200);
      // No Content-Type at all, or another one: still read raw.
      expect((await send(port, '/hooks', { headers: { [HEADER]: SECRET }, body: delivery() })).status).toBe(
        200,
      );
      const text = { [HEADER]: SECRET, 'content-type': 'text/plain' };
      expect((await send(port, '/hooks', { headers: text, body: delivery() })).status).toBe(200);
      expect(seen).toHaveLength(3);
    } finally {
      await app.close();
    }
  });

  it('registered with options that could accept every request: the app fails to start', async () => {
    const app = Fastify();
    app.register(fastifyWebhooks, {
      path: '/hooks',
      headerName: HEADER,
      headerValue: ' ',
      onDelivery: () => {},
    });
    await expect(app.ready()).rejects.toThrow(/headerValue/);
    await app.close();
  });
});
