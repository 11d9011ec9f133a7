/**
 * Calling a wire directly, as the transport does: a call's signal that counts its listeners, a
 * local HTTP server that records each request with the connection it came on, and a request
 * to it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WireRequest, WireSignal } from '../../src/wire/types.js';

/** A call's signal that counts the abort listeners it holds, `once` honoured as a platform's. */
export class CountingSignal implements WireSignal {
  aborted = false;
  reason: unknown;
  readonly #listeners = new Map<() => void, boolean>();

  get listeners(): number {
    return this.#listeners.size;
  }

  addEventListener(_type: 'abort', listener: () => void, options?: { once?: boolean }): void {
    if (_type === 'abort') this.#listeners.set(listener, options?.once === true);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (_type === 'abort') this.#listeners.delete(listener);
  }

  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    for (const [listener, once] of [...this.#listeners]) {
      if (once) this.#listeners.delete(listener);
      listener();
    }
  }
}

export interface Local {
  origin: string;
  /** Requests seen, with the socket each came on. */
  seen: { req: IncomingMessage; body: string; socket: number }[];
  close(): Promise<void>;
}

const open: Local[] = [];
/** Closes the servers `local()` opened; for an `afterEach`. */
export async function closeLocals(): Promise<void> {
  await Promise.all(open.splice(0).map((server) => server.close()));
}

export async function local(
  handle: (req: IncomingMessage, res: ServerResponse, count: number) => void,
): Promise<Local> {
  const sockets = new Map<Socket, number>();
  const seen: Local['seen'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ req, body, socket: sockets.get(req.socket) ?? -1 });
      handle(req, res, seen.length);
    });
  });
  server.on('connection', (socket) => {
    sockets.set(socket, sockets.size + 1);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const handle_: Local = {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close() {
      for (const socket of sockets.keys()) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  open.push(handle_);
  return handle_;
}

export function request(origin: string, signal: WireSignal, more: Partial<WireRequest> = {}): WireRequest {
  return {
    url: `${origin}/v1/incidents`,
    origin,
    path: '/v1/incidents',
    method: 'GET',
    headers: { accept: 'application/json' },
    body: undefined,
    signal,
    timeoutMs: 300,
    ...more,
  };
}

export const ok = (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
};

export async function rejection(promise: Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    return { error: error as Error, ms: performance.now() - started };
  }
  throw new Error('expected a rejection');
}
