/**
 * The stale socket rule on the `node:http` wire, the default one (stale-sockets.test.ts runs
 * the same on the undici wire): after an idle gap longer than min(4 s, the server's keep-alive
 * less 1 s) the next request goes out on a fresh connection, while a busy client keeps reusing
 * its connection. The server runs in a worker thread, so it keeps running while this thread is
 * frozen.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaimsClient, type ClaimsClientOptions } from '../../src/index.js';
import { WIRE_CHOICE } from '../../src/wire/cold-start-wire.js';
import { incident } from '../helpers/fixtures.js';

interface Counting {
  url: string;
  stats(): Promise<{ posts: number; connections: number }>;
  stop(): Promise<void>;
}

/**
 * A server that announces `keep-alive: timeout=<keepAliveS>` and, when `closeAfterMs` is
 * given, closes each socket (FIN) that long after an answer, as a load balancer may.
 */
async function countingServer(keepAliveS: number, closeAfterMs?: number): Promise<Counting> {
  const worker = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    const http = require('node:http');
    let posts = 0;
    let connections = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        posts++;
        res.writeHead(201, { 'content-type': 'application/json', 'keep-alive': 'timeout=${keepAliveS}' });
        res.end(JSON.stringify({ incidentId: 'INC-' + posts }));
        const closeAfterMs = ${JSON.stringify(closeAfterMs ?? null)};
        if (closeAfterMs !== null) res.on('finish', () => setTimeout(() => req.socket.end(), closeAfterMs));
      });
    });
    server.on('connection', () => connections++);
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
    parentPort.on('message', () => parentPort.postMessage({ posts, connections }));
    `,
    { eval: true },
  );
  const next = (): Promise<Record<string, number>> =>
    new Promise((resolve) => worker.once('message', resolve));
  const { port } = await next();
  return {
    url: `http://127.0.0.1:${port}`,
    async stats() {
      worker.postMessage('stats');
      const { posts = 0, connections = 0 } = await next();
      return { posts, connections };
    },
    async stop() {
      await worker.terminate();
    },
  };
}

/** Lets the socket go back to the pool, then blocks this thread, as a frozen function is. */
async function freeze(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setUp(keepAliveS: number, closeAfterMs?: number): Promise<[Counting, ClaimsClient]> {
  const server = await countingServer(keepAliveS, closeAfterMs);
  const options = { baseUrl: server.url, accessToken: 'tok', maxRetries: 0, [WIRE_CHOICE]: 'http' as const };
  const client = new ClaimsClient(options as ClaimsClientOptions);
  cleanups.push(
    () => client.close(),
    () => server.stop(),
  );
  return [server, client];
}

describe('the node:http wire', () => {
  it('after a freeze longer than the server’s keep-alive less 1 s, the POST goes out on a fresh connection, once', async () => {
    const [server, client] = await setUp(3, 200);
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-1' });
    await freeze(2_300);
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-2' });
    expect(await server.stats()).toEqual({ posts: 2, connections: 2 });
  });

  it('after a freeze longer than 4 s (the server announcing more), a fresh connection', async () => {
    const [server, client] = await setUp(60);
    await client.incidents.create(incident);
    await freeze(4_300);
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-2' });
    expect(await server.stats()).toEqual({ posts: 2, connections: 2 });
  });

  it('a busy client keeps its connection: ten quick calls, one connection', async () => {
    const [server, client] = await setUp(60);
    for (let i = 1; i <= 10; i++) {
      await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: `INC-${i}` });
    }
    expect(await server.stats()).toEqual({ posts: 10, connections: 1 });
  });

  it('a gap shorter than the limit reuses the connection', async () => {
    const [server, client] = await setUp(60);
    await client.incidents.create(incident);
    await freeze(1_000);
    await client.incidents.create(incident);
    expect(await server.stats()).toEqual({ posts: 2, connections: 1 });
  });
});
