/**
 * The request path (src/transport.ts) as the server sees it and as the caller gets it back:
 * the exact headers for each kind of call, the query string, which statuses are a success,
 * the outcome of an error answer, and a call stopped before it began. On both wires.
 */
import { describe, expect, it, vi } from 'vitest';
import { type ClaimsApiError, ClaimsValidationError, outcomeOf } from '../../src/index.js';
import { httpFaultServer, makeClient, scenario, TOKEN, WIRES } from '../faults/fault-server.js';
import { event } from '../helpers/fixtures.js';

const UA = expect.stringMatching(/^claims-notification-sdk\/\S+ node\/\S+$/);

function answer(status: number, body = '') {
  return (_hit: unknown, _req: unknown, res: import('node:http').ServerResponse): void => {
    res.writeHead(status, body ? { 'content-type': 'application/json' } : {});
    res.end(body);
  };
}

/** The headers the server saw, less the connection's own (host, content-length, ...). */
function sent(headers: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const own = [
    'host',
    'connection',
    'content-length',
    'transfer-encoding',
    'accept-encoding',
    'accept-language',
    'sec-fetch-mode',
    'traceparent',
  ];
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !own.includes(name)));
}

describe.each(WIRES)('$name', ({ options: wire }) => {
  it('a GET with a fixed token: accept, user-agent, authorization, and no content-type', async () => {
    await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
      await makeClient(server.url, wire).subscriptions.list(5);
      expect(sent(server.hits[0]?.headers ?? {})).toEqual({
        accept: 'application/json',
        'user-agent': UA,
        authorization: `Bearer ${TOKEN}`,
      });
    });
  });

  it('a POST with a token function and headers of the call’s own: the same, plus content-type and those', async () => {
    await scenario(httpFaultServer(answer(201, '{"eventId":"E-1"}')), async (server) => {
      const client = makeClient(server.url, { ...wire, accessToken: async () => 'tok_from_fn' });
      await client.events.create('I-1', event, { headers: { 'x-correlation': 'c-1' } });
      expect(sent(server.hits[0]?.headers ?? {})).toEqual({
        accept: 'application/json',
        'user-agent': UA,
        authorization: 'Bearer tok_from_fn',
        'content-type': 'application/json',
        'x-correlation': 'c-1',
      });
      expect(JSON.parse(server.hits[0]?.body.toString() ?? '')).toEqual(event);
    });
  });

  it('a GET with a token function: no content-type either', async () => {
    await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
      await makeClient(server.url, { ...wire, accessToken: () => 'tok_fn' }).subscriptions.list(5);
      expect(server.hits[0]?.headers['content-type']).toBeUndefined();
      expect(server.hits[0]?.headers.authorization).toBe('Bearer tok_fn');
    });
  });

  it('an empty query leaves no "?" on the path; a query is encoded', async () => {
    await scenario(httpFaultServer(answer(200, '{}')), async (server) => {
      const client = makeClient(server.url, wire);
      await client.metadata.programmes({});
      await client.metadata.programmes({ country: 'GB & IE' });
      expect(server.hits.map((h) => h.path)).toEqual([
        '/metadata/programmes',
        '/metadata/programmes?country=GB+%26+IE',
      ]);
    });
  });

  it.each([
    [200, 'success'],
    [299, 'success'],
    [300, 'error'],
    [304, 'error'],
  ])('status %i is a %s', async (status, kind) => {
    await scenario(httpFaultServer(answer(status, status === 304 ? '' : '[]')), async (server) => {
      const result = await makeClient(server.url, { ...wire, maxRetries: 0 })
        .subscriptions.list(5)
        .then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
      if (kind === 'success') expect(result).toEqual({ value: [] });
      else {
        expect((result as { error: ClaimsApiError }).error.status).toBe(status);
        expect(outcomeOf((result as { error: unknown }).error)).toBe('unknown');
      }
    });
  });

  it.each([
    [400, 'rejected'],
    [404, 'rejected'],
    [499, 'rejected'],
    [500, 'unknown'],
    [501, 'unknown'],
  ])('an answer %i to a POST: outcome %s', async (status, outcome) => {
    await scenario(httpFaultServer(answer(status, '{"message":"no"}')), async (server) => {
      const error = (await makeClient(server.url, { ...wire, maxRetries: 0 })
        .events.create('I-1', event)
        .catch((e: unknown) => e)) as ClaimsApiError;
      expect(error.status).toBe(status);
      expect(outcomeOf(error)).toBe(outcome);
      expect(server.hits).toHaveLength(1);
    });
  });

  it.each([
    [400, 'rejected'],
    [500, 'unknown'],
  ])('aborted while an answer %i’s body is read: AbortError, outcome %s', async (status, outcome) => {
    const controller = new AbortController();
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': '40' });
        res.write('{"message":');
        // The answer's head is out; its body stalls, and the caller gives up meanwhile.
        setTimeout(() => controller.abort(), 100);
      }),
      async (server) => {
        const error = await makeClient(server.url, { ...wire, maxRetries: 0, timeoutMs: 5_000 })
          .events.create('I-1', event, { signal: controller.signal })
          .catch((e: unknown) => e);
        expect((error as Error).name).toBe('AbortError');
        expect(outcomeOf(error)).toBe(outcome);
      },
    );
  });

  it('an already aborted signal: AbortError, the token function never asked, nothing sent', async () => {
    await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
      const provider = vi.fn(async () => 'tok_fn');
      const client = makeClient(server.url, { ...wire, accessToken: provider });
      const error = await client.subscriptions
        .list(5, { signal: AbortSignal.abort() })
        .catch((e: unknown) => e);
      expect((error as Error).name).toBe('AbortError');
      expect(outcomeOf(error)).toBe('not_sent');
      expect(provider).not.toHaveBeenCalled();
      expect(server.hits).toHaveLength(0);
    });
  });
});

describe('per-call options refused before anything is sent', () => {
  it.each([
    ['deadlineMs 0', { deadlineMs: 0 }, 'options.deadlineMs'],
    ['deadlineMs 1.5', { deadlineMs: 1.5 }, 'options.deadlineMs'],
    ['timeoutMs 0', { timeoutMs: 0 }, 'options.timeoutMs'],
    ['maxRetries 1.5', { maxRetries: 1.5 }, 'options.maxRetries'],
  ])('%s', async (_name, bad, path) => {
    await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
      const error = await makeClient(server.url)
        .subscriptions.list(5, bad)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual([path]);
      expect(server.hits).toHaveLength(0);
    });
  });
});
