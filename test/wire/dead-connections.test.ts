/**
 * Kept-alive connections the server closes (FIN) or resets (RST) while idle, found dead by the
 * next call, with and without the client's event loop frozen meanwhile. The server announces a
 * long keep-alive (`timeout=60`) and the gap is short, so the idle-gap rule (stale-sockets.test.ts)
 * does not step in: the dead connection is really handed to the next request.
 *
 * What the server received is counted: a POST is never received twice; a call never written
 * (the wire proved it) never fails, it goes out once more on a fresh connection; a call that may
 * have left fails `'unknown'` and is not repeated. On each of the client's own wires: undici,
 * and `node:http` (the cold-start wire's, which a client making a few calls per invocation
 * never leaves).
 *
 * The server runs in a worker thread, so it keeps running while this thread is frozen, and
 * closes its idle sockets on command: the frozen thread waits (blocked, as a frozen function
 * is) until they are closed, so no timing is guessed. Over plain HTTP and over TLS (where a
 * TCP relay in front of the HTTPS server closes them, as a load balancer would).
 */
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsConnectionError,
  type Logger,
  outcomeOf,
} from '../../src/index.js';
import { WIRE_CHOICE, type WireChoice } from '../../src/wire/cold-start-wire.js';
import { WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

type CloseMode = 'fin' | 'rst';
type Scheme = 'http' | 'https';

const tlsFile = (name: string): string =>
  readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');

interface IdleCloser {
  url: string;
  /** Closes the server's idle sockets (with a FIN or an RST) while this thread is blocked. */
  closeIdleWhileFrozen(): void;
  /** Closes them and waits, this thread running. */
  closeIdle(): Promise<void>;
  /** POSTs received (whole bodies), and TCP connections accepted. */
  stats(): Promise<{ posts: number; bodies: string[]; connections: number }>;
  stop(): Promise<void>;
}

/**
 * The server. Over TLS, a TCP relay in front of an HTTPS server does the closing (Node cannot
 * reset a TLS socket itself), as a load balancer in front of the API would.
 */
async function idleCloser(mode: CloseMode, scheme: Scheme = 'http'): Promise<IdleCloser> {
  // [0]: idle sockets closed so far, written by the worker, waited on by this thread.
  const closed = new Int32Array(new SharedArrayBuffer(4));
  const tls = scheme === 'https' ? { key: tlsFile('server.key'), cert: tlsFile('server.crt') } : undefined;
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const https = require('node:https');
    const net = require('node:net');
    const { closed, mode, tls } = workerData;
    const bodies = [];
    let connections = 0;
    // Over plain HTTP, the server's sockets that answered and wait; over TLS, the relay's.
    const idle = new Set();
    const answer = (req, res) => {
      idle.delete(req.socket);
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        if (req.method === 'POST') bodies.push(body);
        res.writeHead(201, { 'content-type': 'application/json', 'keep-alive': 'timeout=60' });
        res.end(JSON.stringify({ incidentId: 'INC-' + bodies.length }));
        if (!tls) res.on('finish', () => idle.add(req.socket));
      });
    };
    const app = tls ? https.createServer(tls, answer) : http.createServer(answer);
    app.keepAliveTimeout = 60000;
    const relay = net.createServer((client) => {
      connections++;
      idle.add(client);
      const upstream = net.connect(app.address().port, '127.0.0.1');
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => { idle.delete(client); upstream.destroy(); });
    });
    if (!tls) {
      app.on('connection', (socket) => {
        connections++;
        socket.on('close', () => idle.delete(socket));
      });
    }
    app.listen(0, '127.0.0.1', () => {
      if (tls) relay.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: relay.address().port }));
      else parentPort.postMessage({ port: app.address().port });
    });
    parentPort.on('message', (m) => {
      if (m === 'stats') return parentPort.postMessage({ posts: bodies.length, bodies, connections });
      for (const socket of idle) {
        if (mode === 'rst') socket.resetAndDestroy();
        else socket.end();
      }
      idle.clear();
      Atomics.add(closed, 0, 1);
      Atomics.notify(closed, 0);
      if (m.reply) parentPort.postMessage({ closed: true });
    });
    `,
    { eval: true, workerData: { closed, mode, tls } },
  );
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve) => worker.once('message', resolve));
  const { port } = await next();
  let closes = 0;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    closeIdleWhileFrozen() {
      const seen = closes++;
      worker.postMessage({ reply: false });
      // Blocks this thread until the worker has closed them: no timer, no socket event runs.
      Atomics.wait(closed, 0, seen, 5_000);
      // Loopback delivers the FIN or RST at once; a few ms more, still frozen, for a loaded machine.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    },
    async closeIdle() {
      closes++;
      const done = next();
      worker.postMessage({ reply: true });
      await done;
      // Let undici read the FIN or RST.
      await new Promise((resolve) => setTimeout(resolve, 30));
    },
    async stats() {
      const answer = next();
      worker.postMessage('stats');
      return (await answer) as { posts: number; bodies: string[]; connections: number };
    },
    async stop() {
      await worker.terminate();
    },
  };
}

/** Lets undici put the socket back in its pool: it needs a few ticks after an answer. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

const servers: IdleCloser[] = [];
const clients: ClaimsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** The client, and the retries it logged (a dead connection's fresh repeat is one). */
async function setUp(
  mode: CloseMode,
  options: Partial<ClaimsClientOptions> & { scheme?: Scheme; [WIRE_CHOICE]?: WireChoice } = {},
): Promise<{ server: IdleCloser; client: ClaimsClient; retries: string[] }> {
  const { scheme = 'http', ...rest } = options;
  const server = await idleCloser(mode, scheme);
  servers.push(server);
  const retries: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: (message) => retries.push(message),
    warn: () => undefined,
    error: () => undefined,
  };
  const client = new ClaimsClient({
    baseUrl: server.url,
    accessToken: 'tok',
    maxRetries: 0,
    logger,
    logLevel: 'info',
    ...(scheme === 'https' ? { tls: { ca: tlsFile('ca.crt') } } : {}),
    ...rest,
  });
  clients.push(client);
  return { server, client, retries };
}

/** Each round: one call that leaves a kept-alive connection idle, then the call under test. */
const ROUNDS = 5;
const claim = (n: number) => ({ ...incident, description: `claim ${n}` });
const resends = (retries: string[]): number =>
  retries.filter((r) => r.includes('dead kept-alive connection')).length;

/**
 * Each round, a POST written after the server's FIN, which the client, frozen, had not read
 * (`closeWhileFrozen` closes the idle connections at some moment of the call): it fails unknown
 * and is not repeated, retries allowed. Each is received at most once. The Node server behind
 * plain HTTP reads every one (an HTTP/1.1 server may): this is why such a request is 'unknown',
 * never repeated. Behind the TLS relay, some are lost with the connection, which the client
 * cannot tell.
 */
async function expectWrittenAfterFin(
  wire: WireChoice,
  scheme: Scheme,
  closeWhileFrozen: (server: IdleCloser) => void,
): Promise<void> {
  const { server, client, retries } = await setUp('fin', { scheme, maxRetries: 2, [WIRE_CHOICE]: wire });
  for (let round = 0; round < ROUNDS; round++) {
    await client.incidents.create(claim(2 * round));
    await settle();
    closeWhileFrozen(server);
    const error = await client.incidents.create(claim(2 * round + 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(error)).toBe('unknown');
    expect(error).toMatchObject({ attempts: 1 });
  }
  const received = (await server.stats()).bodies.map((b) => JSON.parse(b).description as string);
  const sent = Array.from({ length: 2 * ROUNDS }, (_, n) => `claim ${n}`);
  if (scheme === 'http') expect(received).toEqual(sent);
  else {
    expect(new Set(received).size).toBe(received.length);
    expect(sent).toEqual(expect.arrayContaining(received));
  }
  expect(retries).toEqual([]);
}

/**
 * Each round, the server's idle connections are closed while the client is frozen, at some
 * moment of a call (`closeWhileFrozen`): each call succeeds or fails unknown, none is repeated
 * (only a request provably never written is sent again) nor received twice. Returns the retries
 * logged.
 */
async function expectNeverRepeated(
  mode: CloseMode,
  options: Parameters<typeof setUp>[1],
  closeWhileFrozen: (server: IdleCloser) => void,
): Promise<string[]> {
  const { server, client, retries } = await setUp(mode, { ...options, maxRetries: 2 });
  const succeeded: string[] = [];
  const send = async (n: number): Promise<void> => {
    const sent = claim(n);
    const resentBefore = resends(retries);
    try {
      await client.incidents.create(sent);
      succeeded.push(sent.description);
    } catch (error) {
      expect(error).toBeInstanceOf(ClaimsConnectionError);
      expect(outcomeOf(error)).toBe('unknown');
      // One attempt, or two when the first was provably never written.
      expect(error).toMatchObject({ attempts: 1 + resends(retries) - resentBefore });
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    // This one may find the connection the previous round left dead as well.
    await send(2 * round);
    await settle();
    closeWhileFrozen(server);
    await send(2 * round + 1);
  }
  const received = (await server.stats()).bodies.map((b) => JSON.parse(b).description as string);
  expect(new Set(received).size).toBe(received.length);
  expect(received).toEqual(expect.arrayContaining(succeeded));
  // Only resends of requests never written: any other retry would be a repeat.
  expect(retries.length).toBe(resends(retries));
  return retries;
}

/** The client's own wires, each kept for all its calls. */
const OWN_WIRES = WIRES.filter((w) => w.options[WIRE_CHOICE] !== undefined).map((w) => ({
  name: w.name,
  wire: w.options[WIRE_CHOICE] as 'undici' | 'http',
}));

describe.each(OWN_WIRES)('$name', ({ wire }) => {
  describe.each(['http', 'https'] as const)('over %s', (scheme) => {
    describe.each(['fin', 'rst'] as const)('the server closes idle connections with %s', (mode) => {
      // node:http never looks at a kept-alive socket before it writes: a FIN its event loop
      // had not read is written after, like undici's "just as it writes" below.
      const foundDead = wire === 'undici' || mode === 'rst';
      if (foundDead) {
        it('between two calls, the client frozen: the next POST reaches the server once, and succeeds', async () => {
          const { server, client, retries } = await setUp(mode, { scheme, [WIRE_CHOICE]: wire });
          for (let round = 0; round < ROUNDS; round++) {
            await client.incidents.create(claim(2 * round));
            await settle();
            server.closeIdleWhileFrozen();
            await expect(client.incidents.create(claim(2 * round + 1))).resolves.toEqual({
              incidentId: `INC-${2 * round + 2}`,
            });
          }
          const { bodies } = await server.stats();
          expect(bodies.map((b) => JSON.parse(b).description)).toEqual(
            Array.from({ length: 2 * ROUNDS }, (_, n) => `claim ${n}`),
          );
          // An RST: undici finds it while the request waits for the socket, node:http when the
          // kernel refuses the write; either fails the request unwritten, and the SDK sends it once
          // more on a fresh connection. A FIN: undici drops the socket and uses another by itself.
          expect(resends(retries)).toBe(mode === 'rst' ? ROUNDS : 0);
        });
      } else {
        it('between two calls, the client frozen: node:http writes the POST after the FIN, it fails unknown and is not repeated', async () => {
          await expectWrittenAfterFin(wire, scheme, (server) => server.closeIdleWhileFrozen());
        });
      }

      it('read in the same turn of the event loop as the next call: the POST reaches the server once, and succeeds', async () => {
        const { server, client, retries } = await setUp(mode, { scheme, [WIRE_CHOICE]: wire });
        for (let round = 0; round < ROUNDS; round++) {
          await client.incidents.create(claim(2 * round));
          await settle();
          server.closeIdleWhileFrozen();
          // The poll phase reads the close, then the check phase starts the call.
          const next = await new Promise<{ call: Promise<unknown> }>((resolve) =>
            setImmediate(() => resolve({ call: client.incidents.create(claim(2 * round + 1)) })),
          );
          await expect(next.call).resolves.toEqual({ incidentId: `INC-${2 * round + 2}` });
        }
        const { bodies } = await server.stats();
        expect(bodies.map((b) => JSON.parse(b).description)).toEqual(
          Array.from({ length: 2 * ROUNDS }, (_, n) => `claim ${n}`),
        );
        // Both wires had dropped the socket by then: nothing to resend.
        expect(retries).toEqual([]);
      });

      it('between two calls, the client running: the wire drops the closed connection, the POST succeeds once', async () => {
        const { server, client, retries } = await setUp(mode, { scheme, [WIRE_CHOICE]: wire });
        for (let round = 0; round < ROUNDS; round++) {
          await client.incidents.create(claim(2 * round));
          await settle();
          await server.closeIdle();
          await expect(client.incidents.create(claim(2 * round + 1))).resolves.toEqual({
            incidentId: `INC-${2 * round + 2}`,
          });
        }
        expect((await server.stats()).posts).toBe(2 * ROUNDS);
        expect(retries).toEqual([]);
      });
    });

    if (wire === 'undici') {
      describe('frozen just as undici writes the request (the close arrives after undici last looked)', () => {
        /**
         * Queued before the call, this runs in the same check phase as undici's own look at the idle
         * socket (a `setImmediate`), just before it: the socket is closed after undici looked, before
         * it writes.
         */
        function freezeBeforeUndiciWrites(server: IdleCloser): void {
          setImmediate(() => server.closeIdleWhileFrozen());
        }

        it('an RST: the kernel refuses the write, nothing left; the POST goes out once on a fresh connection', async () => {
          const { server, client, retries } = await setUp('rst', { scheme, [WIRE_CHOICE]: wire });
          for (let round = 0; round < ROUNDS; round++) {
            await client.incidents.create(claim(2 * round));
            await settle();
            freezeBeforeUndiciWrites(server);
            await expect(client.incidents.create(claim(2 * round + 1))).resolves.toEqual({
              incidentId: `INC-${2 * round + 2}`,
            });
          }
          const { bodies } = await server.stats();
          expect(bodies).toHaveLength(2 * ROUNDS);
          expect(new Set(bodies).size).toBe(2 * ROUNDS);
          expect(resends(retries)).toBe(ROUNDS);
        });

        it('a FIN: the request is written and the server may read it, so the call fails unknown and is not repeated', async () => {
          // Retries allowed: a POST that may have left must still not be repeated.
          await expectWrittenAfterFin(wire, scheme, freezeBeforeUndiciWrites);
        });
      });
    } else {
      // node:http writes in the same turn of the event loop as the call starts: a close queued
      // before the call (as undici's test does) comes after the request was written, in flight.
      describe('frozen just after node:http wrote the request', () => {
        it.each(['fin', 'rst'] as const)(
          'a %s: the POST succeeds or fails unknown, never repeated, never received twice',
          async (mode) => {
            const closeAfterWrite = (server: IdleCloser) => setImmediate(() => server.closeIdleWhileFrozen());
            await expectNeverRepeated(mode, { scheme, [WIRE_CHOICE]: wire }, closeAfterWrite);
          },
        );
      });
    }
  });

  describe('several calls at once after a freeze', () => {
    it('one call after the reset of many idle connections: its repeat does not take another of them', async () => {
      const { server, client, retries } = await setUp('rst', { [WIRE_CHOICE]: wire });
      await Promise.all(Array.from({ length: 8 }, (_, i) => client.incidents.create(claim(i))));
      await settle();
      expect((await server.stats()).connections).toBe(8);
      for (let round = 0; round < ROUNDS; round++) {
        server.closeIdleWhileFrozen();
        await expect(client.incidents.create(claim(8 + round))).resolves.toEqual({
          incidentId: `INC-${9 + round}`,
        });
        await settle();
      }
      const { bodies, connections } = await server.stats();
      expect(new Set(bodies).size).toBe(8 + ROUNDS);
      expect(bodies).toHaveLength(8 + ROUNDS);
      expect(connections).toBe(8 + ROUNDS);
      expect(resends(retries)).toBe(ROUNDS);
    });

    it('each POST whose connection was reset reaches the server once, on connections opened after the reset', async () => {
      const { server, client, retries } = await setUp('rst', { [WIRE_CHOICE]: wire });
      const batch = (from: number) =>
        Promise.all(Array.from({ length: 8 }, (_, i) => client.incidents.create(claim(from + i))));
      await batch(0);
      await settle();
      expect((await server.stats()).connections).toBe(8);
      server.closeIdleWhileFrozen();
      await expect(batch(8)).resolves.toHaveLength(8);
      const { bodies, connections } = await server.stats();
      expect(new Set(bodies).size).toBe(16);
      expect(bodies).toHaveLength(16);
      expect(connections).toBe(16);
      const resent = resends(retries);
      expect(resent).toBeGreaterThan(0);
      expect(resent).toBeLessThanOrEqual(8);
      // The new connections are in one fresh pool, not one pool per call: the next batch reuses them.
      await settle();
      await batch(16);
      expect((await server.stats()).connections).toBe(connections);
    });
  });

  describe('an RST after the request was written', () => {
    it('the server read the POST, then reset: unknown, not repeated, received once', async () => {
      const { createServer } = await import('node:http');
      let posts = 0;
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          posts++;
          if (posts === 1) {
            res.writeHead(201, { 'content-type': 'application/json', 'keep-alive': 'timeout=60' });
            res.end(JSON.stringify({ incidentId: 'INC-1' }));
          } else req.socket.resetAndDestroy();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      const client = new ClaimsClient({
        baseUrl: `http://127.0.0.1:${port}`,
        accessToken: 'tok',
        maxRetries: 2,
        [WIRE_CHOICE]: wire,
      } as ClaimsClientOptions);
      clients.push(client);
      try {
        await client.incidents.create(claim(0));
        const error = await client.incidents.create(claim(1)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsConnectionError);
        expect(outcomeOf(error)).toBe('unknown');
        expect(error).toMatchObject({ attempts: 1 });
        expect(posts).toBe(2);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});

/**
 * A `fetch` cannot say which connection it used, nor whether it wrote anything: the fetch
 * wire never claims `'not_sent'` for a connection that failed, and keeps the outcome rules. What
 * its undici does with a dead connection depends on the Node version (undici 7 looks at an idle
 * socket before writing to it; Node 20's fetch does not), so only the rules are asserted.
 */
describe.each(['fin', 'rst'] as const)(
  'the fetch wire, the server closing idle connections with %s',
  (mode) => {
    it.each(['between two calls', 'just as fetch writes'])(
      'the client frozen %s: the POST succeeds or fails unknown, never repeated, never received twice',
      async (when) => {
        const retries = await expectNeverRepeated(mode, { fetch: globalThis.fetch }, (server) => {
          if (when === 'between two calls') server.closeIdleWhileFrozen();
          else setImmediate(() => server.closeIdleWhileFrozen());
        });
        // A fetch never proves a request unwritten.
        expect(retries).toEqual([]);
      },
    );
  },
);
