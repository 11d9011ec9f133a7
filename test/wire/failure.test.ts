/**
 * What each wire says when an attempt fails: the error class, the exact message (it ends up in
 * logs and support tickets), and the `cause` that carries the platform's own error. The two
 * wires word a failure alike; the default one adds undici's error code.
 */
import { Agent, type Dispatcher, errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { ClaimsConnectionError, ClaimsTimeoutError, outcomeOf } from '../../src/index.js';
import { closedPort, failure, makeClient, rawFaultServer, scenario, WIRES } from '../faults/fault-server.js';
import { event, incident } from '../helpers/fixtures.js';

const FETCH = WIRES.find((w) => w.name === 'fetch wire');
/** How a message ends when the request may have reached the server (outcome `unknown`). */
const MAYBE = ' (the request may have been processed)';
/**
 * The platform's code of a failure, which the client's own wires append to their messages:
 * undici's for every failure, node:http's socket codes (its timeouts are the SDK's own, no code).
 */
const suffix = (wire: (typeof WIRES)[number], code: string): string =>
  wire === FETCH || (wire.name === 'http wire' && code.startsWith('UND_ERR_')) ? '' : ` (${code})`;

describe.each(WIRES)('$name', (wire) => {
  it('connection refused: "<method> <url>: Connection failed: <the platform’s message>"', async () => {
    const port = await closedPort();
    const client = makeClient(`http://127.0.0.1:${port}`, { ...wire.options, maxRetries: 0 });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(error).not.toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toBe(
      `POST http://127.0.0.1:${port}/incidents: Connection failed: connect ECONNREFUSED 127.0.0.1:${port}${suffix(wire, 'ECONNREFUSED')}`,
    );
    // The platform's error is kept: undici's own, or fetch's TypeError with undici's inside.
    const cause = (error as Error).cause as Error & { code?: string; cause?: Error & { code?: string } };
    const platform = wire === FETCH ? cause.cause : cause;
    expect(platform?.code).toBe('ECONNREFUSED');
    if (wire === FETCH) expect(cause).toBeInstanceOf(TypeError);
  });

  it('no answer: "Request timed out: no progress for <timeoutMs> ms"', async () => {
    await scenario(
      rawFaultServer(() => undefined),
      async (server) => {
        const client = makeClient(server.url, { ...wire.options, timeoutMs: 150, maxRetries: 0 });
        const { error } = await failure(() => client.events.create('I-1', event));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toBe(
          `POST ${server.url}/incidents/I-1/events: Request timed out: no progress for 150 ms${suffix(wire, 'UND_ERR_HEADERS_TIMEOUT')}${MAYBE}`,
        );
        expect((error as Error).cause).toBeInstanceOf(Error);
        expect(outcomeOf(error)).toBe('unknown');
      },
    );
  });

  it('a 2xx body that stops: the same timeout, counted from the last chunk; processed (a 2xx answer had begun)', async () => {
    await scenario(
      rawFaultServer((_hit, socket) => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n[');
      }),
      async (server) => {
        const client = makeClient(server.url, { ...wire.options, timeoutMs: 150, maxRetries: 0 });
        const { error } = await failure(() => client.subscriptions.list(1));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toBe(
          `GET ${server.url}/webhooks/1/subscriptions: Request timed out: no progress for 150 ms${suffix(wire, 'UND_ERR_BODY_TIMEOUT')}`,
        );
        expect(outcomeOf(error)).toBe('processed');
      },
    );
  });
});

/** A dispatcher whose every request fails with `error`, for the default wire. */
function failingDispatcher(error: Error): Agent {
  return new Agent({ connect: (_options, callback) => queueMicrotask(() => callback(error, null)) });
}

describe('the default wire, failures of a dispatcher', () => {
  const base = { baseUrl: 'http://127.0.0.1:9', accessToken: 'tok', maxRetries: 0 };

  it('undici’s connect timeout: ClaimsTimeoutError naming the dispatcher’s connect timeout', async () => {
    const agent = failingDispatcher(new errors.ConnectTimeoutError());
    const client = makeClient(base.baseUrl, { ...base, dispatcher: agent });
    const { error } = await failure(() => client.incidents.create(incident));
    await agent.close();
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toBe(
      "POST http://127.0.0.1:9/incidents: Connection timed out: the dispatcher's connect timeout passed (UND_ERR_CONNECT_TIMEOUT)",
    );
    expect((error as Error).cause).toBeInstanceOf(errors.ConnectTimeoutError);
    expect(outcomeOf(error)).toBe('not_sent');
  });

  it('an error without a code: its message alone, no code appended', async () => {
    const boom = new Error('socket hang up somewhere');
    const dispatcher = {
      request: () => Promise.reject(boom),
    } as unknown as Dispatcher;
    const client = makeClient(base.baseUrl, { ...base, dispatcher });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(error).not.toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toBe(
      `POST http://127.0.0.1:9/incidents: Connection failed: socket hang up somewhere${MAYBE}`,
    );
    expect((error as Error).cause).toBe(boom);
  });

  it('a numeric code: left out of the message', async () => {
    const dispatcher = {
      request: () => Promise.reject(Object.assign(new Error('odd failure'), { code: 42 })),
    } as unknown as Dispatcher;
    const client = makeClient(base.baseUrl, { ...base, dispatcher });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(error).not.toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toBe(
      `POST http://127.0.0.1:9/incidents: Connection failed: odd failure${MAYBE}`,
    );
  });
});

describe('the fetch wire, failures of a user’s fetch', () => {
  const base = { baseUrl: 'http://127.0.0.1:9', accessToken: 'tok', maxRetries: 0 };

  it('an error without a cause: its own message', async () => {
    const boom = new TypeError('Failed to fetch');
    const client = makeClient(base.baseUrl, { ...base, fetch: () => Promise.reject(boom) });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect((error as Error).message).toBe(
      `POST http://127.0.0.1:9/incidents: Connection failed: Failed to fetch${MAYBE}`,
    );
    expect((error as Error).cause).toBe(boom);
  });

  it('an error with a cause: the cause’s message, the error itself kept as cause', async () => {
    const boom = new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND claims.invalid') });
    const client = makeClient(base.baseUrl, { ...base, fetch: () => Promise.reject(boom) });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect((error as Error).message).toBe(
      `POST http://127.0.0.1:9/incidents: Connection failed: getaddrinfo ENOTFOUND claims.invalid${MAYBE}`,
    );
    expect((error as Error).cause).toBe(boom);
  });

  it('a rejection with a plain string: said as it is', async () => {
    const client = makeClient(base.baseUrl, { ...base, fetch: () => Promise.reject('offline') });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect((error as Error).message).toBe(
      `POST http://127.0.0.1:9/incidents: Connection failed: offline${MAYBE}`,
    );
  });
});
