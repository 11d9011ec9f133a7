/**
 * Stale keep-alive sockets after a freeze (a serverless function between invocations), on the
 * undici wire (http-stale-sockets.test.ts: the node:http wire): the server closes idle sockets
 * (FIN or RST) while the client's event loop cannot run, so the client never sees it. The next
 * POST must go out on a fresh connection: reach the server once, succeed, never be duplicated.
 * The server runs in a worker thread, so it keeps running while the test's own thread is frozen.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { WIRE_CHOICE } from '../../src/wire/cold-start-wire.js';
import { incident } from '../helpers/fixtures.js';

// undici's side (OwnDispatcher) from the first call: a default client would send these few
// calls over node:http, whose own stale socket rule http-stale-sockets.test.ts checks.
const ON_UNDICI = { [WIRE_CHOICE]: 'undici' as const };

interface Closer {
  url: string;
  /** POSTs received and TCP connections accepted so far. */
  stats(): Promise<{ posts: number; connections: number }>;
  stop(): Promise<void>;
}

/**
 * A server that announces a long keep-alive (`timeout=3`, as servers behind a load balancer
 * do) yet closes every socket `closeAfterMs` after each answer: with a FIN, or with an RST.
 */
async function closingServer(mode: 'fin' | 'rst', closeAfterMs: number): Promise<Closer> {
  const worker = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    const http = require('node:http');
    let posts = 0;
    let connections = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.method === 'POST') posts++;
        res.writeHead(201, { 'content-type': 'application/json', 'keep-alive': 'timeout=3' });
        res.end(JSON.stringify({ incidentId: 'INC-' + posts }));
        res.on('finish', () => {
          const socket = req.socket;
          setTimeout(() => {
            if (${JSON.stringify(mode)} === 'rst') socket.resetAndDestroy();
            else socket.end();
          }, ${closeAfterMs});
        });
      });
    });
    server.on('connection', () => connections++);
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
    parentPort.on('message', (m) => {
      if (m === 'stats') parentPort.postMessage({ posts, connections });
    });
    `,
    { eval: true },
  );
  return workerCloser(worker);
}

async function workerCloser(worker: Worker): Promise<Closer> {
  const next = (): Promise<Record<string, number>> =>
    new Promise((resolve) => worker.once('message', resolve));
  const { port } = await next();
  return {
    url: `http://127.0.0.1:${port}`,
    async stats() {
      worker.postMessage('stats');
      const { posts, connections } = await next();
      return { posts: posts as number, connections: connections as number };
    },
    async stop() {
      await worker.terminate();
    },
  };
}

/**
 * A load balancer in front of a server that forgets idle connections silently (no FIN, no RST:
 * a NAT or balancer whose flow table dropped them): a request written on a connection idle for
 * more than `forgetAfterMs` is answered with an RST and never reaches the server.
 */
async function forgetfulBalancer(forgetAfterMs: number): Promise<Closer> {
  const worker = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    const http = require('node:http');
    const net = require('node:net');
    let posts = 0;
    let connections = 0;
    const app = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.method === 'POST') posts++;
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ incidentId: 'INC-' + posts }));
      });
    });
    app.keepAliveTimeout = 60000;
    const balancer = net.createServer((client) => {
      connections++;
      let last = Date.now();
      const upstream = net.connect(app.address().port, '127.0.0.1');
      client.on('data', (chunk) => {
        if (Date.now() - last > ${forgetAfterMs}) {
          upstream.destroy();
          client.resetAndDestroy();
          return;
        }
        last = Date.now();
        upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        last = Date.now();
        client.write(chunk);
      });
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    app.listen(0, '127.0.0.1', () =>
      balancer.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: balancer.address().port })),
    );
    parentPort.on('message', (m) => {
      if (m === 'stats') parentPort.postMessage({ posts, connections });
    });
    `,
    { eval: true },
  );
  return workerCloser(worker);
}

/**
 * Lets undici put the socket back in its pool (it needs a few ticks after an answer), then
 * blocks this thread, as a frozen function is: no timer, no socket event runs meanwhile.
 */
async function freeze(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const servers: Closer[] = [];
const clients: ClaimsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function setUp(mode: 'fin' | 'rst'): Promise<{ server: Closer; client: ClaimsClient }> {
  const server = await closingServer(mode, 200);
  servers.push(server);
  const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', maxRetries: 0, ...ON_UNDICI });
  clients.push(client);
  return { server, client };
}

describe.each(['fin', 'rst'] as const)('the server closes idle sockets with %s', (mode) => {
  it('while the client is frozen: the next POST goes out on a fresh connection, once', async () => {
    const { server, client } = await setUp(mode);
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-1' });
    // Longer than the server's announced keep-alive less the margin (3 s - 1 s).
    await freeze(2_300);
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-2' });
    expect(await server.stats()).toEqual({ posts: 2, connections: 2 });
  });

  it('while the client runs: undici drops the closed socket itself, and the POST succeeds once', async () => {
    const { server, client } = await setUp(mode);
    await client.incidents.create(incident);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-2' });
    expect((await server.stats()).posts).toBe(2);
  });
});

describe('a balancer that forgets idle connections silently', () => {
  it('after a freeze longer than the idle limit, the POST goes out on a fresh connection', async () => {
    const server = await forgetfulBalancer(1_000);
    servers.push(server);
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', maxRetries: 0, ...ON_UNDICI });
    clients.push(client);
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-1' });
    await freeze(4_300);
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-2' });
    expect(await server.stats()).toEqual({ posts: 2, connections: 2 });
  });
});

describe('idle limit', () => {
  it('a busy client keeps its connections: quick calls reuse them, not one fresh connection each', async () => {
    const server = await closingServer('fin', 5_000);
    servers.push(server);
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', maxRetries: 0, ...ON_UNDICI });
    clients.push(client);
    for (let i = 1; i <= 10; i++) {
      await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: `INC-${i}` });
    }
    const { posts, connections } = await server.stats();
    expect(posts).toBe(10);
    // undici's pool may open a second socket while the first finishes its answer; never ten.
    expect(connections).toBeLessThanOrEqual(2);
  });
});
