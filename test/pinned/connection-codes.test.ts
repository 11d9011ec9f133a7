/**
 * The connection failures after which a POST may be sent again: those proving no connection was
 * opened (ECONNREFUSED, ENOTFOUND, EAI_AGAIN, EHOSTUNREACH, ENETUNREACH, undici's connect
 * timeout). They are produced here by an undici dispatcher (the client's `dispatcher` option) whose `connect` fails with the code,
 * so no traffic leaves the machine; both wires go through real undici code (the fetch wire
 * through undici's own `fetch`).
 */
import { Agent, type Dispatcher, errors, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsTimeoutError,
  outcomeOf,
} from '../../src/index.js';
import { sentOf } from '../../src/wire/attempt.js';
import { incident } from '../helpers/fixtures.js';

const NOT_CONNECTED = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'] as const;
const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT';

function failure(code: string): Error {
  if (code === CONNECT_TIMEOUT) return new errors.ConnectTimeoutError();
  return Object.assign(new Error(`connect ${code} 127.0.0.1:65000`), { code, syscall: 'connect' });
}

/** An agent whose every connection attempt fails with `code`; counts the attempts. */
function failingAgent(code: string): { agent: Agent; connects: () => number } {
  let n = 0;
  const agent = new Agent({
    connect: (_options, callback) => {
      n++;
      queueMicrotask(() => callback(failure(code), null));
    },
  });
  return { agent, connects: () => n };
}

type WireSetup = (agent: Dispatcher) => Partial<ConstructorParameters<typeof ClaimsClient>[0]>;
const WIRE_SETUPS: Array<{ name: string; setup: WireSetup }> = [
  {
    name: 'undici wire',
    setup: (agent) => ({ dispatcher: agent }),
  },
  {
    name: 'fetch wire',
    setup: (agent) => ({
      fetch: (url, init) =>
        undiciFetch(url, {
          ...(init as Parameters<typeof undiciFetch>[1]),
          dispatcher: agent,
        }) as unknown as Promise<Response>,
    }),
  },
];

describe.each(WIRE_SETUPS)('connection never opened, $name', ({ name, setup }) => {
  it.each([...NOT_CONNECTED, CONNECT_TIMEOUT])('a POST failing with %s is sent again', async (code) => {
    const { agent, connects } = failingAgent(code);
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:65000',
      accessToken: 'tok',
      maxRetries: 1,
      ...setup(agent),
    });
    const error = await client.incidents.create(incident).catch((e: unknown) => e);
    await agent.close();
    const expected =
      code === CONNECT_TIMEOUT && name === 'undici wire' ? ClaimsTimeoutError : ClaimsConnectionError;
    expect(error).toBeInstanceOf(expected);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(connects()).toBe(2);
  });

  it('a POST failing with ECONNRESET (maybe sent) is not sent again', async () => {
    const { agent, connects } = failingAgent('ECONNRESET');
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:65000',
      accessToken: 'tok',
      maxRetries: 1,
      ...setup(agent),
    });
    const error = await client.incidents.create(incident).catch((e: unknown) => e);
    await agent.close();
    expect(error).toBeInstanceOf(ClaimsError);
    expect(outcomeOf(error)).toBe('unknown');
    expect(connects()).toBe(1);
  });
});

describe('sentOf: how far a failed request got, from its codes', () => {
  const isNotConnected = (error: unknown) => sentOf(error) === 'not_connected';

  it.each([...NOT_CONNECTED, CONNECT_TIMEOUT])('%s, on the error or down its cause chain', (code) => {
    expect(isNotConnected(failure(code))).toBe(true);
    expect(isNotConnected(new TypeError('fetch failed', { cause: failure(code) }))).toBe(true);
    expect(isNotConnected(new Error('outer', { cause: new Error('middle', { cause: failure(code) }) }))).toBe(
      true,
    );
  });

  it.each(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT'])('not %s', (code) => {
    expect(sentOf(Object.assign(new Error(code), { code }))).toBe('maybe');
  });

  it('not an error without a code, nor a non-string code, nor nothing', () => {
    expect(sentOf(new Error('x'))).toBe('maybe');
    expect(sentOf({ code: 111 })).toBe('maybe');
    expect(sentOf(undefined)).toBe('maybe');
    expect(sentOf(null)).toBe('maybe');
  });

  it('looks at most five levels down the cause chain (a cycle cannot loop)', () => {
    let deep: Error = failure('ECONNREFUSED');
    for (let i = 0; i < 4; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(isNotConnected(deep)).toBe(true);
    expect(isNotConnected(new Error('level 5', { cause: deep }))).toBe(false);
    const cycle: { code?: string; cause?: unknown } = {};
    cycle.cause = cycle;
    expect(sentOf(cycle)).toBe('maybe');
  });
});
