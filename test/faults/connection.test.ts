/**
 * Network faults against real sockets: refused, reset, silent, stalled and truncated answers.
 * Each case checks the error class and fields, attempts seen, time taken, no leaks, and that
 * a POST is never repeated once the server may have acted on it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClaimsConnectionError, ClaimsResponseValidationError, ClaimsTimeoutError } from '../../src/index.js';
import { event, incident } from '../helpers/fixtures.js';
import { capturePauses } from '../helpers/pauses.js';
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

// The backoffs between attempts are captured (and not waited out); the timeouts are the wires'
// real timers on real sockets, so only their lower bounds are checked.
afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(WIRES)('$name', ({ options: wire }) => {
  it('connection refused: ClaimsConnectionError (ECONNREFUSED in cause); a POST is retried, as never sent', async () => {
    const port = await closedPort();
    const client = makeClient(`http://127.0.0.1:${port}`, { ...wire, maxRetries: 1 });
    const pauses = capturePauses();
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(error).not.toBeInstanceOf(ClaimsTimeoutError);
    expect(JSON.stringify(causeCodes(error))).toMatch(/ECONNREFUSED/);
    // one backoff of 0.5 s minus up to 25% jitter shows the second attempt was made
    expectOneBackoff(pauses);
  });

  it('reset before the answer: a POST is sent once (the server may have acted on it)', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => socket.resetAndDestroy()),
      async (server) => {
        const client = makeClient(server.url, wire);
        const pauses = capturePauses();
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsConnectionError);
        expect(error).not.toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).cause).toBeDefined();
        expect(server.hits).toHaveLength(1);
        expect(pauses).toEqual([]);
      },
    );
  });

  it('reset before the answer: a GET is retried maxRetries times, then fails', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => socket.resetAndDestroy()),
      async (server) => {
        const client = makeClient(server.url, { ...wire, maxRetries: 1 });
        const pauses = capturePauses();
        const { error } = await failure(() => client.subscriptions.list(7));
        expect(error).toBeInstanceOf(ClaimsConnectionError);
        expect(server.hits.map((h) => `${h.method} ${h.path}`)).toEqual([
          'GET /webhooks/7/subscriptions',
          'GET /webhooks/7/subscriptions',
        ]);
        expectOneBackoff(pauses);
      },
    );
  });

  it('reset mid-body: ClaimsConnectionError, a POST is not repeated', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => {
        socket.write(
          'HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{"incidentId":"I-',
        );
        setTimeout(() => socket.resetAndDestroy(), 20);
      }),
      async (server) => {
        const client = makeClient(server.url, wire);
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsConnectionError);
        expect(error).not.toBeInstanceOf(ClaimsTimeoutError);
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('a server that never answers: ClaimsTimeoutError after timeoutMs; a POST is sent once', async () => {
    await scenario(
      rawFaultServer(() => undefined),
      async (server) => {
        const client = makeClient(server.url, { ...wire, timeoutMs: 200 });
        const { error, ms } = await failure(() => client.events.create('I-1', event));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect(error).toBeInstanceOf(ClaimsConnectionError);
        expect((error as Error).message).toMatch(/no progress for 200 ms/);
        expect(server.hits).toHaveLength(1);
        expect(server.hits[0]?.path).toBe('/incidents/I-1/events');
        expect(ms).toBeGreaterThanOrEqual(190);
      },
    );
  });

  it('a server that never answers: a GET times out on every attempt (1 + maxRetries)', async () => {
    await scenario(
      rawFaultServer(() => undefined),
      async (server) => {
        const client = makeClient(server.url, { ...wire, timeoutMs: 150, maxRetries: 1 });
        const pauses = capturePauses();
        const { error, ms } = await failure(() => client.subscriptions.list(1));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toMatch(/no progress for 150 ms/);
        expect(server.hits).toHaveLength(2);
        // two timeouts, and one backoff between them
        expect(ms).toBeGreaterThanOrEqual(2 * 150 - 20);
        expectOneBackoff(pauses);
      },
    );
  });

  it('headers, then a stalled body: ClaimsTimeoutError; a POST is not repeated', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => {
        socket.write(
          'HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{"inc',
        );
      }),
      async (server) => {
        const client = makeClient(server.url, { ...wire, timeoutMs: 200 });
        const { error, ms } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toMatch(/no progress for 200 ms/);
        expect(server.hits).toHaveLength(1);
        expect(ms).toBeGreaterThanOrEqual(190);
      },
    );
  });

  it('headers, then a stalled body: a GET is retried and can then succeed', async () => {
    let n = 0;
    await scenario(
      rawFaultServer((_hit, socket) => {
        if (n++ === 0) {
          socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n[');
          return;
        }
        rawAnswer(socket, 200, '[]');
      }),
      async (server) => {
        const client = makeClient(server.url, { ...wire, timeoutMs: 200 });
        await expect(client.subscriptions.list(1)).resolves.toEqual([]);
        expect(server.hits).toHaveLength(2);
      },
    );
  });

  it('truncated JSON (connection closed before content-length): ClaimsConnectionError, no repeat', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => {
        socket.end(
          'HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"incidentId":"I-1"',
        );
      }),
      async (server) => {
        const client = makeClient(server.url, wire);
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsConnectionError);
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('truncated JSON (complete by length, but cut): ClaimsResponseValidationError carrying the text', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => rawAnswer(socket, 201, '{"incidentId":"I-')),
      async (server) => {
        const client = makeClient(server.url, wire);
        const { error } = await failure(() => client.incidents.create(incident));
        expect(error).toBeInstanceOf(ClaimsResponseValidationError);
        expect((error as ClaimsResponseValidationError).body).toBe('{"incidentId":"I-');
        expect((error as ClaimsResponseValidationError).issues[0]?.message).toMatch(/not valid JSON/);
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('the token is in no connection error, its message or its cause chain', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => socket.resetAndDestroy()),
      async (server) => {
        const { error } = await failure(() => makeClient(server.url, wire).incidents.create(incident));
        const seen = new Set<unknown>();
        for (let e: unknown = error; e && !seen.has(e); e = (e as { cause?: unknown }).cause) {
          seen.add(e);
          expect(String(e)).not.toContain(TOKEN);
          expect(JSON.stringify(e)).not.toContain(TOKEN);
        }
      },
    );
  });

  it('a keep-alive connection closed by the server between calls is not a failure', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      }),
      async (server) => {
        const client = makeClient(server.url, wire);
        for (let i = 0; i < 3; i++) await expect(client.subscriptions.list(1)).resolves.toEqual([]);
        expect(server.hits).toHaveLength(3);
      },
    );
  });
});

/** The `code`s along an error's cause chain (fetch nests the socket error two levels down). */
function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
}

/** One pause between two attempts: the first backoff, 0.5 s less up to 25% jitter. */
function expectOneBackoff(pauses: number[]): void {
  expect(pauses).toHaveLength(1);
  expect(pauses[0]).toBeGreaterThanOrEqual(375);
  expect(pauses[0]).toBeLessThanOrEqual(500);
}
