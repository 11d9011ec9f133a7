/**
 * `HttpWriteWatch`, the node:http wire's proof that no byte of a request left on a kept-alive
 * socket: it claims so only for a write error that errored a healthy socket, and claims nothing
 * before it has looked (a tick after `'socket'`). Then the wire itself: a POST the server read
 * on a kept-alive connection and answered with an RST may have been acted on, so its failure
 * says it may have left (`sent: 'maybe'`), not a dead connection to send again on.
 */
import { type ClientRequest, createServer, Agent as HttpAgent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WireFailure } from '../../src/wire/failure.js';
import { OwnHttpAgent, ownHttpAgent } from '../../src/wire/http-agent.js';
import { httpWire } from '../../src/wire/http-wire.js';
import { HttpWriteWatch } from '../../src/wire/http-write-watch.js';
import type { WireRequest } from '../../src/wire/types.js';

const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));

/** A socket whose `errored` the test sets, as node:net would. */
function socketErroredWith(error: (Error & { syscall?: string }) | null): Socket {
  const socket = new Socket();
  Object.defineProperty(socket, 'errored', { get: () => error, configurable: true });
  return socket;
}

describe('HttpWriteWatch', () => {
  it('claims nothing before its look, a tick after the socket was handed out', async () => {
    const error = Object.assign(new Error('write ECONNRESET'), { code: 'ECONNRESET', syscall: 'write' });
    const socket = new Socket();
    let errored: Error | null = null;
    Object.defineProperty(socket, 'errored', { get: () => errored, configurable: true });
    const watch = new HttpWriteWatch(socket);
    errored = error;
    expect(watch.neverWritten).toBe(false);
    await tick();
    expect(watch.neverWritten).toBe(true);
  });

  it('a socket that had failed before it was handed out: not claimed, whatever its error', async () => {
    const error = Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' });
    const watch = new HttpWriteWatch(socketErroredWith(error));
    await tick();
    expect(watch.neverWritten).toBe(false);
  });

  it('a socket that no write errored: not claimed', async () => {
    const watch = new HttpWriteWatch(socketErroredWith(null));
    await tick();
    expect(watch.neverWritten).toBe(false);
  });

  it('a socket errored by a read (an RST after the request left): not claimed', async () => {
    const socket = new Socket();
    let errored: Error | null = null;
    Object.defineProperty(socket, 'errored', { get: () => errored, configurable: true });
    const watch = new HttpWriteWatch(socket);
    errored = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
    await tick();
    expect(watch.neverWritten).toBe(false);
  });
});

describe('the node:http wire, a kept-alive connection reset after the server read the POST', () => {
  it('fails as maybe sent, not a dead connection to send again on, and the server saw it once', async () => {
    let posts = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        posts++;
        if (posts === 1) {
          res.writeHead(201, { 'content-type': 'application/json', 'keep-alive': 'timeout=60' });
          res.end('{}');
        } else req.socket.resetAndDestroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const signal = { aborted: false, reason: undefined, addEventListener() {}, removeEventListener() {} };
    const post: WireRequest = {
      url: `${origin}/v1/incidents`,
      origin,
      path: '/v1/incidents',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n":1}',
      signal,
      timeoutMs: 2_000,
    };
    const wire = httpWire(ownHttpAgent(undefined));
    try {
      await (await wire(post)).text(1_000);
      const error = await wire(post).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WireFailure);
      expect(error).toMatchObject({ kind: 'connection', sent: 'maybe' });
      expect(posts).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** The kernel refuses the socket's next write, taking no byte: `ENOBUFS`, not a closed connection. */
function refuseWrites(socket: Socket): void {
  const refuse = (_data: unknown, callback: (error: Error) => void) =>
    callback(Object.assign(new Error('write ENOBUFS'), { code: 'ENOBUFS', errno: -105, syscall: 'write' }));
  Object.assign(socket, {
    _write: (_c: unknown, _e: unknown, cb: (error: Error) => void) => refuse(_c, cb),
    _writev: refuse,
  });
}

describe('the node:http wire, a kept-alive connection reset after its look, before its write', () => {
  it('fails as a dead connection, and its pool is dropped: the next call opens a fresh connection; another refused write is unwritten and keeps the pool', async () => {
    const serverSockets = new Map<number, Socket>();
    let connections = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'keep-alive': 'timeout=60' });
        res.end('{}');
      });
    });
    server.on('connection', (socket: Socket) => {
      connections++;
      serverSockets.set(socket.remotePort ?? -1, socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let next: 'reset' | 'refuse' | undefined;
    /**
     * Resets the server's end of the socket it hands out, as a close arriving during a freeze
     * would; or has the kernel refuse the write for another reason (no buffer space).
     */
    class ResettingAgent extends HttpAgent {
      override reuseSocket(socket: Socket, req: ClientRequest): void {
        if (next === 'reset') serverSockets.get(socket.localPort ?? -1)?.resetAndDestroy();
        if (next === 'refuse') refuseWrites(socket);
        next = undefined;
        super.reuseSocket(socket, req);
      }
    }
    const wire = httpWire(new OwnHttpAgent(() => new ResettingAgent({ keepAlive: true })));
    const signal = { aborted: false, reason: undefined, addEventListener() {}, removeEventListener() {} };
    const post = (n: number): WireRequest => ({
      url: `${origin}/v1/incidents`,
      origin,
      path: '/v1/incidents',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"n":${n}}`,
      signal,
      timeoutMs: 2_000,
    });
    try {
      // Two kept-alive connections in the pool.
      await Promise.all([1, 2].map(async (n) => (await wire(post(n))).text(1_000)));
      expect(connections).toBe(2);
      next = 'reset';
      const error = await wire(post(3)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WireFailure);
      expect(error).toMatchObject({ kind: 'connection', sent: 'dead_connection' });
      // The other kept-alive connection, as old, is not used: a new one is opened.
      await (await wire(post(4))).text(1_000);
      expect(connections).toBe(3);
      // A write refused for another reason proves nothing about the pool: it is kept.
      await Promise.all([5, 6].map(async (n) => (await wire(post(n))).text(1_000)));
      expect(connections).toBe(4);
      next = 'refuse';
      const refused = await wire(post(7)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toMatchObject({ kind: 'connection', sent: 'not_written' });
      await (await wire(post(8))).text(1_000);
      expect(connections).toBe(4);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
