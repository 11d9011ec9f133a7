/**
 * Faults the server reports with a status: odd error bodies, a 10 MB error body, rate limits
 * with `Retry-After` in both forms, 503 storms and an expired token.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  type ClaimsApiError,
  InternalServerError,
  RateLimitError,
} from '../../src/index.js';
import { incident } from '../helpers/fixtures.js';
import { capturePauses } from '../helpers/pauses.js';
import { failure, type Hit, httpFaultServer, makeClient, scenario, TOKEN, WIRES } from './fault-server.js';

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

/** Answers 429 (the server provably did nothing) for the first `n` requests, then `then`. */
function rateLimitedThen(n: number, retryAfter: () => string, then: (res: ServerResponse) => void) {
  let seen = 0;
  return (hit: Hit, _req: unknown, res: ServerResponse): void => {
    if (seen++ < n) {
      hit.mayHaveProcessed = false;
      send(res, 429, '{"message":"slow down"}', { 'retry-after': retryAfter() });
      return;
    }
    then(res);
  };
}

const created = (res: ServerResponse): void => send(res, 201, '{"incidentId":"I-9"}');

// The pauses between attempts are captured where they begin (and not waited out): each is checked
// exactly, not timed on the wall clock.
afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(WIRES)('$name', ({ options: wire }) => {
  describe('error bodies', () => {
    it('an HTML 502 page: InternalServerError with the text as body, every field set', async () => {
      const page = '<html><body><h1>502 Bad Gateway</h1></body></html>';
      await scenario(
        httpFaultServer((_hit, _req, res) => {
          res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'req-502' });
          res.end(page);
        }),
        async (server) => {
          const client = makeClient(server.url, { ...wire, maxRetries: 0 });
          const { error } = await failure(() => client.subscriptions.list(3));
          expect(error).toBeInstanceOf(InternalServerError);
          const api = error as ClaimsApiError;
          expect(api).toMatchObject({
            status: 502,
            body: page,
            requestId: 'req-502',
            method: 'GET',
            url: `${server.url}/webhooks/3/subscriptions`,
          });
          expect(api.headers['content-type']).toBe('text/html');
          expect(api.message).toContain('502 Bad Gateway');
          expect(server.hits).toHaveLength(1);
        },
      );
    });

    it('a plain-text 400 and an empty 400: BadRequestError, body kept as text', async () => {
      let n = 0;
      await scenario(
        httpFaultServer((hit, _req, res) => {
          // Two separate calls, each rejected: a 400 is the server refusing to act.
          hit.mayHaveProcessed = false;
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end(n++ === 0 ? 'policyCountry is wrong' : '');
        }),
        async (server) => {
          const client = makeClient(server.url, wire);
          const first = await failure(() => client.incidents.create(incident));
          expect(first.error).toBeInstanceOf(BadRequestError);
          expect((first.error as ClaimsApiError).body).toBe('policyCountry is wrong');
          expect((first.error as Error).message).toMatch(/^400 POST .*: policyCountry is wrong$/);
          const second = await failure(() => client.incidents.create(incident));
          expect((second.error as ClaimsApiError).body).toBe('');
          expect(server.hits).toHaveLength(2);
        },
      );
    });

    it('a 32 MiB error body: read up to 1 MiB, the connection dropped, no timer or socket left', async () => {
      // Written only as fast as it is read, and more than loopback's socket buffers hold (a few
      // MiB): the server ends the body only if the client drains it.
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const CHUNKS = 512;
      let endedBySender = false;
      await scenario(
        httpFaultServer((_hit, _req, res) => {
          res.on('error', () => undefined);
          res.writeHead(500, {
            'content-type': 'text/plain',
            'content-length': String(CHUNKS * chunk.length),
          });
          let sent = 0;
          const pump = (): void => {
            while (sent < CHUNKS && !res.destroyed) {
              sent++;
              if (!res.write(chunk)) {
                res.once('drain', pump);
                return;
              }
            }
            endedBySender = !res.destroyed;
            res.end();
          };
          pump();
        }),
        async (server) => {
          // A timeout past the test's own: a timer the SDK forgot would still be running when the
          // leak check looks, and a call that waited for it instead of hanging up would never end.
          const client = makeClient(server.url, { ...wire, timeoutMs: 600_000 });
          const { error } = await failure(() => client.incidents.create(incident));
          expect(error).toBeInstanceOf(InternalServerError);
          const body = (error as ClaimsApiError).body;
          expect(typeof body).toBe('string');
          expect((body as string).length).toBe(1024 * 1024);
          expect((error as Error).message.length).toBeLessThan(500);
          expect(server.hits).toHaveLength(1);
          // Hung up on, not drained.
          expect(endedBySender).toBe(false);
        },
      );
    });

    it('an error body that echoes the token has it redacted', async () => {
      await scenario(
        httpFaultServer((_hit, _req, res) =>
          send(res, 403, JSON.stringify({ message: `bad token ${TOKEN}` })),
        ),
        async (server) => {
          const { error } = await failure(() => makeClient(server.url, wire).subscriptions.list(1));
          expect(JSON.stringify((error as ClaimsApiError).body)).not.toContain(TOKEN);
          expect((error as Error).message).toContain('[REDACTED]');
        },
      );
    });
  });

  describe('429 and Retry-After', () => {
    it('Retry-After: 0 (seconds): the POST is sent again at once, and succeeds', async () => {
      await scenario(httpFaultServer(rateLimitedThen(2, () => '0', created)), async (server) => {
        const pauses = capturePauses();
        await expect(makeClient(server.url, wire).incidents.create(incident)).resolves.toEqual({
          incidentId: 'I-9',
        });
        expect(server.hits).toHaveLength(3);
        expect(pauses).toEqual([0, 0]);
      });
    });

    it('Retry-After as an HTTP date in the past: repeated at once', async () => {
      await scenario(
        httpFaultServer(rateLimitedThen(1, () => new Date(Date.now() - 60_000).toUTCString(), created)),
        async (server) => {
          const pauses = capturePauses();
          await makeClient(server.url, wire).incidents.create(incident);
          expect(pauses).toEqual([0]);
          expect(server.hits).toHaveLength(2);
        },
      );
    });

    it('Retry-After beyond 60 s: RateLimitError at once, with its headers, not repeated', async () => {
      await scenario(httpFaultServer(rateLimitedThen(5, () => '3600', created)), async (server) => {
        const pauses = capturePauses();
        const { error } = await failure(() => makeClient(server.url, wire).incidents.create(incident));
        expect(error).toBeInstanceOf(RateLimitError);
        expect((error as ClaimsApiError).headers['retry-after']).toBe('3600');
        expect(server.hits).toHaveLength(1);
        expect(pauses).toEqual([]);
      });
    });

    it('429 on every attempt: RateLimitError after 1 + maxRetries attempts', async () => {
      await scenario(httpFaultServer(rateLimitedThen(99, () => '0', created)), async (server) => {
        const { error } = await failure(() =>
          makeClient(server.url, { ...wire, maxRetries: 3 }).incidents.create(incident),
        );
        expect(error).toBeInstanceOf(RateLimitError);
        expect((error as ClaimsApiError).status).toBe(429);
        expect(server.hits).toHaveLength(4);
      });
    });
  });

  describe('503 storms', () => {
    it('a GET rides out a storm with Retry-After: 0 and gets the answer', async () => {
      let n = 0;
      await scenario(
        httpFaultServer((_hit, _req, res) => {
          if (n++ < 2) send(res, 503, '{"message":"busy"}', { 'retry-after': '0' });
          else send(res, 200, '[]');
        }),
        async (server) => {
          await expect(makeClient(server.url, wire).subscriptions.list(1)).resolves.toEqual([]);
          expect(server.hits).toHaveLength(3);
        },
      );
    });

    it('a POST meeting a 503 is not repeated: the server may have filed the claim', async () => {
      await scenario(
        httpFaultServer((_hit, _req, res) => send(res, 503, '{"message":"busy"}', { 'retry-after': '0' })),
        async (server) => {
          const { error } = await failure(() => makeClient(server.url, wire).incidents.create(incident));
          expect(error).toBeInstanceOf(InternalServerError);
          expect(server.hits).toHaveLength(1);
        },
      );
    });

    it('32 concurrent GETs in a storm all come through, each seen at most 3 times', async () => {
      const seen = new Map<string, number>();
      await scenario(
        httpFaultServer((hit, _req, res) => {
          const count = (seen.get(hit.path) ?? 0) + 1;
          seen.set(hit.path, count);
          if (count < 3) send(res, 503, '{}', { 'retry-after': '0' });
          else send(res, 200, '[]');
        }),
        async (server) => {
          // The storm is about attempts, not time: 32 calls at once on a loaded machine can go
          // 200 ms without progress, and a timeout would add attempts of its own.
          const client = makeClient(server.url, { ...wire, timeoutMs: 5_000 });
          const ids = Array.from({ length: 32 }, (_, i) => i + 1);
          await expect(Promise.all(ids.map((id) => client.subscriptions.list(id)))).resolves.toHaveLength(32);
          expect(server.hits).toHaveLength(96);
          expect([...seen.values()].every((count) => count === 3)).toBe(true);
        },
      );
    });
  });

  describe('401 and the token provider', () => {
    it('a 401 makes the provider refresh; the POST is sent once more with the new token and succeeds', async () => {
      const tokens = ['expired-token', 'fresh-token'];
      let calls = 0;
      await scenario(
        httpFaultServer((hit, _req, res) => {
          if (hit.headers.authorization !== 'Bearer fresh-token') {
            hit.mayHaveProcessed = false;
            send(res, 401, '{"message":"token expired"}');
            return;
          }
          created(res);
        }),
        async (server) => {
          const client = makeClient(server.url, {
            ...wire,
            maxRetries: 0,
            accessToken: async () => tokens[Math.min(calls++, 1)] as string,
          });
          await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'I-9' });
          expect(calls).toBe(2);
          expect(server.hits.map((h) => h.headers.authorization)).toEqual([
            'Bearer expired-token',
            'Bearer fresh-token',
          ]);
        },
      );
    });

    it('a static token meeting a 401: AuthenticationError, sent once', async () => {
      await scenario(
        httpFaultServer((hit, _req, res) => {
          hit.mayHaveProcessed = false;
          send(res, 401, '{"message":"nope"}');
        }),
        async (server) => {
          const { error } = await failure(() => makeClient(server.url, wire).incidents.create(incident));
          expect(error).toBeInstanceOf(AuthenticationError);
          expect(server.hits).toHaveLength(1);
        },
      );
    });
  });
});

/**
 * Waiting is decided above the wire (Retry-After and backoff maths in the transport), so these
 * cases run once, on the default wire.
 */
describe('waits (default wire)', () => {
  const wire = {};
  it('Retry-After: 1 (seconds) is waited for', async () => {
    await scenario(httpFaultServer(rateLimitedThen(1, () => '1', created)), async (server) => {
      const pauses = capturePauses();
      await makeClient(server.url, wire).incidents.create(incident);
      expect(pauses).toEqual([1_000]);
      expect(server.hits).toHaveLength(2);
    });
  });

  it('Retry-After as an HTTP date ~3 s ahead is waited for (to the second)', async () => {
    await scenario(
      httpFaultServer(rateLimitedThen(1, () => new Date(Date.now() + 3_500).toUTCString(), created)),
      async (server) => {
        const pauses = capturePauses();
        await makeClient(server.url, wire).incidents.create(incident);
        // The date has whole seconds: 3.5 s ahead, rounded down, is 2.5 to 3.5 s from when it
        // was written (less the time it took to arrive): far from any backoff (0.375 to 0.5 s).
        expect(pauses).toHaveLength(1);
        expect(pauses[0]).toBeGreaterThan(2_000);
        expect(pauses[0]).toBeLessThanOrEqual(3_500);
        expect(server.hits).toHaveLength(2);
      },
    );
  });

  it('a storm outlasting maxRetries: InternalServerError 503 after 3 attempts, with backoff and jitter', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => send(res, 503, '{"message":"busy"}')),
      async (server) => {
        const pauses = capturePauses();
        // The jitter's draw fixed at its top: each step less (just under) 25%.
        vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
        const { error } = await failure(() => makeClient(server.url, wire).subscriptions.list(1));
        expect(error).toBeInstanceOf(InternalServerError);
        expect((error as ClaimsApiError).status).toBe(503);
        expect(server.hits).toHaveLength(3);
        // 0.5 s, then 1 s
        expect(pauses).toEqual([500 * (1 - 0.999_999 * 0.25), 1_000 * (1 - 0.999_999 * 0.25)]);
      },
    );
  });
});
