/**
 * Servers that misbehave on purpose, on 127.0.0.1, plus the checks every fault test makes:
 * attempts seen, time taken, no leaked sockets or timers, and no repeated POST that the
 * server may already have acted on.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server, type Socket } from 'node:net';
import { expect } from 'vitest';
import { ClaimsClient, type ClaimsClientOptions } from '../../src/index.js';
import { WIRE_CHOICE, type WireChoice } from '../../src/wire/cold-start-wire.js';

export const TOKEN = 'tok_faults_5ecr3t_value';

/** One request as the server saw it. */
export interface Hit {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body, as far as it was read (raw servers read it whole before answering). */
  body: Buffer;
  /**
   * False when the server's answer proves it did not act on the request (a 429, a 401);
   * true whenever it may have (it answered 2xx/5xx, stalled, or cut the connection).
   */
  mayHaveProcessed: boolean;
}

export interface FaultServer {
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

export interface WireCase {
  name: string;
  options: Partial<ClaimsClientOptions> & { [WIRE_CHOICE]?: WireChoice };
}

/**
 * The wires every fault is tried on: undici, `node:http` (the cold-start wire's first calls;
 * `WIRE_CHOICE` keeps a client on each for all its calls) and a plain `fetch`.
 */
export const WIRES: readonly WireCase[] = [
  { name: 'undici wire', options: { [WIRE_CHOICE]: 'undici' } },
  { name: 'http wire', options: { [WIRE_CHOICE]: 'http' } },
  { name: 'fetch wire', options: { fetch: globalThis.fetch } },
];

export function makeClient(url: string, options: Partial<ClaimsClientOptions> = {}): ClaimsClient {
  return new ClaimsClient({ baseUrl: url, accessToken: TOKEN, timeoutMs: 200, maxRetries: 2, ...options });
}

function track(server: Server, sockets: Set<Socket>): void {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client that resets us is part of the game; an unhandled 'error' would crash the worker.
    socket.on('error', () => undefined);
  });
}

async function listen(server: Server, sockets: Set<Socket>, hits: Hit[]): Promise<FaultServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type HttpFault = (hit: Hit, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * A `node:http` server calling `fault` for each request. The body is read whole first unless
 * `readBody` is false (then `hit.body` stays empty and the fault owns the request stream).
 */
export async function httpFaultServer(fault: HttpFault, { readBody = true } = {}): Promise<FaultServer> {
  const hits: Hit[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer(async (req, res) => {
    const hit: Hit = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.alloc(0),
      mayHaveProcessed: true,
    };
    hits.push(hit);
    if (readBody) {
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of req) chunks.push(chunk as Buffer);
      } catch {
        return; // the client went away mid-body
      }
      hit.body = Buffer.concat(chunks);
    }
    await fault(hit, req, res);
  });
  // Keep-alive sockets idle longer than our tests; close() destroys them anyway.
  server.keepAliveTimeout = 5_000;
  track(server, sockets);
  return listen(server, sockets, hits);
}

export type RawFault = (hit: Hit, socket: Socket) => void;

/**
 * A `node:net` server that reads each request head (and a `content-length` body), then hands
 * the bare socket to `fault`, which writes whatever bytes it likes, or nothing.
 */
export async function rawFaultServer(fault: RawFault): Promise<FaultServer> {
  const hits: Hit[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    let buffer = Buffer.alloc(0);
    // Parses requests one after another, so a keep-alive connection can carry several.
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const [method = '', path = ''] = (head[0] ?? '').split(' ');
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length - end - 4 < length) return;
        const hit: Hit = {
          method,
          path,
          headers,
          body: buffer.subarray(end + 4, end + 4 + length),
          mayHaveProcessed: true,
        };
        buffer = buffer.subarray(end + 4 + length);
        hits.push(hit);
        fault(hit, socket);
      }
    });
  });
  track(server, sockets);
  return listen(server, sockets, hits);
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Sends a JSON answer with its exact length and `connection: close` over a raw socket. */
export function rawAnswer(socket: Socket, status: number, body: string, extra = ''): void {
  socket.end(
    `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n${extra}\r\n${body}`,
  );
}

/** What the event loop is kept alive by: counts of timers and sockets. */
export function liveHandles(): { timers: number; sockets: number } {
  let timers = 0;
  let sockets = 0;
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'Timeout') timers++;
    if (kind === 'TCPSocketWrap' || kind === 'TCPWRAP' || kind === 'TCPServerWrap') sockets++;
  }
  return { timers, sockets };
}

/**
 * Asserts that nothing the scenario started still keeps the process alive: after the server is
 * closed, timers and sockets are back to what they were before (waiting a few ms for closes).
 */
export async function expectNoLeaks(before: { timers: number; sockets: number }): Promise<void> {
  const deadline = Date.now() + 1_000;
  let now = liveHandles();
  while ((now.timers > before.timers || now.sockets > before.sockets) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    now = liveHandles();
  }
  // The wait above used a timer of its own, already fired; compare what is left.
  expect(
    now.sockets,
    `sockets left open: ${process.getActiveResourcesInfo().join(', ')}`,
  ).toBeLessThanOrEqual(before.sockets);
  expect(
    now.timers,
    `timers left running: ${process.getActiveResourcesInfo().join(', ')}`,
  ).toBeLessThanOrEqual(before.timers);
}

/**
 * The claims rule: a POST is never sent again once the server may have acted on it. Every POST
 * but the last must have been answered in a way that proves it was not processed.
 */
export function expectNoDuplicatePost(hits: readonly Hit[]): void {
  const posts = hits.filter((hit) => hit.method === 'POST');
  posts.slice(0, -1).forEach((hit, i) => {
    expect(hit.mayHaveProcessed, `POST #${i + 1} may have been processed, yet it was sent again`).toBe(false);
  });
}

/** Runs `call`, returning what it rejected with and how long it took. */
export async function failure(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await call();
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error('expected the call to fail, it succeeded');
}

/**
 * Runs one fault scenario: starts the server, runs `body`, closes the server, then checks no
 * duplicate POST and no leaked handle.
 */
export async function scenario(
  server: Promise<FaultServer>,
  body: (server: FaultServer) => Promise<void>,
): Promise<void> {
  const before = liveHandles();
  const started = await server;
  try {
    await body(started);
    expectNoDuplicatePost(started.hits);
  } finally {
    await started.close();
  }
  await expectNoLeaks(before);
}
