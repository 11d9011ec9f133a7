/**
 * The client's own dispatcher (src/wire/dispatcher.ts): the stale dispatcher closed when a
 * fresh one replaces it after an idle gap, close(), and which undici agent the proxy variables
 * choose. When the gap is long enough, and what the server's `keep-alive` header changes, is the
 * rule both pools share: idle-pool.test.ts.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect as netConnect, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Dispatcher } from 'undici';
import * as undici from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { OwnDispatcher, ownDispatcher } from '../../src/wire/dispatcher.js';
import { WireFailure } from '../../src/wire/failure.js';
import { IDLE_LIMIT_MS } from '../../src/wire/idle-pool.js';
import { incident } from '../helpers/fixtures.js';

/** An OwnDispatcher whose dispatchers are numbered stand-ins that note when they are closed. */
function numbered(): { own: OwnDispatcher; made: Array<{ n: number; closed: boolean }> } {
  const made: Array<{ n: number; closed: boolean }> = [];
  const own = new OwnDispatcher(() => {
    const entry = { n: made.length + 1, closed: false };
    made.push(entry);
    return {
      n: entry.n,
      close: async () => {
        entry.closed = true;
      },
    } as unknown as Dispatcher;
  }, false);
  return { own, made };
}

const nOf = (dispatcher: Dispatcher): number => (dispatcher as unknown as { n: number }).n;

describe('OwnDispatcher: a fresh connection after an idle gap', () => {
  it(`keeps the dispatcher up to ${IDLE_LIMIT_MS} ms idle; past it a fresh one, the stale one closed`, () => {
    const { own, made } = numbered();
    expect(nOf(own.take(undici, 1_000))).toBe(1);
    expect(nOf(own.take(undici, 1_000 + IDLE_LIMIT_MS))).toBe(1);
    expect(made).toEqual([{ n: 1, closed: false }]);
    expect(nOf(own.take(undici, 1_000 + 2 * IDLE_LIMIT_MS + 1))).toBe(2);
    expect(made).toEqual([
      { n: 1, closed: true },
      { n: 2, closed: false },
    ]);
  });

  it('a stale dispatcher whose close() fails is dropped quietly (no unhandled rejection)', async () => {
    let made = 0;
    const own = new OwnDispatcher(() => {
      made++;
      return { close: () => Promise.reject(new Error('already destroyed')) } as unknown as Dispatcher;
    }, false);
    own.take(undici, 0);
    own.take(undici, IDLE_LIMIT_MS + 1);
    expect(made).toBe(2);
    // Unhandled rejections fail the run; give one a turn to surface.
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('close() closes the dispatcher in use; a later take() is refused, nothing sent', async () => {
    const { own, made } = numbered();
    own.take(undici, 0);
    await own.close();
    expect(made).toEqual([{ n: 1, closed: true }]);
    let error: unknown;
    try {
      own.take(undici, 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WireFailure);
    expect((error as Error).message).toBe(
      'The client is closed (client.close() was called): nothing was sent',
    );
    expect(error).toMatchObject({ kind: 'refused', name: 'ClaimsError' });
    expect(made).toHaveLength(1);
  });

  it('close() before any request makes nothing, and take() is refused', async () => {
    const { own, made } = numbered();
    await own.close();
    expect(() => own.take(undici, 0)).toThrow(WireFailure);
    expect(made).toEqual([]);
  });
});

describe('ownDispatcher: the agent the environment chooses', () => {
  it.each(['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'])(
    '%s set: an EnvHttpProxyAgent, whose requests get a copy of the headers',
    async (name) => {
      const own = ownDispatcher(undefined, { [name]: 'http://127.0.0.1:9' });
      expect(own.writesHeaders).toBe(true);
      const agent = own.take(undici, 0);
      expect(agent).toBeInstanceOf(undici.EnvHttpProxyAgent);
      await own.close();
    },
  );

  it('no proxy variable (or an empty one): a plain Agent, headers shared', async () => {
    for (const env of [{}, { HTTPS_PROXY: '', HTTP_PROXY: '', NO_PROXY: '*' }]) {
      const own = ownDispatcher(undefined, env);
      expect(own.writesHeaders).toBe(false);
      const agent = own.take(undici, 0);
      expect(agent).toBeInstanceOf(undici.Agent);
      expect(agent).not.toBeInstanceOf(undici.EnvHttpProxyAgent);
      await own.close();
    }
  });
});

const tlsFile = (name: string): Buffer => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url));
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(server: Server): Promise<number> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}

/** A CONNECT proxy on 127.0.0.1 that notes the tunnels it opens. */
async function connectProxy(): Promise<{ url: string; tunnels: string[] }> {
  const tunnels: string[] = [];
  const proxy = createHttpServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = netConnect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return { url: `http://127.0.0.1:${await listen(proxy)}`, tunnels };
}

/** An HTTPS server that requires a client certificate and answers with its common name. */
async function mtlsServer(): Promise<number> {
  const server = createHttpsServer(
    { cert: tlsFile('server.crt'), key: tlsFile('server.key'), ca: tlsFile('ca.crt'), requestCert: true },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ incidentId: 'INC-1', clientCn: peer.subject?.CN ?? null }));
      });
    },
  );
  return listen(server as unknown as Server);
}

function withEnv(vars: Record<string, string>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  cleanups.push(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

describe('through a proxy', () => {
  it('HTTPS_PROXY and tls: the tunnel goes through the proxy, and the API sees the client certificate', async () => {
    const port = await mtlsServer();
    const proxy = await connectProxy();
    withEnv({ HTTPS_PROXY: proxy.url, NO_PROXY: '' });
    const client = new ClaimsClient({
      baseUrl: `https://127.0.0.1:${port}`,
      accessToken: 'tok',
      tls: { cert: tlsFile('client.crt'), key: tlsFile('client.key'), ca: tlsFile('ca.crt') },
    });
    cleanups.push(() => client.close());
    await expect(client.incidents.create(incident)).resolves.toEqual({
      incidentId: 'INC-1',
      clientCn: 'partner-client',
    });
    expect(proxy.tunnels).toEqual([`127.0.0.1:${port}`]);
  });

  it('a ProxyAgent of the user’s as dispatcher (it writes to the headers it is given): sent through it', async () => {
    const api = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ incidentId: 'INC-2', auth: req.headers.authorization }));
      });
    });
    const port = await listen(api);
    const proxy = await connectProxy();
    const dispatcher = new undici.ProxyAgent({ uri: proxy.url, proxyTunnel: true });
    cleanups.push(() => dispatcher.close());
    const client = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: 'tok', dispatcher });
    for (let i = 0; i < 2; i++) {
      await expect(client.incidents.create(incident)).resolves.toEqual({
        incidentId: 'INC-2',
        auth: 'Bearer tok',
      });
    }
    expect(proxy.tunnels.length).toBeGreaterThanOrEqual(1);
  });
});
