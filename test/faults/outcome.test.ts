/**
 * Every failure says what the server may have done with the call (`outcome`, `outcomeOf`), on
 * both wires and on the edge build (the runtime's fetch, web-stream uploads): the one witness
 * a caller has, since the API cannot read a claim back.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ClaimsClientOptions } from '../../src/client.js';
import { ClaimsClient as EdgeClient } from '../../src/edge.js';
import {
  ClaimsApiError,
  type ClaimsClient,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  outcomeOf,
} from '../../src/index.js';
import { incident } from '../helpers/fixtures.js';
import {
  closedPort,
  failure,
  httpFaultServer,
  makeClient,
  rawAnswer,
  rawFaultServer,
  scenario,
  TOKEN,
  WIRES,
} from './fault-server.js';

type MakeClient = (url: string, options?: Partial<ClaimsClientOptions>) => ClaimsClient | EdgeClient;

/** The Node entry on each wire, and the edge entry (what workerd, Deno and Bun load). */
const CLIENTS: ReadonlyArray<{ name: string; make: MakeClient }> = [
  ...WIRES.map(({ name, options }) => ({
    name,
    make: (url: string, extra: Partial<ClaimsClientOptions> = {}) =>
      makeClient(url, { ...options, ...extra }),
  })),
  {
    name: 'edge build',
    make: (url, extra = {}) =>
      new EdgeClient({ baseUrl: url, accessToken: TOKEN, timeoutMs: 200, maxRetries: 2, ...extra }),
  },
];

const MAY = 'the request may have been processed';

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

describe('outcomeOf', () => {
  it('is undefined for anything that did not come from a call', () => {
    expect(outcomeOf(new Error('x'))).toBeUndefined();
    expect(outcomeOf(undefined)).toBeUndefined();
    expect(outcomeOf('boom')).toBeUndefined();
    expect(outcomeOf(new DOMException('x', 'AbortError'))).toBeUndefined();
  });

  it('reads the outcome of an error from either build (a registry symbol)', () => {
    const foreign = Object.assign(new Error('from the other build'), {
      [Symbol.for('claims-notification-sdk.outcome')]: 'unknown',
    });
    expect(outcomeOf(foreign)).toBe('unknown');
  });

  it('each class has its default', () => {
    expect(new ClaimsError('x').outcome).toBe('not_sent');
    expect(new ClaimsValidationError([{ path: 'a', message: 'b' }]).outcome).toBe('not_sent');
    expect(new ClaimsResponseValidationError({}, [], 'POST /x').outcome).toBe('processed');
    const reset = new ClaimsConnectionError('reset', {
      cause: Object.assign(new Error('r'), { code: 'ECONNRESET' }),
    });
    expect(reset.outcome).toBe('unknown');
    expect(reset.message).toContain(MAY);
    // The outcome is what the error is built with, never guessed from its cause.
    const refusedCause = Object.assign(new Error('r'), { code: 'ECONNREFUSED' });
    expect(new ClaimsConnectionError('refused', { cause: refusedCause }).outcome).toBe('unknown');
    const refused = new ClaimsConnectionError('refused', { cause: refusedCause, outcome: 'not_sent' });
    expect(refused.outcome).toBe('not_sent');
    expect(refused.message).toBe('refused');
    expect(new ClaimsTimeoutError('t').outcome).toBe('unknown');
    expect(outcomeOf(reset)).toBe('unknown');
  });
});

describe.each(CLIENTS)('$name', ({ make }) => {
  it('validation error: not_sent, nothing reaches the server', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => send(res, 201, '{"incidentId":"I-1"}')),
      async (server) => {
        const client = make(server.url);
        const { error } = await failure(() => client.incidents.create({ ...incident, incidentDate: 'nope' }));
        expect(error).toBeInstanceOf(ClaimsValidationError);
        expect(outcomeOf(error)).toBe('not_sent');
        expect(server.hits).toHaveLength(0);
      },
    );
  });

  it('connection refused: not_sent, and the message does not say it may have been processed', async () => {
    const port = await closedPort();
    const client = make(`http://127.0.0.1:${port}`, { maxRetries: 1 });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect((error as Error).message).not.toContain(MAY);
  });

  it.each([400, 401, 403, 404, 409, 422])('%i: rejected', async (status) => {
    await scenario(
      httpFaultServer((hit, _req, res) => {
        hit.mayHaveProcessed = false;
        send(res, status, '{"message":"no"}');
      }),
      async (server) => {
        const client = make(server.url);
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsApiError);
        expect(outcomeOf(error)).toBe('rejected');
        expect((error as ClaimsApiError).outcome).toBe('rejected');
        expect((error as Error).message).not.toContain(MAY);
      },
    );
  });

  it('429 after the last retry: rejected', async () => {
    await scenario(
      httpFaultServer((hit, _req, res) => {
        hit.mayHaveProcessed = false;
        send(res, 429, '{}', { 'retry-after': '0' });
      }),
      async (server) => {
        const client = make(server.url, { maxRetries: 1 });
        const { error } = await failure(() => client.incidents.create(incident));
        expect(outcomeOf(error)).toBe('rejected');
        expect(server.hits).toHaveLength(2);
      },
    );
  });

  it('503: unknown, the message says the request may have been processed, not re-sent', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => send(res, 503, '{"message":"down"}')),
      async (server) => {
        const client = make(server.url);
        const { error } = await failure(() => client.incidents.create(incident));
        expect(outcomeOf(error)).toBe('unknown');
        expect((error as Error).message).toContain(MAY);
        expect(String(error)).toContain(MAY);
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('a GET that got a 503 and then a 404 is unknown as a whole: the first may have acted', async () => {
    let n = 0;
    await scenario(
      httpFaultServer((_hit, _req, res) => send(res, n++ === 0 ? 503 : 404, '{}', { 'retry-after': '0' })),
      async (server) => {
        const client = make(server.url, { maxRetries: 1 });
        const { error } = await failure(() => client.subscriptions.list(1));
        expect((error as ClaimsApiError).status).toBe(404);
        expect(outcomeOf(error)).toBe('unknown');
        expect((error as Error).message).toContain(MAY);
      },
    );
  });

  it('a reset after the request was sent: unknown', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => socket.destroy()),
      async (server) => {
        const client = make(server.url);
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsConnectionError);
        expect(outcomeOf(error)).toBe('unknown');
        expect((error as Error).message).toContain(MAY);
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('a timeout after sending: unknown', async () => {
    await scenario(
      httpFaultServer(() => undefined),
      async (server) => {
        const client = make(server.url, { timeoutMs: 150 });
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect(outcomeOf(error)).toBe('unknown');
      },
    );
  });

  it('an answer cut mid-body: unknown', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => {
        socket.end(
          'HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"incid',
        );
      }),
      async (server) => {
        const client = make(server.url);
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsConnectionError);
        expect(outcomeOf(error)).toBe('unknown');
      },
    );
  });

  it('a 2xx without incidentId: processed', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => rawAnswer(socket, 201, '{"id":"x"}')),
      async (server) => {
        const client = make(server.url);
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsResponseValidationError);
        expect(outcomeOf(error)).toBe('processed');
      },
    );
  });

  it('a token provider that fails: not_sent, nothing sent', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => send(res, 201, '{"incidentId":"I-1"}')),
      async (server) => {
        const client = make(server.url, { accessToken: () => Promise.reject(new Error('vault down')) });
        const { error } = await failure(() => client.incidents.create(incident));
        expect(outcomeOf(error)).toBe('not_sent');
        expect(server.hits).toHaveLength(0);
      },
    );
  });

  it('abort before sending: AbortError, not_sent; abort after sending: unknown', async () => {
    await scenario(
      httpFaultServer(() => undefined),
      async (server) => {
        const client = make(server.url, { timeoutMs: 5_000 });
        const early = new AbortController();
        early.abort();
        const before = await failure(() => client.incidents.create(incident, { signal: early.signal }));
        expect((before.error as Error).name).toBe('AbortError');
        expect(outcomeOf(before.error)).toBe('not_sent');

        const late = new AbortController();
        const call = failure(() => client.incidents.create(incident, { signal: late.signal }));
        while (server.hits.length === 0) await new Promise((r) => setTimeout(r, 5));
        late.abort();
        const after = await call;
        expect((after.error as Error).name).toBe('AbortError');
        expect(outcomeOf(after.error)).toBe('unknown');
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('one signal shared by calls in different phases gives each its own outcome', async () => {
    await scenario(
      httpFaultServer(() => undefined),
      async (server) => {
        const client = make(server.url, { timeoutMs: 5_000 });
        const shared = new AbortController();
        const sent = failure(() => client.incidents.create(incident, { signal: shared.signal }));
        while (server.hits.length === 0) await new Promise((r) => setTimeout(r, 5));
        shared.abort(new Error('shutting down'));
        const notSent = await failure(() => client.incidents.create(incident, { signal: shared.signal }));
        const first = await sent;
        expect(outcomeOf(first.error)).toBe('unknown');
        expect(outcomeOf(notSent.error)).toBe('not_sent');
        expect(first.error).not.toBe(notSent.error);
        expect(((notSent.error as Error).cause as Error).message).toBe('shutting down');
      },
    );
  });
});
