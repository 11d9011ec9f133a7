/**
 * The request path's decisions that a caller sees in the result and in the logs: the token
 * provider's context and its failures, the Retry-After limit at its edge, a stepped call's
 * deadline checked like any call's, and logs written only at the level asked for.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  ClaimsError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  InternalServerError,
  type Logger,
  outcomeOf,
} from '../../src/index.js';
import { closedPort, httpFaultServer, makeClient, scenario } from '../faults/fault-server.js';
import { event, incident } from '../helpers/fixtures.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function answer(status: number, body: string, headers: Record<string, string> = {}) {
  return (_hit: unknown, _req: unknown, res: import('node:http').ServerResponse): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
}

function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at =
    (level: string) =>
    (message: string): void => {
      lines.push(`${level} ${message}`);
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('the token provider', () => {
  it('is asked with forceRefresh false, then true after a 401 with the refused token', async () => {
    await scenario(
      httpFaultServer((hit, _req, res) =>
        hit.headers.authorization === 'Bearer second'
          ? answer(200, '[]')(hit, _req, res)
          : answer(401, '{"message":"expired"}')(hit, _req, res),
      ),
      async (server) => {
        const contexts: unknown[] = [];
        const client = makeClient(server.url, {
          accessToken: (context) => {
            contexts.push(context);
            return contexts.length === 1 ? 'first' : 'second';
          },
        });
        await expect(client.subscriptions.list(1)).resolves.toEqual([]);
        expect(contexts).toEqual([{ forceRefresh: false }, { forceRefresh: true, refusedToken: 'first' }]);
      },
    );
  });

  it('failing when asked again after a 401: "accessToken provider failed after a 401", the 401 not retried further', async () => {
    await scenario(httpFaultServer(answer(401, '{"message":"expired"}')), async (server) => {
      const cause = new Error('vault sealed');
      let asked = 0;
      const client = makeClient(server.url, {
        accessToken: () => {
          if (++asked === 2) throw cause;
          return 'first';
        },
      });
      const error = await client.subscriptions.list(1).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsError);
      expect(error).not.toBeInstanceOf(AuthenticationError);
      expect((error as Error).message).toBe('accessToken provider failed after a 401: Error: vault sealed');
      expect((error as Error).cause).toBe(cause);
      expect(server.hits).toHaveLength(1);
    });
  });

  it.each([
    ['an empty string', '', 'accessToken provider returned no token (expected a non-empty string)'],
    ['a number', 42, 'accessToken provider returned no token (expected a non-empty string)'],
    [
      'a token with a line break',
      'a\nb',
      'accessToken provider returned a token with characters a header cannot carry',
    ],
  ])('returning %s: a ClaimsError saying so, nothing sent', async (_name, token, message) => {
    await scenario(httpFaultServer(answer(200, '[]')), async (server) => {
      const client = makeClient(server.url, { accessToken: () => token as string });
      const error = await client.subscriptions.list(1).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsError);
      expect((error as Error).message).toBe(message);
      expect(server.hits).toHaveLength(0);
    });
  });
});

describe('Retry-After at the limit (60 s)', () => {
  it('60 s is waited for: here the call’s 3 s deadline ends it first, as a deadline', async () => {
    await scenario(httpFaultServer(answer(503, '{}', { 'retry-after': '60' })), async (server) => {
      const started = performance.now();
      const error = await makeClient(server.url, { deadlineMs: 3_000 })
        .subscriptions.list(1)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsTimeoutError);
      expect((error as Error).message).toContain('Deadline passed');
      expect((error as Error).cause).toBeInstanceOf(InternalServerError);
      // A wait past the deadline is not begun: the call ends at once.
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(server.hits).toHaveLength(1);
    });
  });

  it('61 s is not: the 503 itself, at once', async () => {
    await scenario(httpFaultServer(answer(503, '{}', { 'retry-after': '61' })), async (server) => {
      const error = await makeClient(server.url, { deadlineMs: 3_000 })
        .subscriptions.list(1)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InternalServerError);
      expect(server.hits).toHaveLength(1);
    });
  });
});

describe('a call made of steps (incidents.create)', () => {
  it('refuses an invalid deadlineMs before any step, as any call does', async () => {
    await scenario(httpFaultServer(answer(201, '{"incidentId":"I-1"}')), async (server) => {
      const error = await makeClient(server.url)
        .incidents.create({ ...incident, extendedFields: [] }, { deadlineMs: 0 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual(['options.deadlineMs']);
      expect(server.hits).toHaveLength(0);
    });
  });
});

describe('a body JSON cannot carry', () => {
  it('is one issue on the body as a whole, saying why', async () => {
    await scenario(httpFaultServer(answer(201, '{}')), async (server) => {
      const error = await makeClient(server.url)
        .events.create('I-1', { ...event, extra: 1n } as typeof event)
        .catch((e: unknown) => e);
      expect((error as ClaimsValidationError).issues).toEqual([
        { path: '', message: 'cannot be sent as JSON: Do not know how to serialize a BigInt' },
      ]);
      expect(server.hits).toHaveLength(0);
    });
  });
});

describe('logs only at the level asked for', () => {
  function quietConsole() {
    return (['debug', 'info', 'warn', 'error', 'log'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => undefined),
    );
  }

  it('logging off: a failed connection retried, a 401 asked again and a long Retry-After write nothing', async () => {
    const spies = quietConsole();
    const port = await closedPort();
    await expect(
      makeClient(`http://127.0.0.1:${port}`, { maxRetries: 1 }).subscriptions.list(1),
    ).rejects.toBeInstanceOf(ClaimsError);
    await scenario(httpFaultServer(answer(401, '{}')), async (server) => {
      await expect(
        makeClient(server.url, { accessToken: () => 'tok' }).subscriptions.list(1),
      ).rejects.toBeInstanceOf(AuthenticationError);
    });
    await scenario(httpFaultServer(answer(503, '{}', { 'retry-after': '120' })), async (server) => {
      await expect(makeClient(server.url).subscriptions.list(1)).rejects.toBeInstanceOf(InternalServerError);
    });
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('logging at info: the 401 asked again is a retry line; no debug lines', async () => {
    await scenario(httpFaultServer(answer(401, '{}')), async (server) => {
      const logger = captureLogger();
      await makeClient(server.url, { accessToken: () => 'tok_fn', logger, logLevel: 'info' })
        .subscriptions.list(1)
        .catch(() => undefined);
      expect(logger.lines).toEqual([
        `info claims-sdk: retrying GET ${server.url}/webhooks/1/subscriptions in 0 ms (attempt 2) after 401 (token provider asked again)`,
      ]);
    });
  });

  it('logging at warn: a failed connection retried writes nothing', async () => {
    const logger = captureLogger();
    const port = await closedPort();
    await makeClient(`http://127.0.0.1:${port}`, { maxRetries: 1, logger, logLevel: 'warn' })
      .subscriptions.list(1)
      .catch(() => undefined);
    expect(logger.lines).toEqual([]);
  });
});

/** fetch's failure with undici's error (and its code) inside, as a user's fetch gives it. */
function fetchFailure(code: string): TypeError {
  return new TypeError('fetch failed', {
    cause: Object.assign(new Error(`${code} from the socket`), { code }),
  });
}

describe('the outcome of a call whose attempts failed differently', () => {
  it('a GET reset after sending, then refused: unknown (the first may have been acted on)', async () => {
    let calls = 0;
    const client = makeClient('http://127.0.0.1:9', {
      maxRetries: 1,
      fetch: async () => {
        throw fetchFailure(calls++ === 0 ? 'ECONNRESET' : 'ECONNREFUSED');
      },
    });
    const error = await client.subscriptions.list(1).catch((e: unknown) => e);
    expect(calls).toBe(2);
    expect(outcomeOf(error)).toBe('unknown');
  });

  it('a GET refused, then aborted during the backoff: not_sent', async () => {
    const controller = new AbortController();
    const client = makeClient('http://127.0.0.1:9', {
      maxRetries: 1,
      fetch: async () => {
        setTimeout(() => controller.abort(), 50);
        throw fetchFailure('ECONNREFUSED');
      },
    });
    const error = await client.subscriptions.list(1, { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(outcomeOf(error)).toBe('not_sent');
  });
});
