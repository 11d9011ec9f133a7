/**
 * A TLS handshake that never completes (a TCP server that accepts and then says nothing): the
 * connect timeout (10 s, undici's default, which the node:http wire copies) ends the attempt
 * with a `ClaimsTimeoutError` whose outcome is `not_sent` (nothing was written), whatever
 * `timeoutMs` says. Slow by nature (10 s per wire), so the two wires run side by side. The fetch
 * wire is left out: its own `timeoutMs` timer covers connecting too.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ClaimsTimeoutError, outcomeOf } from '../../src/index.js';
import { incident } from '../helpers/fixtures.js';
import { failure, makeClient, WIRES } from './fault-server.js';

async function silentServer(): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    accepted: () => accepted,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe.concurrent.each(WIRES.filter((w) => w.name !== 'fetch wire'))('$name', ({ options: wire }) => {
  it('a TLS handshake that never ends: ClaimsTimeoutError after the 10 s connect timeout, not_sent', async () => {
    const server = await silentServer();
    try {
      const client = makeClient(`https://127.0.0.1:${server.port}`, { ...wire, maxRetries: 0 });
      const { error, ms } = await failure(() => client.incidents.create(incident));
      expect(error).toBeInstanceOf(ClaimsTimeoutError);
      expect((error as Error).message).toMatch(/connect timeout/i);
      expect(outcomeOf(error)).toBe('not_sent');
      expect(server.accepted()).toBe(1);
      expect(ms).toBeGreaterThanOrEqual(9_900);
      expect(ms).toBeLessThan(12_500);
      await client.close();
    } finally {
      await server.close();
    }
  }, 20_000);
});
