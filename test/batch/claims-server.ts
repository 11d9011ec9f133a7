import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { causeOfLoss } from '../helpers/fixtures.js';

/** What the server answers to one POST /incidents. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering, in ms. */
  delayMs?: number;
  /** Answer only once this settles. */
  hold?: Promise<void>;
}

/**
 * A local Claims API for batch tests: POST /incidents (the claim's key is its `description`),
 * GET /metadata/incidents (one form with `claim_form:Cause_Of_Loss`), POST /attachments.
 * Counts how often each key arrived and how many POSTs were in flight at once.
 */
export interface ClaimsServer {
  url: string;
  /** Keys in the order their POST arrived (a key twice means filed twice). */
  received: string[];
  /** Arrival time (ms since epoch) of each POST /incidents. */
  arrivals: number[];
  /** The `authorization` header of each POST /incidents, in arrival order. */
  authorizations: string[];
  /** Keys whose answer was written, in order. */
  answered: string[];
  metadataLookups: number;
  uploads: number;
  /** The file names of each upload request, in order. */
  uploadNames: string[][];
  maxInFlight: number;
  /** The answer of GET /metadata/programmes; unset: 404 (an API without it). */
  programmes?: unknown;
  /** Decides the answer to the n-th (0-based) POST /incidents. */
  answer: (key: string, n: number) => Answer;
  close(): Promise<void>;
}

export const defaultAnswer = (key: string): Answer => ({
  status: 201,
  body: { incidentId: `INC-${key}` },
  headers: { 'x-request-id': `req-${key}` },
});

export async function startClaimsServer(): Promise<ClaimsServer> {
  const sockets = new Set<Socket>();
  let inFlight = 0;
  const state: ClaimsServer = {
    url: '',
    received: [],
    arrivals: [],
    authorizations: [],
    answered: [],
    metadataLookups: 0,
    uploads: 0,
    uploadNames: [],
    maxInFlight: 0,
    answer: defaultAnswer,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/metadata/incidents') {
      state.metadataLookups++;
      return send(res, { status: 200, body: [causeOfLoss] });
    }
    if (req.method === 'GET' && url.pathname === '/metadata/programmes' && state.programmes !== undefined) {
      return send(res, { status: 200, body: state.programmes });
    }
    if (req.method === 'POST' && url.pathname === '/attachments') {
      state.uploads++;
      const names = [
        ...Buffer.concat(chunks)
          .toString('latin1')
          .matchAll(/filename="([^"]*)"/g),
      ];
      state.uploadNames.push(names.map((m) => m[1] as string));
      return send(res, {
        status: 201,
        body: names.map((m, i) => ({
          filename: m[1],
          attachmentId: `3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0${i}`,
        })),
      });
    }
    if (req.method === 'POST' && url.pathname === '/incidents') {
      const key = String(
        (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { description: string }).description,
      );
      const n = state.received.length;
      state.received.push(key);
      state.arrivals.push(Date.now());
      state.authorizations.push(req.headers.authorization ?? '');
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      const answer = state.answer(key, n);
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      if (answer.hold) await answer.hold;
      inFlight--;
      send(res, answer);
      state.answered.push(key);
      return;
    }
    send(res, { status: 404, body: { message: 'no such route' } });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function send(res: ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  res.end(text);
}

/** A valid claim line whose description is its key. */
export function claimLine(key: string, extra: Record<string, unknown> = {}) {
  return {
    key,
    incident: {
      programmeCode: 'PRG',
      policyCountry: 'GB',
      policyTypeCode: 'T1',
      incidentDate: '2026-01-31',
      description: key,
      ...extra,
    },
  };
}
