/**
 * The `node:http` wire's own paths, called directly (the behaviour it shares with the other
 * wires is in hostile-answers.contract.test.ts and the fault tests).
 */

import { readFileSync } from 'node:fs';
import {
  type ClientRequest,
  createServer as createHttpServer,
  Agent as HttpAgent,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaimsConnectionError, outcomeOf } from '../../src/index.js';
import { type HttpClient, OwnHttpAgent, ownHttpAgent } from '../../src/wire/http-agent.js';
import { httpWire } from '../../src/wire/http-wire.js';
import {
  failure,
  httpFaultServer,
  makeClient,
  rawFaultServer,
  scenario,
  WIRES,
} from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';
import { CountingSignal, closeLocals, local, ok, rejection, request } from '../helpers/wire-kit.js';

afterEach(closeLocals);

describe('the node:http wire, a head the core refuses', () => {
  it('with a lenient parser (--insecure-http-parser) that lets transfer-encoding and content-length through: a bad answer, no crash', async () => {
    // What `--insecure-http-parser` does process-wide, for this agent's requests only.
    const lenient = new HttpAgent({ keepAlive: true }) as HttpAgent & {
      addRequest(req: ClientRequest, options: object): void;
    };
    const addRequest = lenient.addRequest.bind(lenient);
    lenient.addRequest = (req, options) => {
      (req as ClientRequest & { insecureHTTPParser: boolean }).insecureHTTPParser = true;
      addRequest(req, options);
    };
    const server = await rawFaultServer((_hit, socket) =>
      socket.end(
        'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      ),
    );
    try {
      const wire = httpWire(new OwnHttpAgent(() => lenient));
      const signal = new CountingSignal();
      const { error } = await rejection(wire(request(server.url, signal, { method: 'PATCH', body: '{}' })));
      expect(error).toMatchObject({
        kind: 'connection',
        sent: 'bad_answer',
        message: 'Connection failed: the answer has both transfer-encoding and content-length',
      });
      expect(signal.listeners).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('the node:http wire, an answer with no body that sent one anyway', () => {
  it('204 with a body: read as empty, and its socket is closed, not kept nor given back to the pool', async () => {
    const server = await rawFaultServer((_hit, socket) =>
      socket.write('HTTP/1.1 204 No Content\r\ncontent-length: 5\r\n\r\nhello'),
    );
    const agent = new HttpAgent({ keepAlive: true });
    try {
      const wire = httpWire(new OwnHttpAgent(() => agent));
      const signal = new CountingSignal();
      const answer = await wire(request(server.url, signal, { method: 'PATCH', body: '{}' }));
      await expect(answer.text(100)).resolves.toEqual({ text: '', truncated: false });
      for (
        let i = 0;
        i < 50 && (Object.keys(agent.sockets).length > 0 || Object.keys(agent.freeSockets).length > 0);
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(Object.values(agent.sockets).flat()).toHaveLength(0);
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(0);
      expect(signal.listeners).toBe(0);
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});

/**
 * The node:http wire's promises, called directly (as the transport does) against a local
 * server: the request it writes (a body's byte length), when it starts connecting, which
 * timeout fires and what its error and `cause` say (a stall on a fresh connection, on a
 * kept-alive one, inside the body; the 10 s connect timeout), a slow body that keeps making
 * progress, the server's `keep-alive: timeout=` shortening the idle limit, the call's signal
 * (aborted while waiting, after the head) and the listener it leaves behind (none, at once),
 * and the message of a failure whose error carries no code. A signal aborted before the call
 * is in wire-signal-and-stalls.test.ts, with the same assertions on every wire.
 */
describe('the promises of the node:http wire', () => {
  afterEach(closeLocals);

  describe('the node:http wire', () => {
    it('a string body goes with its length in bytes as content-length, not chunked', async () => {
      const server = await local(ok);
      const wire = httpWire(ownHttpAgent(undefined));
      const body = '{"note":"é€"}';
      const response = await wire(
        request(server.origin, new CountingSignal(), {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        }),
      );
      await response.text(1_000);
      const [hit] = server.seen;
      expect(hit?.body).toBe(body);
      expect(hit?.req.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect(hit?.req.headers['transfer-encoding']).toBeUndefined();
    });

    it('a call with no kept-alive socket to reuse opens its connection at once, in the same turn', async () => {
      const server = await local(ok);
      let connections = 0;
      class CountingAgent extends HttpAgent {
        override createConnection(...args: Parameters<HttpAgent['createConnection']>) {
          connections++;
          return super.createConnection(...args);
        }
      }
      const wire = httpWire(new OwnHttpAgent(() => new CountingAgent({ keepAlive: true })));
      const pending = wire(request(server.origin, new CountingSignal()));
      expect(connections).toBe(1);
      await (await pending).text(1_000);
    });

    it('a request node:http refuses to build (a line break in a header): rejected as a connection failure with its code', async () => {
      const server = await local(ok);
      const signal = new CountingSignal();
      const { error } = await rejection(
        httpWire(ownHttpAgent(undefined))(request(server.origin, signal, { headers: { 'x-note': 'a\nb' } })),
      );
      expect(error).toMatchObject({ name: 'ClaimsConnectionError', kind: 'connection' });
      expect((error.cause as { code?: string }).code).toBe('ERR_INVALID_CHAR');
      expect(error.message).toMatch(
        /^Connection failed: Invalid character in header content \["x-note"\] \(ERR_INVALID_CHAR\)/,
      );
      expect(server.seen).toHaveLength(0);
      expect(signal.listeners).toBe(0);
    });

    /** What a `timeoutMs` stall ends with, on every phase: the wire's own message and cause. */
    function expectNoProgress(error: Error, ms: number): void {
      expect(error).toMatchObject({ name: 'ClaimsTimeoutError', sent: 'maybe' });
      expect(error.message).toBe('Request timed out: no progress for 300 ms');
      expect((error.cause as Error).message).toBe('no progress for 300 ms');
      expect((error.cause as { code?: string }).code).toBeUndefined();
      expect(ms).toBeGreaterThanOrEqual(280);
    }

    it('no answer on a fresh connection: timeoutMs after connecting, not the 10 s connect timeout', async () => {
      const server = await local(() => undefined);
      const { error, ms } = await rejection(
        httpWire(ownHttpAgent(undefined))(request(server.origin, new CountingSignal())),
      );
      expectNoProgress(error, ms);
    });

    it('no answer over TLS: timeoutMs once the handshake is done, not the 10 s connect timeout', async () => {
      const tlsFile = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url));
      const server = createHttpsServer(
        { cert: tlsFile('server.crt'), key: tlsFile('server.key') },
        () => undefined,
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const wire = httpWire(ownHttpAgent({ ca: tlsFile('ca.crt') }));
        const { error, ms } = await rejection(wire(request(origin, new CountingSignal())));
        expectNoProgress(error, ms);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('no answer on a kept-alive connection: timeoutMs from the start, as a timeout', async () => {
      const server = await local((req, res, count) => {
        if (count === 1) ok(req, res);
      });
      const wire = httpWire(ownHttpAgent(undefined));
      await (await wire(request(server.origin, new CountingSignal()))).text(1_000);
      const { error, ms } = await rejection(wire(request(server.origin, new CountingSignal())));
      expect(server.seen.map((hit) => hit.socket)).toEqual([1, 1]);
      expectNoProgress(error, ms);
    });

    it('a body that stops after the head: the reader fails with the timeout, the stall as cause', async () => {
      const server = await local((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"ok":');
      });
      const response = await httpWire(ownHttpAgent(undefined))(request(server.origin, new CountingSignal()));
      const { error, ms } = await rejection(response.text(1_000));
      expectNoProgress(error, ms);
    });

    it("the server's keep-alive timeout (2 s, less a 1 s margin) sends a call after 1.1 s idle on a fresh connection", async () => {
      const server = await local((_req, res, count) => {
        // node:http's own agent ignores a hint of 2 s (it keeps sockets without a timeout): only the
        // wire's idle limit can move the second call to a fresh connection.
        res.writeHead(200, {
          'content-type': 'application/json',
          'keep-alive': count === 1 ? 'timeout=2' : 'timeout=60',
        });
        res.end('{}');
      });
      const wire = httpWire(ownHttpAgent(undefined));
      await (await wire(request(server.origin, new CountingSignal()))).text(1_000);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await (await wire(request(server.origin, new CountingSignal()))).text(1_000);
      // The second answer's 60 s puts the limit back at 4 s: the third call reuses the second's socket.
      await (await wire(request(server.origin, new CountingSignal()))).text(1_000);
      expect(server.seen.map((hit) => hit.socket)).toEqual([1, 2, 2]);
    });

    it('a socket error without a code: the message names no code', async () => {
      class FailingAgent extends HttpAgent {
        override createConnection() {
          const socket = new Socket();
          process.nextTick(() => socket.destroy(new Error('plain failure')));
          return socket;
        }
      }
      const agents = new OwnHttpAgent((_client: HttpClient) => new FailingAgent({ keepAlive: true }));
      const { error } = await rejection(
        httpWire(agents)(request('http://127.0.0.1:9', new CountingSignal())),
      );
      expect(error).toMatchObject({ name: 'ClaimsConnectionError', kind: 'connection' });
      expect(error.message).toBe('Connection failed: plain failure');
      expect(error).toMatchObject({ sent: 'maybe' });
    });

    it('a TLS handshake that never ends: the connect timeout, its cause says so with undici’s code', async () => {
      const sockets = new Set<Socket>();
      const silent = createNetServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      try {
        const { error, ms } = await rejection(
          httpWire(ownHttpAgent(undefined))(request(`https://127.0.0.1:${port}`, new CountingSignal())),
        );
        expect(error).toMatchObject({ name: 'ClaimsTimeoutError', kind: 'timeout', sent: 'not_connected' });
        expect(error.message).toMatch(
          /^Connection timed out: the connect timeout passed \(10000 ms, UND_ERR_CONNECT_TIMEOUT\)/,
        );
        expect((error.cause as Error).message).toBe('connect timeout (10000 ms)');
        expect((error.cause as { code?: string }).code).toBe('UND_ERR_CONNECT_TIMEOUT');
        expect(ms).toBeGreaterThanOrEqual(9_900);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    }, 15_000);
  });
});

/**
 * What the node:http wire must do as the others do, that no other test pins: a `baseUrl` with
 * an IPv6 literal connects to that address (the brackets are URL syntax, not the host), and an
 * answer header sent twice reaches `withResponse()` as one value joined with ", ". Run on the
 * client's own wires (a user's `fetch` cannot tell a refused connection from a later failure,
 * and its `Headers` give `set-cookie` apart). The IPv6 case connects to a closed port on the loopback: nothing leaves the machine.
 */
function created(res: ServerResponse): void {
  res.setHeader('set-cookie', ['a=1', 'b=2']);
  res.writeHead(201, { 'content-type': 'application/json' });
  res.end('{"incidentId":"I-1"}');
}

describe.each(WIRES.filter((w) => w.name !== 'fetch wire'))('$name', ({ options: wire }) => {
  it('an IPv6 baseUrl ([::1]) is connected to as that address: refused, not a host name not found', async () => {
    const client = makeClient('http://[::1]:1', { ...wire, maxRetries: 0 });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(JSON.stringify((error as Error).cause)).not.toContain('ENOTFOUND');
    expect((error as Error).message).not.toMatch(/ENOTFOUND|EAI_AGAIN/);
    await client.close();
  });

  it('an IPv6 baseUrl ([::1]) reaches a server listening on ::1 only', async () => {
    const server = createHttpServer((_req, res) => created(res));
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = makeClient(`http://[::1]:${port}`, { ...wire, maxRetries: 0 });
    try {
      await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'I-1' });
    } finally {
      await client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a header the server sent twice is one value, joined with ", "', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => created(res)),
      async (server) => {
        const client = makeClient(server.url, wire);
        const { headers } = await client.incidents.create(incident).withResponse();
        expect(headers['set-cookie']).toBe('a=1, b=2');
        await client.close();
      },
    );
  });
});
