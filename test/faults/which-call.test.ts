/**
 * Errors say which call failed (method, url, attempts), reserved headers are refused before
 * anything is sent, and one signal shared by many calls in flight prints no warning: on both
 * wires.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ClaimsApiError,
  ClaimsConnectionError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  outcomeOf,
} from '../../src/index.js';
import { incident } from '../helpers/fixtures.js';
import { closedPort, failure, httpFaultServer, makeClient, scenario, TOKEN, WIRES } from './fault-server.js';

describe.each(WIRES)('$name', ({ options: wire }) => {
  describe('errors name the call', () => {
    it('a refused GET: method, url, attempts (first + retries), and the message names them', async () => {
      const port = await closedPort();
      const client = makeClient(`http://127.0.0.1:${port}`, { ...wire, maxRetries: 2 });
      const { error } = await failure(() => client.subscriptions.list(7));
      expect(error).toBeInstanceOf(ClaimsConnectionError);
      const e = error as ClaimsConnectionError;
      const url = `http://127.0.0.1:${port}/webhooks/7/subscriptions`;
      expect(e.method).toBe('GET');
      expect(e.url).toBe(url);
      expect(e.attempts).toBe(3);
      expect(e.message.startsWith(`GET ${url}: `)).toBe(true);
      expect(e.stack).toContain(`GET ${url}: `);
      expect(e.message).not.toContain(TOKEN);
    });

    it('a timeout after sending a POST: method, url, one attempt, unknown', async () => {
      await scenario(
        httpFaultServer(() => undefined),
        async (server) => {
          const client = makeClient(server.url, wire);
          const { error } = await failure(() => client.incidents.create(incident));
          expect(error).toBeInstanceOf(ClaimsTimeoutError);
          const e = error as ClaimsTimeoutError;
          expect([e.method, e.url, e.attempts]).toEqual(['POST', `${server.url}/incidents`, 1]);
          expect(e.message).toMatch(new RegExp(`^POST ${server.url}/incidents: `));
          expect(outcomeOf(e)).toBe('unknown');
        },
      );
    });

    it('an API error counts the attempts too', async () => {
      await scenario(
        httpFaultServer((_hit, _req, res) => {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
          res.end('{}');
        }),
        async (server) => {
          const client = makeClient(server.url, { ...wire, maxRetries: 2 });
          const { error } = await failure(() => client.subscriptions.list(1));
          expect(error).toBeInstanceOf(ClaimsApiError);
          expect((error as ClaimsApiError).attempts).toBe(3);
          expect(server.hits).toHaveLength(3);
        },
      );
    });
  });

  describe('reserved headers', () => {
    const reserved = [
      'Transfer-Encoding',
      'upgrade',
      'expect',
      'connection',
      'keep-alive',
      'host',
      'content-length',
      'te',
      'trailer',
      'proxy-authorization',
      'Proxy-Connection',
      'authorization',
      'content-type',
    ];

    it.each(reserved)(
      'per call: %s is refused as a validation error; nothing sent, not retried',
      async (name) => {
        await scenario(
          httpFaultServer((_hit, _req, res) => void res.end('[]')),
          async (server) => {
            const client = makeClient(server.url, wire);
            const { error } = await failure(() =>
              client.subscriptions.list(1, { headers: { [name]: 'chunked' } }),
            );
            expect(error).toBeInstanceOf(ClaimsValidationError);
            expect(outcomeOf(error)).toBe('not_sent');
            expect((error as ClaimsValidationError).issues).toEqual([
              expect.objectContaining({ path: `options.headers.${name}`, code: 'reserved_header' }),
            ]);
            expect(server.hits).toHaveLength(0);
          },
        );
      },
    );

    it.each(reserved)('client headers: %s is refused when the client is built', (name) => {
      expect(() => makeClient('http://127.0.0.1:9', { ...wire, headers: { [name]: 'x' } })).toThrow(
        ClaimsValidationError,
      );
    });

    it('an ordinary header is still sent', async () => {
      await scenario(
        httpFaultServer((_hit, _req, res) => void res.end('[]')),
        async (server) => {
          const client = makeClient(server.url, wire);
          await client.subscriptions.list(1, { headers: { 'x-proxy-hint': 'a', 'x-trace': 'b' } });
          expect(server.hits[0]?.headers['x-trace']).toBe('b');
        },
      );
    });
  });

  describe('one signal shared by many calls', () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    beforeEach(() => {
      warnings.length = 0;
      process.on('warning', onWarning);
    });
    afterEach(() => {
      process.off('warning', onWarning);
    });

    it('100 calls in flight, waiting and retrying on one signal: no MaxListenersExceededWarning', async () => {
      const seen = new Map<string, number>();
      await scenario(
        httpFaultServer((hit, _req, res) => {
          // Each path's first request waits for a retry; the second answers after a while.
          const n = (seen.get(hit.path) ?? 0) + 1;
          seen.set(hit.path, n);
          if (n === 1) {
            res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0.1' });
            res.end('{}');
            return;
          }
          setTimeout(() => res.end('[]'), 100);
        }),
        async (server) => {
          const client = makeClient(server.url, { ...wire, timeoutMs: 5_000 });
          const controller = new AbortController();
          const calls = Array.from({ length: 100 }, (_, i) =>
            client.subscriptions.list(i + 1, { signal: controller.signal }),
          );
          // While they are in flight: one listener on the signal, not one per call.
          await new Promise((resolve) => setTimeout(resolve, 50));
          expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
          await Promise.all(calls);
          await new Promise((resolve) => setImmediate(resolve));
          expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
          expect(server.hits).toHaveLength(200);
        },
      );
    });

    it('100 creates waiting on one shared metadata look-up with one signal: no warning', async () => {
      // Not a `scenario`: its duplicate-POST check is for one claim; these are 100 claims.
      const server = await httpFaultServer((hit, _req, res) => {
        const answer = hit.method === 'GET' ? '[]' : '{"incidentId":"I-1"}';
        setTimeout(() => {
          res.writeHead(hit.method === 'GET' ? 200 : 201, { 'content-type': 'application/json' });
          res.end(answer);
        }, 100);
      });
      try {
        const client = makeClient(server.url, { ...wire, timeoutMs: 5_000 });
        const controller = new AbortController();
        const calls = Array.from({ length: 100 }, () =>
          client.incidents.create({ ...incident, extendedFields: [] }, { signal: controller.signal }),
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
        await Promise.all(calls);
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
        expect(server.hits.filter((h) => h.method === 'GET')).toHaveLength(1);
        expect(server.hits.filter((h) => h.method === 'POST')).toHaveLength(100);
      } finally {
        await server.close();
      }
    });

    it('aborting the shared signal rejects every call in flight with its own AbortError', async () => {
      await scenario(
        httpFaultServer(() => undefined),
        async (server) => {
          const client = makeClient(server.url, { ...wire, timeoutMs: 5_000 });
          const controller = new AbortController();
          const calls = Array.from({ length: 60 }, (_, i) =>
            client.subscriptions.list(i + 1, { signal: controller.signal }).catch((e: unknown) => e),
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
          controller.abort();
          const errors = await Promise.all(calls);
          expect(errors.every((e) => (e as Error).name === 'AbortError')).toBe(true);
          expect(new Set(errors).size).toBe(60);
          expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
        },
      );
    });
  });
});
