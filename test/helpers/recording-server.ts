import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** A request as the server saw it. */
export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** `body` parsed as JSON, when it is JSON. */
  json: unknown;
}

export type Handler = (req: Recorded, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

/** A real local HTTP server on 127.0.0.1 that records every request and answers with `handler`. */
export interface RecordingServer {
  url: string;
  requests: Recorded[];
  /** Replaces the handler for the next requests. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

/** Answers JSON with a status. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

export async function startRecordingServer(
  handler: Handler = (_r, res) => json(res, 200, {}),
): Promise<RecordingServer> {
  let current = handler;
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of raw) chunks.push(chunk as Buffer);
    } catch {
      // The client went away mid-body (an upload the SDK stopped): nothing whole to record or
      // answer. Left uncaught, it surfaced as an unhandled rejection in a later test.
      return;
    }
    const body = Buffer.concat(chunks);
    const url = new URL(raw.url ?? '/', 'http://127.0.0.1');
    let parsed: unknown;
    try {
      parsed = body.length ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    const recorded: Recorded = {
      method: raw.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: raw.headers,
      body,
      json: parsed,
    };
    requests.push(recorded);
    try {
      await current(recorded, res, raw);
    } catch (error) {
      if (!res.headersSent) json(res, 599, { message: String(error) });
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const answerEmptyJson: Handler = (_r, res) => json(res, 200, {});

/**
 * A recording server for the test file that calls it: started before its tests, emptied and
 * given back its default handler (200 `{}`) after each, closed after all of them.
 */
export function useRecordingServer(): RecordingServer {
  let current: RecordingServer | undefined;
  const get = (): RecordingServer => {
    if (!current) throw new Error('useRecordingServer: the server starts in beforeAll');
    return current;
  };
  beforeAll(async () => {
    current = await startRecordingServer(answerEmptyJson);
  });
  afterEach(() => {
    get().requests.length = 0;
    get().handle(answerEmptyJson);
  });
  afterAll(() => get().close());
  return {
    get url() {
      return get().url;
    },
    get requests() {
      return get().requests;
    },
    handle: (handler) => get().handle(handler),
    close: () => get().close(),
  };
}
