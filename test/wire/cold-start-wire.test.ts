/**
 * When the cold-start wire loads undici and which wire each call takes, with stand-in wires
 * that record their calls (cold-start.test.ts checks the real thing in a fresh process).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { coldStartWire } from '../../src/wire/cold-start-wire.js';
import type { WireRequest, WireResponse } from '../../src/wire/types.js';

const signal = {
  aborted: false,
  reason: undefined,
  addEventListener: () => undefined,
  removeEventListener: () => undefined,
};

function request(body?: WireRequest['body']): WireRequest {
  return {
    url: 'http://127.0.0.1/x',
    origin: 'http://127.0.0.1',
    path: '/x',
    method: 'POST',
    headers: {},
    body,
    signal,
    timeoutMs: 1_000,
  };
}

/** A wire whose answers are read when the test says so. */
function standIn(name: string, log: string[]) {
  const pending: Array<() => void> = [];
  let closed = 0;
  return {
    wire: async (): Promise<WireResponse> => {
      log.push(name);
      return {
        status: 201,
        headers: () => ({}),
        text: () => new Promise((resolve) => pending.push(() => resolve({ text: '{}', truncated: false }))),
      };
    },
    close: async () => {
      closed++;
    },
    /** Lets the first `count` answers being read finish (all by default). */
    finish: (count = pending.length) => {
      for (const end of pending.splice(0, count)) end();
    },
    closed: () => closed,
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setUp(load: () => Promise<unknown> = async () => undefined) {
  const log: string[] = [];
  const http = standIn('http', log);
  const undici = standIn('undici', log);
  let loads = 0;
  const cold = coldStartWire(http, undici, () => {
    loads++;
    return load();
  });
  return { log, http, undici, cold, loads: () => loads };
}

async function call(wire: (req: WireRequest) => Promise<WireResponse>, body?: WireRequest['body']) {
  const response = await wire(request(body));
  return response.text(100);
}

describe('the cold-start wire', () => {
  it('loads undici a turn after the only call settled, and sends later calls through it', async () => {
    const { log, http, cold, loads } = setUp();
    const first = call(cold.wire);
    await turn();
    expect(loads()).toBe(0);
    http.finish();
    await first;
    expect(loads()).toBe(0); // not in the same turn: the caller runs on first
    await turn();
    expect(loads()).toBe(1);
    await turn();
    void cold.wire(request());
    expect(log).toEqual(['http', 'undici']);
    // The http side is closed once undici took over.
    expect(http.closed()).toBe(1);
  });

  it('does not load undici while another call is still in flight', async () => {
    const { http, cold, loads } = setUp();
    const a = call(cold.wire);
    const b = call(cold.wire);
    await turn();
    http.finish();
    await Promise.all([a, b]);
    await turn();
    expect(loads()).toBe(1);

    const c = setUp();
    const first = call(c.cold.wire);
    await turn();
    c.http.finish();
    const second = call(c.cold.wire); // starts before the turn in which the load would start
    await first;
    await turn();
    await turn();
    expect(c.loads()).toBe(0);
    c.http.finish();
    await second;
    await turn();
    expect(c.loads()).toBe(1);
  });

  it('a busy client (64 calls) loads undici even with calls in flight', async () => {
    const { http, cold, loads } = setUp();
    const calls = Array.from({ length: 63 }, () => call(cold.wire));
    await turn();
    http.finish(1); // settles while 62 are in flight: not yet busy
    await turn();
    await turn();
    expect(loads()).toBe(0);
    calls.push(call(cold.wire)); // the 64th
    await turn();
    http.finish(1);
    await turn();
    await turn();
    expect(loads()).toBe(1);
    http.finish();
    await Promise.all(calls);
  });

  it('sends a streamed body (an upload) through undici at once, and starts loading it', async () => {
    const { log, cold, loads } = setUp();
    void cold.wire(request(new PassThrough()));
    expect(log).toEqual(['undici']);
    expect(loads()).toBe(1);
  });

  it('when undici cannot be loaded, JSON calls stay on node:http', async () => {
    const { log, http, cold, loads } = setUp(() => Promise.reject(new Error('not bundled')));
    const first = call(cold.wire);
    await turn();
    http.finish();
    await first;
    await turn();
    await turn();
    expect(loads()).toBe(1);
    void cold.wire(request());
    expect(log).toEqual(['http', 'http']);
  });

  it('close() closes both sides, never loads undici, and a later call goes to the (closed) http side', async () => {
    const { log, http, undici, cold, loads } = setUp();
    await cold.close();
    expect([http.closed(), undici.closed()]).toEqual([1, 1]);
    void cold.wire(request(new PassThrough()));
    await turn();
    expect(log).toEqual(['http']);
    expect(loads()).toBe(0);
  });
});
