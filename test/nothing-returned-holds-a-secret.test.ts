/**
 * No secret in anything the SDK hands back (#26.5): the promise a call returns (before and
 * after it settles), its value, `.withResponse()`'s result, the errors a call rejects with and
 * the client itself show neither the bearer token nor an OAuth client secret, under
 * `util.inspect` (default and `depth: Infinity`, hidden properties shown), `JSON.stringify`, or
 * a walk of every own property (symbols and non-enumerable ones included, down causes). On every
 * wire, with a server that echoes the token back everywhere it can: the 2xx body, the error
 * body, any header.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { clientCredentials } from '../src/auth/index.js';
import { ClaimsClient as EdgeClient } from '../src/edge.js';
import { ClaimsClient, type ClaimsClientOptions } from '../src/index.js';
import { WIRE_CHOICE } from '../src/wire/cold-start-wire.js';
import { httpFaultServer, scenario } from './faults/fault-server.js';
import { incident } from './helpers/fixtures.js';

const TOKEN = 'tok_5ecr3t-Bearer.value+/=';
const SECRET = 'client-5ecr3t-of-the-oauth-app';
const SECRETS = [TOKEN, SECRET, encodeURIComponent(TOKEN), Buffer.from(`id:${SECRET}`).toString('base64')];

type Client = ClaimsClient | EdgeClient;
const WIRES: ReadonlyArray<{ name: string; make: (options: ClaimsClientOptions) => Client }> = [
  { name: 'undici', make: (o) => new ClaimsClient({ ...o, [WIRE_CHOICE]: 'undici' } as ClaimsClientOptions) },
  {
    name: 'node:http',
    make: (o) => new ClaimsClient({ ...o, [WIRE_CHOICE]: 'http' } as ClaimsClientOptions),
  },
  { name: 'fetch', make: (o) => new ClaimsClient({ ...o, fetch: globalThis.fetch }) },
  { name: 'edge build', make: (o) => new EdgeClient(o) },
];

/** Every string reachable from `value` through own properties (symbols, non-enumerable), causes included. */
function reachableStrings(value: unknown, seen = new Set<unknown>(), depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'bigint' || typeof value === 'number') return [String(value)];
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return [];
  if (seen.has(value) || depth > 12) return [];
  seen.add(value);
  const out: string[] = [];
  for (const key of Reflect.ownKeys(value)) {
    out.push(String(key));
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && 'value' in descriptor) out.push(...reachableStrings(descriptor.value, seen, depth + 1));
  }
  if (value instanceof Error) out.push(...reachableStrings(value.stack, seen, depth + 1));
  return out;
}

/** Fails naming where a secret showed. */
function expectNoSecret(what: string, value: unknown): void {
  const views: Record<string, string> = {
    inspect: inspect(value),
    'inspect, deep and hidden': inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    'JSON.stringify': JSON.stringify(value) ?? '',
    'own properties': reachableStrings(value).join('\n'),
  };
  for (const [view, text] of Object.entries(views)) {
    for (const secret of SECRETS) {
      expect(
        text.includes(secret),
        `${what}, ${view}, shows ${JSON.stringify(secret)}:\n${text.slice(0, 2000)}`,
      ).toBe(false);
    }
  }
}

/** A server that echoes the bearer token back in the body and in headers, as a misbehaving proxy may. */
function echoing(status: (req: IncomingMessage) => number) {
  return httpFaultServer((hit, req, res: ServerResponse) => {
    const bearer = req.headers.authorization ?? '';
    const code = status(req);
    if (req.url === '/token') {
      // The token request is a POST of its own, not a claim sent twice.
      hit.mayHaveProcessed = false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    res.writeHead(code, {
      'content-type': 'application/json',
      'x-echo': bearer,
      'x-request-id': 'req-1',
      'www-authenticate': `Bearer realm="x", error="invalid_token", token="${TOKEN}"`,
    });
    res.end(
      JSON.stringify({
        incidentId: 'INC-1',
        message: `you sent ${bearer}`,
        echo: { authorization: bearer, [TOKEN]: TOKEN, encoded: encodeURIComponent(TOKEN) },
      }),
    );
  });
}

const TOKENS: ReadonlyArray<{
  name: string;
  accessToken: (url: string) => ClaimsClientOptions['accessToken'];
}> = [
  { name: 'a static token', accessToken: () => TOKEN },
  { name: 'a token function', accessToken: () => async () => TOKEN },
  {
    name: 'OAuth client credentials',
    accessToken: (url) =>
      clientCredentials({ tokenUrl: `${url}/token`, clientId: 'id', clientSecret: SECRET }),
  },
];

describe.each(WIRES)('$name wire', ({ make }) => {
  describe.each(TOKENS)('$name', ({ accessToken }) => {
    it('a call that worked: its promise, value, withResponse() and the client show no secret', async () => {
      await scenario(
        echoing(() => 201),
        async (server) => {
          const client = make({ baseUrl: server.url, accessToken: accessToken(server.url), maxRetries: 0 });
          const promise = client.incidents.create(incident, { checkExtendedFields: false });
          expectNoSecret('the pending promise', promise);
          const value = await promise;
          expect(value.incidentId).toBe('INC-1');
          expectNoSecret('the settled promise', promise);
          expectNoSecret('the value', value);
          const described = await promise.withResponse();
          expect(described.requestId).toBe('req-1');
          expectNoSecret('withResponse()', described);
          expectNoSecret('the client', client);
          await client.close();
        },
      );
    });

    it('a call that failed: the error and its rejected promise show no secret', async () => {
      await scenario(
        echoing(() => 403),
        async (server) => {
          const client = make({ baseUrl: server.url, accessToken: accessToken(server.url), maxRetries: 0 });
          const promise = client.webhooks.update(7, { isActive: false });
          const error = await promise.catch((e: unknown) => e);
          expect((error as Error).name).toBe('PermissionDeniedError');
          expectNoSecret('the error', error);
          expectNoSecret('the rejected promise', promise);
          expectNoSecret(
            'withResponse() of a failed call',
            await promise.withResponse().catch((e: unknown) => e),
          );
          await client.close();
        },
      );
    });
  });
});

describe('a fetch that fails quoting the request it was given', () => {
  /** How a user's fetch, or a wrapper of it (ky, ofetch, an axios adapter), may fail holding the request. */
  const FAILURES: ReadonlyArray<{ name: string; fail: (url: string, init: RequestInit) => unknown }> = [
    {
      name: 'an error keeping the Request (ky, ofetch)',
      fail: (url, init) => Object.assign(new TypeError('fetch failed'), { request: new Request(url, init) }),
    },
    {
      name: 'an error keeping the init and a Headers',
      fail: (_url, init) =>
        Object.assign(new TypeError('fetch failed'), {
          options: init,
          headers: new Headers(init.headers as Record<string, string>),
        }),
    },
    {
      name: 'an AggregateError of attempts quoting the header',
      fail: (_url, init) =>
        new AggregateError(
          [new Error(`sent ${(init.headers as Record<string, string>).authorization}`)],
          'all attempts failed',
        ),
    },
    {
      name: 'a cause chain ten deep',
      fail: (_url, init) => {
        let error = new Error(`deep ${(init.headers as Record<string, string>).authorization}`);
        for (let i = 0; i < 10; i++) error = new Error(`wrap ${i}`, { cause: error });
        return error;
      },
    },
    { name: 'a thrown string', fail: (_url, init) => `failed: ${JSON.stringify(init.headers)}` },
    { name: 'a thrown plain object', fail: (_url, init) => ({ message: 'failed', init }) },
  ];

  it.each(FAILURES)('$name: kept as the cause, it shows no secret', async ({ fail }) => {
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: TOKEN,
      maxRetries: 0,
      fetch: async (url, init) => {
        throw fail(String(url), init);
      },
    });
    const promise = client.metadata.programmes();
    const error = await promise.catch((e: unknown) => e);
    expect((error as Error).name).toBe('ClaimsConnectionError');
    expect((error as Error).cause).toBeDefined();
    expectNoSecret('the error', error);
    expectNoSecret('the rejected promise', promise);
  });

  it('its error, kept as the cause, shows no secret', async () => {
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: TOKEN,
      maxRetries: 0,
      fetch: async (_url, init) => {
        throw new TypeError(`fetch failed for ${JSON.stringify(init.headers)}`, {
          cause: new Error(`authorization: ${(init.headers as Record<string, string>).authorization}`),
        });
      },
    });
    const error = await client.metadata.programmes().catch((e: unknown) => e);
    expect((error as Error).name).toBe('ClaimsConnectionError');
    expectNoSecret('the error', error);
  });
});
