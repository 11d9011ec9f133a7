/**
 * Per-client transport settings: the client's own dispatcher (never undici's global one), a
 * dispatcher of the user's, proxies from the environment, mutual TLS, and `close()`.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect as netConnect, type Socket } from 'node:net';
import { getGlobalDispatcher, MockAgent, setGlobalDispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsValidationError,
  outcomeOf,
} from '../../src/index.js';
import { WIRE_CHOICE } from '../../src/wire/cold-start-wire.js';
import { incident } from '../helpers/fixtures.js';

const tlsFile = (name: string): Buffer => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url));

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(server: Server): Promise<string> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return String((server.address() as AddressInfo).port);
}

function answer(req: IncomingMessage, res: import('node:http').ServerResponse): void {
  req.resume();
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end('{"incidentId":"INC-1"}');
  });
}

/** The client's own connections: node:http first (the default), or undici from the start. */
const OWN_WIRES = [
  { name: 'cold-start wire', options: {} },
  { name: 'undici wire', options: { [WIRE_CHOICE]: 'undici' as const } },
];

describe.each(OWN_WIRES)('the client’s own connections, $name', ({ options: wire }) => {
  it('is not undici’s global one: a global MockAgent that refuses the network changes nothing', async () => {
    const original = getGlobalDispatcher();
    const mock = new MockAgent();
    mock.disableNetConnect();
    setGlobalDispatcher(mock);
    cleanups.push(() => setGlobalDispatcher(original));
    const port = await listen(createHttpServer(answer));
    const client = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: 'tok', ...wire });
    cleanups.push(() => client.close());
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-1' });
  });

  it('a dispatcher of the user’s carries the requests, and close() leaves it open', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    const seen: string[] = [];
    mock
      .get('https://claims.example.com')
      .intercept({ path: '/api/incidents', method: 'POST' })
      .reply(201, (opts) => {
        seen.push(String(opts.body));
        return { incidentId: 'INC-9' };
      })
      .times(2);
    const client = new ClaimsClient({
      baseUrl: 'https://claims.example.com/api',
      accessToken: 'tok',
      dispatcher: mock,
    });
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-9' });
    await client.close();
    // The user's dispatcher is theirs: a second client on it still works.
    const again = new ClaimsClient({
      baseUrl: 'https://claims.example.com/api',
      accessToken: 't',
      dispatcher: mock,
    });
    await expect(again.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-9' });
    expect(seen.map((b) => JSON.parse(b))).toEqual([incident, incident]);
    await mock.close();
  });

  it('close(): later calls reject with a not_sent ClaimsError and nothing reaches the server', async () => {
    let hits = 0;
    const port = await listen(
      createHttpServer((req, res) => {
        hits++;
        answer(req, res);
      }),
    );
    const client = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: 'tok', ...wire });
    await client.incidents.create(incident);
    await client.close();
    const error = await client.incidents.create(incident).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect(error).not.toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect((error as Error).message).toMatch(/closed/);
    expect(hits).toBe(1);
  });

  it('close() lets a call already running finish', async () => {
    const port = await listen(
      createHttpServer((req, res) => {
        setTimeout(() => answer(req, res), 150);
      }),
    );
    const client = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: 'tok', ...wire });
    await client.incidents.create(incident);
    const running = client.incidents.create(incident);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await client.close();
    await expect(running).resolves.toEqual({ incidentId: 'INC-1' });
  });

  it('is disposed at the end of an `await using` block (Symbol.asyncDispose)', async () => {
    const port = await listen(createHttpServer(answer));
    const client = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: 'tok', ...wire });
    await client.incidents.create(incident);
    await client[Symbol.asyncDispose]();
    await expect(client.incidents.create(incident)).rejects.toThrow(/closed/);
  });
});

describe('proxies from the environment', () => {
  /** A CONNECT proxy on 127.0.0.1 that counts the tunnels it opens. */
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
    const port = await listen(proxy);
    return { url: `http://127.0.0.1:${port}`, tunnels };
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

  it('HTTP_PROXY: the request goes through the proxy’s tunnel', async () => {
    const port = await listen(createHttpServer(answer));
    const proxy = await connectProxy();
    withEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '' });
    const client = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: 'tok' });
    cleanups.push(() => client.close());
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-1' });
    expect(proxy.tunnels).toEqual([`127.0.0.1:${port}`]);
  });

  it('NO_PROXY naming the host: the request goes direct', async () => {
    const port = await listen(createHttpServer(answer));
    const proxy = await connectProxy();
    withEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    const client = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: 'tok' });
    cleanups.push(() => client.close());
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-1' });
    expect(proxy.tunnels).toEqual([]);
  });
});

describe.each(OWN_WIRES)('mutual TLS, $name', ({ options: wire }) => {
  async function mtlsServer(): Promise<string> {
    const server = createHttpsServer(
      {
        cert: tlsFile('server.crt'),
        key: tlsFile('server.key'),
        ca: tlsFile('ca.crt'),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        req.resume();
        req.on('end', () => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ incidentId: 'INC-1', clientCn: peer.subject?.CN }));
        });
      },
    );
    return `https://127.0.0.1:${await listen(server as unknown as Server)}`;
  }

  it('tls: { cert, key, ca }: the server sees the client certificate', async () => {
    const baseUrl = await mtlsServer();
    const client = new ClaimsClient({
      baseUrl,
      accessToken: 'tok',
      tls: { cert: tlsFile('client.crt'), key: tlsFile('client.key'), ca: tlsFile('ca.crt') },
      ...wire,
    });
    cleanups.push(() => client.close());
    await expect(client.incidents.create(incident)).resolves.toEqual({
      incidentId: 'INC-1',
      clientCn: 'partner-client',
    });
  });

  it('a server certificate from an unknown CA: a connection error, not_sent (the request never left)', async () => {
    const baseUrl = await mtlsServer();
    const client = new ClaimsClient({ baseUrl, accessToken: 'tok', maxRetries: 0, ...wire });
    cleanups.push(() => client.close());
    const error = await client.incidents.create(incident).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(error)).toBe('not_sent');
  });
});

describe('options', () => {
  const base = { baseUrl: 'https://claims.example.com/api', accessToken: 'tok' };
  it.each([
    ['dispatcher', { dispatcher: {} }],
    ['dispatcher', { dispatcher: new MockAgent(), fetch: globalThis.fetch }],
    ['tls', { tls: 'cert.pem' }],
    ['tls', { tls: {}, fetch: globalThis.fetch }],
    ['tls', { tls: {}, dispatcher: new MockAgent() }],
  ])('refuses a wrong %s', (path, extra) => {
    const error = (() => {
      try {
        new ClaimsClient({ ...base, ...(extra as object) });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toContain(path);
  });
});
