/**
 * No call stays pending for ever, on both wires: `deadlineMs` bounds the whole call (attempts,
 * waits, token provider, reading the answer), and `timeoutMs` covers a stalled request body
 * and a token provider that never settles. Each case asserts the error class, its outcome,
 * what the server saw, and which of the call's own timers stopped it, with which setting
 * (`captureStops`): in each, nothing else could end the call within the test's timeout, so a
 * wire that did not give up when the call stopped would hang it. When a timer fires is tested
 * under a fake clock in test/internal/call-signal.test.ts, not timed here.
 */
import { Readable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ClaimsTimeoutError,
  ClaimsValidationError,
  InternalServerError,
  outcomeOf,
} from '../../src/index.js';
import { CallSignal } from '../../src/internal/call-signal.js';
import { incident } from '../helpers/fixtures.js';
import { capturePauses } from '../helpers/pauses.js';
import { captureStops } from '../helpers/stops.js';
import { failure, httpFaultServer, makeClient, rawFaultServer, scenario, WIRES } from './fault-server.js';

/** A source that gives one chunk and then nothing, never ending. */
function stalledSource(): Readable {
  const source = new Readable({ read() {} });
  source.push(Buffer.alloc(1024, 0x61));
  return source;
}

/** The same as a web stream. */
function stalledWebStream(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(1024).fill(0x61));
    },
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

beforeAll(async () => {
  const { schemas } = await import('../../src/schemas/load.js');
  await Promise.all([schemas(), import('undici')]);
});

describe.each(WIRES)('$name', ({ options: wire }) => {
  it('a 2xx body dripping one byte every 100 ms ends at the deadline: ClaimsTimeoutError, processed', async () => {
    const timers: NodeJS.Timeout[] = [];
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.write('{');
        const drip = setInterval(() => res.write(' '), 100);
        timers.push(drip);
        res.on('close', () => clearInterval(drip));
      }),
      async (server) => {
        const client = makeClient(server.url, { ...wire, timeoutMs: 1_000, deadlineMs: 700 });
        const stops = captureStops();
        const { error, ms } = await failure(() => client.incidents.create(incident));
        for (const timer of timers) clearInterval(timer);
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toContain('deadlineMs (700 ms)');
        // The server answered 2xx: it acted.
        expect(outcomeOf(error)).toBe('processed');
        expect(ms).toBeGreaterThanOrEqual(650);
        // The drip defeats the 1 s idle timeout: the deadline stopped the call.
        expect(stops).toEqual([{ why: 'deadline', deadlineMs: 700 }]);
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('endless 102 Processing ends at the deadline: ClaimsTimeoutError, unknown, sent once', async () => {
    const timers: NodeJS.Timeout[] = [];
    await scenario(
      rawFaultServer((_hit, socket) => {
        const interim = setInterval(() => socket.write('HTTP/1.1 102 Processing\r\n\r\n'), 100);
        timers.push(interim);
        socket.on('close', () => clearInterval(interim));
      }),
      async (server) => {
        // An idle timeout the test never reaches: only the deadline can end the call.
        const client = makeClient(server.url, { ...wire, timeoutMs: 60_000, deadlineMs: 600 });
        const stops = captureStops();
        const { error } = await failure(() => client.incidents.create(incident));
        for (const timer of timers) clearInterval(timer);
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect(outcomeOf(error)).toBe('unknown');
        expect((error as Error).message).toContain('the request may have been processed');
        expect(stops).toEqual([{ why: 'deadline', deadlineMs: 600 }]);
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('a wait between attempts that would pass the deadline is not begun: the last error is the cause', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' });
        res.end('{"message":"busy"}');
      }),
      async (server) => {
        const client = makeClient(server.url, { ...wire, deadlineMs: 1_000 });
        const pauses = capturePauses();
        const { error } = await failure(() => client.subscriptions.list(1));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).cause).toBeInstanceOf(InternalServerError);
        expect(outcomeOf(error)).toBe('unknown');
        expect((error as ClaimsTimeoutError).attempts).toBe(1);
        expect(pauses).toEqual([]);
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('retries stop at the deadline, with the attempts made counted', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0.2' });
        res.end('{}');
      }),
      async (server) => {
        // The call's clock (performance.now) is the test's: each wait moves it on by what was
        // asked, and an attempt takes none of it. So the deadline never falls while an attempt is
        // in flight (on a loaded box the last one could be cut before reaching the server).
        vi.useFakeTimers({ toFake: ['performance'] });
        const pauses: number[] = [];
        const sleep = CallSignal.prototype.sleep;
        vi.spyOn(CallSignal.prototype, 'sleep').mockImplementation(function (this: CallSignal, ms: number) {
          pauses.push(ms);
          vi.advanceTimersByTime(ms);
          return sleep.call(this, 0);
        });
        try {
          const client = makeClient(server.url, { ...wire, maxRetries: 50, deadlineMs: 900 });
          const stops = captureStops();
          const { error } = await failure(() => client.subscriptions.list(1));
          expect(error).toBeInstanceOf(ClaimsTimeoutError);
          expect(stops).toEqual([{ why: 'deadline', deadlineMs: 900 }]);
          // Waits of 200 ms at 0, 200, 400 and 600 ms; at 800 ms a fifth would pass the deadline:
          // not begun, the call ends. 5 attempts of the 51 allowed, each one counted.
          expect(pauses).toEqual([200, 200, 200, 200]);
          expect((error as ClaimsTimeoutError).attempts).toBe(5);
          expect(server.hits).toHaveLength(5);
        } finally {
          vi.useRealTimers();
        }
      },
    );
  });

  it('a token provider that never settles: timeoutMs ends it, nothing sent, not_sent', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => void res.end('[]')),
      async (server) => {
        const client = makeClient(server.url, { ...wire, accessToken: () => new Promise<string>(() => {}) });
        const stops = captureStops();
        const { error, ms } = await failure(() => client.subscriptions.list(1, { timeoutMs: 300 }));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toContain('the accessToken provider made no progress for 300 ms');
        expect(outcomeOf(error)).toBe('not_sent');
        expect((error as ClaimsTimeoutError).attempts).toBe(0);
        expect(ms).toBeGreaterThanOrEqual(250);
        expect(stops).toMatchObject([
          { why: 'idle', idle: { phase: 'the accessToken provider', timeoutMs: 300 } },
        ]);
        expect(server.hits).toHaveLength(0);
      },
    );
  });

  it('a token provider that never settles: the deadline ends it, not_sent', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => void res.end('[]')),
      async (server) => {
        const client = makeClient(server.url, {
          ...wire,
          timeoutMs: 60_000,
          accessToken: () => new Promise<string>(() => {}),
        });
        const stops = captureStops();
        const { error } = await failure(() => client.subscriptions.list(1, { deadlineMs: 300 }));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toContain('deadlineMs (300 ms)');
        expect(outcomeOf(error)).toBe('not_sent');
        expect(stops).toEqual([{ why: 'deadline', deadlineMs: 300 }]);
        expect(server.hits).toHaveLength(0);
      },
    );
  });

  it("a token provider that never settles: the caller's abort ends it with AbortError, not_sent", async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => void res.end('[]')),
      async (server) => {
        // The caller aborts once the provider is asked, and the provider never answers.
        const controller = new AbortController();
        const client = makeClient(server.url, {
          ...wire,
          timeoutMs: 60_000,
          accessToken: () => {
            controller.abort();
            return new Promise<string>(() => {});
          },
        });
        const stops = captureStops();
        const { error } = await failure(() =>
          client.subscriptions.list(1, { signal: controller.signal, deadlineMs: 60_000 }),
        );
        expect((error as Error).name).toBe('AbortError');
        expect(outcomeOf(error)).toBe('not_sent');
        expect(stops).toEqual([{ why: 'aborted', deadlineMs: 60_000 }]);
        expect(server.hits).toHaveLength(0);
      },
    );
  });

  it.each([
    ['a Readable', stalledSource],
    ['a web ReadableStream', stalledWebStream],
  ])(
    'an upload source that stops (%s) times out after timeoutMs: unknown, sent once',
    async (_kind, make) => {
      await scenario(
        httpFaultServer(
          (_hit, req) => {
            // Reads what comes and never answers: only the stalled source can end the call.
            req.resume();
          },
          { readBody: false },
        ),
        async (server) => {
          const client = makeClient(server.url, { ...wire, timeoutMs: 400 });
          const data = make();
          const stops = captureStops();
          const { error, ms } = await failure(() =>
            client.attachments.upload({
              data,
              filename: 'stalled.bin',
              contentType: 'application/octet-stream',
            }),
          );
          expect(error).toBeInstanceOf(ClaimsTimeoutError);
          // The fetch wire's own progress timer may see it first; both name the idle time.
          expect((error as Error).message).toContain('no progress for 400 ms');
          expect(outcomeOf(error)).toBe('unknown');
          expect(ms).toBeGreaterThanOrEqual(350);
          // The call's watch of the body stopped it, or (the fetch wire) the attempt's own
          // progress timer saw it first; either with the 400 ms given, which the message names.
          for (const stop of stops)
            expect(stop).toMatchObject({ why: 'idle', idle: { phase: 'the request body', timeoutMs: 400 } });
          expect(server.hits).toHaveLength(1);
        },
      );
    },
  );

  it('deadlineMs is validated like timeoutMs, on the client and per call; nothing is sent', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => void res.end('[]')),
      async (server) => {
        expect(() => makeClient(server.url, { ...wire, deadlineMs: 0 })).toThrow(ClaimsValidationError);
        expect(() => makeClient(server.url, { ...wire, deadlineMs: 2 ** 31 })).toThrow(/deadlineMs/);
        const client = makeClient(server.url, wire);
        const { error } = await failure(() => client.subscriptions.list(1, { deadlineMs: 1.5 }));
        expect(error).toBeInstanceOf(ClaimsValidationError);
        expect((error as ClaimsValidationError).issues[0]?.path).toBe('options.deadlineMs');
        expect(server.hits).toHaveLength(0);
      },
    );
  });
});

describe.each(WIRES)('$name: incidents.create with steps', ({ options: wire }) => {
  it('one deadline spans the metadata look-up and the POST', async () => {
    await scenario(
      httpFaultServer((hit, _req, res) => {
        // Each step alone fits in the deadline; both together do not.
        const answer = hit.method === 'GET' ? '[]' : '{"incidentId":"I-1"}';
        setTimeout(() => {
          if (!res.destroyed) {
            res.writeHead(hit.method === 'GET' ? 200 : 201, { 'content-type': 'application/json' });
            res.end(answer);
          }
        }, 450);
      }),
      async (server) => {
        const client = makeClient(server.url, { ...wire, timeoutMs: 60_000, deadlineMs: 700 });
        const stops = captureStops();
        const { error } = await failure(() => client.incidents.create({ ...incident, extendedFields: [] }));
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect(server.hits.map((h) => h.method)).toEqual(['GET', 'POST']);
        expect(outcomeOf(error)).toBe('unknown');
        // The POST's deadline is what the 700 ms left after the look-up's 450 ms or more, and
        // it stopped the POST (which would have been answered after 450 ms).
        expect(stops).toHaveLength(1);
        expect(stops[0]?.why).toBe('deadline');
        expect(stops[0]?.deadlineMs).toBeLessThanOrEqual(700 - 450);
        // Let the server's own timers run out before the leak check.
        await new Promise((resolve) => setTimeout(resolve, 300));
      },
    );
  });
});
