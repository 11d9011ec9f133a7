/**
 * A caller's AbortSignal, fired while the SDK waits between attempts and while it streams an
 * upload: the call rejects with an error named 'AbortError', nothing is repeated, nothing leaks.
 * Also: an upload that keeps moving never times out, however long it takes.
 */
import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClaimsTimeoutError } from '../../src/index.js';
import { event, incident, uuid } from '../helpers/fixtures.js';
import { abortOnPause } from '../helpers/pauses.js';
import { closedPort, failure, httpFaultServer, makeClient, scenario, WIRES } from './fault-server.js';

/** A one-shot stream giving `chunks` chunks of 16 KiB, one every `everyMs` ms. */
function slowSource(chunks: number, everyMs: number): Readable {
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  return new Readable({
    read() {
      if (sent >= chunks) {
        this.push(null);
        return;
      }
      sent++;
      timer = setTimeout(() => this.push(Buffer.alloc(16 * 1024, 0x61)), everyMs);
    },
    destroy(error, callback) {
      clearTimeout(timer);
      callback(error);
    },
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

// The SDK loads zod and undici on its first call; these tests time aborts against waits and
// uploads, so that one-off load must not be inside their windows.
beforeAll(async () => {
  const { schemas } = await import('../../src/schemas/load.js');
  await Promise.all([schemas(), import('undici')]);
});

describe.each(WIRES)('$name', ({ options: wire }) => {
  it('aborting during a Retry-After wait: AbortError at once, not retried', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '10' });
        res.end('{}');
      }),
      async (server) => {
        const client = makeClient(server.url, wire);
        const controller = new AbortController();
        const { pauses, ends } = abortOnPause(controller);
        const { error } = await failure(() => client.subscriptions.list(1, { signal: controller.signal }));
        expect((error as Error).name).toBe('AbortError');
        expect(pauses).toEqual([10_000]);
        expect(await Promise.all(ends)).toEqual(['cut short']);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('aborting during the backoff after a refused connection: AbortError, the wait cut short', async () => {
    const port = await closedPort();
    const client = makeClient(`http://127.0.0.1:${port}`, { ...wire, maxRetries: 5 });
    const controller = new AbortController();
    const { pauses, ends } = abortOnPause(controller);
    const { error } = await failure(() => client.incidents.create(incident, { signal: controller.signal }));
    expect((error as Error).name).toBe('AbortError');
    // The first backoff (0.5 s less up to 25%) was begun, and the abort ended it: no second attempt.
    expect(pauses).toHaveLength(1);
    expect(pauses[0]).toBeGreaterThanOrEqual(375);
    expect(pauses[0]).toBeLessThanOrEqual(500);
    expect(await Promise.all(ends)).toEqual(['cut short']);
  });

  it('the abort reason is kept as cause when it is not an AbortError itself', async () => {
    const port = await closedPort();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user navigated away')), 50);
    const client = makeClient(`http://127.0.0.1:${port}`, wire);
    const { error } = await failure(() => client.events.create('I-1', event, { signal: controller.signal }));
    expect((error as Error).name).toBe('AbortError');
    expect(((error as Error).cause as Error).message).toBe('user navigated away');
  });

  it('aborting during a streamed upload: AbortError, the source destroyed, sent once', async () => {
    let received = 0;
    // Aborted once the server has bytes of the body, so the abort lands mid-body however loaded
    // the machine is.
    const controller = new AbortController();
    await scenario(
      httpFaultServer(
        (_hit, req) => {
          // Reads the upload and never answers: the abort lands mid-body.
          req.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (!controller.signal.aborted) setTimeout(() => controller.abort(), 20);
          });
          req.on('error', () => undefined);
        },
        { readBody: false },
      ),
      async (server) => {
        const source = slowSource(200, 10);
        const client = makeClient(server.url, { ...wire, timeoutMs: 5_000 });
        const { error } = await failure(() =>
          client.attachments.upload({ data: source, filename: 'big.bin' }, { signal: controller.signal }),
        );
        expect((error as Error).name).toBe('AbortError');
        expect(received).toBeGreaterThan(0);
        // Cut mid-body: destroyed before it gave all of its 200 chunks (2 s of them).
        expect(source.destroyed).toBe(true);
        expect(source.readableEnded).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(server.hits).toHaveLength(1);
      },
    );
  });

  it('one long-lived signal over many calls collects no abort listeners', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      }),
      async (server) => {
        const client = makeClient(server.url, wire);
        const signal = new AbortController().signal;
        for (let i = 0; i < 20; i++) await client.subscriptions.list(1, { signal });
        expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(1);
      },
    );
  });

  it('an upload that keeps moving for 7× timeoutMs does not time out', async () => {
    await scenario(
      httpFaultServer((hit, _req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify([{ filename: 'slow.bin', attachmentId: uuid, size: hit.body.length }]));
      }),
      async (server) => {
        const client = makeClient(server.url, { ...wire, timeoutMs: 200 });
        const started = performance.now();
        const result = await client.attachments
          .upload({ data: slowSource(56, 25), filename: 'slow.bin' })
          .catch((e: unknown) => e);
        expect(result).not.toBeInstanceOf(ClaimsTimeoutError);
        expect(result).toEqual([{ filename: 'slow.bin', attachmentId: uuid, size: expect.any(Number) }]);
        expect(performance.now() - started).toBeGreaterThan(1_300);
        expect(server.hits).toHaveLength(1);
        expect(server.hits[0]?.body.length).toBeGreaterThan(56 * 16 * 1024);
      },
    );
  });
});
