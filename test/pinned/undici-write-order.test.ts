/**
 * What src/wire/write-watch.ts relies on in undici's HTTP/1.1 write path, pinned so an undici
 * upgrade that changes it fails here rather than making the SDK claim 'not_sent' wrongly:
 *
 * - `undici:request:create` is published inside the `request()` call, before it returns;
 * - `undici:client:sendHeaders` comes before any byte of the request reaches the socket;
 * - for a string body (or none), `undici:request:bodySent` comes in the same synchronous run,
 *   after the whole request was handed to the socket in one go.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('ok'));
});
let origin = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it.each([
  ['a string body', 'POST', '{"claim":1}'],
  ['no body', 'GET', undefined],
] as const)(
  '%s: create inside request(), sendHeaders before any byte, bodySent in the same run after all of them',
  async (_, method, body) => {
    const agent = new Agent();
    const events: string[] = [];
    let socket: Socket | undefined;
    let writtenAtHeaders = -1;
    let sameRun = false;
    const onCreate = (): void => {
      events.push('create');
    };
    const onHeaders = (message: unknown): void => {
      events.push('sendHeaders');
      socket = (message as { socket: Socket }).socket;
      writtenAtHeaders = socket.bytesWritten;
      sameRun = true;
      queueMicrotask(() => {
        sameRun = false;
      });
    };
    let writtenAtSent = -1;
    let sentInSameRun = false;
    const onSent = (): void => {
      events.push('bodySent');
      writtenAtSent = socket?.bytesWritten ?? -1;
      sentInSameRun = sameRun;
    };
    subscribe('undici:request:create', onCreate);
    subscribe('undici:client:sendHeaders', onHeaders);
    subscribe('undici:request:bodySent', onSent);
    try {
      // A first request opens the connection, so the second is on a kept-alive socket.
      await (await agent.request({ origin, path: '/', method: 'GET' })).body.text();
      events.length = 0;
      const pending = agent.request({ origin, path: '/claims', method, body });
      expect(events).toEqual(['create']);
      const res = await pending;
      await res.body.text();
      expect(events).toEqual(['create', 'sendHeaders', 'bodySent']);
      expect(sentInSameRun).toBe(true);
      // Nothing of this request was written at sendHeaders; all of it was at bodySent.
      const head = `${method} /claims HTTP/1.1\r\n`;
      expect(writtenAtSent - writtenAtHeaders).toBeGreaterThan(head.length + (body?.length ?? 0));
    } finally {
      unsubscribe('undici:request:create', onCreate);
      unsubscribe('undici:client:sendHeaders', onHeaders);
      unsubscribe('undici:request:bodySent', onSent);
      await agent.close();
    }
  },
);
