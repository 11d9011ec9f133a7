/**
 * When the cold-start wire loads undici and which wire each call takes, with stand-in wires
 * that record their calls (cold-start.test.ts checks the real thing in a fresh process).
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coldStartWire } from '../../src/wire/cold-start-wire.js';
import type { WireRequest, WireResponse } from '../../src/wire/types.js';
import { request, standIn, turn } from '../helpers/stand-in-wire.js';

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

/** `count` calls, one after another. */
async function calls(wire: (req: WireRequest) => Promise<WireResponse>, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await (await wire(request())).text(100);
}

// The busy window reads performance.now(): a fake one, so that "quick" calls are quick however
// loaded the machine is (tests that move it say by how much).
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the cold-start wire', () => {
  it('stays on node:http for 63 quick calls, and never loads undici for them', async () => {
    const { log, cold, loads } = setUp();
    await calls(cold.wire, 63);
    await turn();
    expect(loads()).toBe(0);
    expect(new Set(log)).toEqual(new Set(['http']));
  });

  it('the 64th call within a second is sent over node:http, then undici loads and takes the next ones', async () => {
    const { log, http, cold, loads } = setUp();
    await calls(cold.wire, 64);
    expect(log.at(-1)).toBe('http');
    await turn();
    expect(loads()).toBe(1);
    await turn();
    await calls(cold.wire, 2);
    expect(log.slice(64)).toEqual(['undici', 'undici']);
    // The http side is closed once undici took over.
    expect(http.closed()).toBe(1);
  });

  it('calls spread out (one per Lambda invocation, say) never load undici', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { log, cold, loads } = setUp();
    for (let i = 0; i < 200; i++) {
      await calls(cold.wire, 1);
      vi.advanceTimersByTime(20); // 50 calls a second
    }
    await turn();
    expect(loads()).toBe(0);
    expect(new Set(log)).toEqual(new Set(['http']));
  });

  it('sends a streamed body (an upload) through undici at once, and starts loading it', async () => {
    const { log, cold, loads } = setUp();
    void cold.wire(request(new PassThrough()));
    expect(log).toEqual(['undici']);
    expect(loads()).toBe(1);
  });

  it('when undici cannot be loaded, JSON calls stay on node:http', async () => {
    const { log, cold, loads } = setUp(() => Promise.reject(new Error('not bundled')));
    await calls(cold.wire, 64);
    await turn();
    await turn();
    expect(loads()).toBe(1);
    await calls(cold.wire, 1);
    expect(log.at(-1)).toBe('http');
  });

  it('close() closes both sides, never loads undici, and a later call goes to the (closed) http side', async () => {
    const { log, http, undici, cold, loads } = setUp();
    await cold.close();
    expect([http.closed(), undici.closed()]).toEqual([1, 1]);
    void cold.wire(request(new PassThrough()));
    await calls(cold.wire, 64);
    await turn();
    expect(new Set(log)).toEqual(new Set(['http']));
    expect(loads()).toBe(0);
  });
});

describe('the cold-start wire schedules the load once', () => {
  /** How many turns of the event loop the wire asked for while `run` ran (stand-in wires ask for none). */
  async function turnsAsked(run: () => Promise<void>): Promise<number> {
    const spy = vi.spyOn(globalThis, 'setImmediate');
    try {
      await run();
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }

  it('however many busy calls come before the turn: one turn asked, one load', async () => {
    const { cold, loads } = setUp();
    const pending: Promise<WireResponse>[] = [];
    const asked = await turnsAsked(async () => {
      for (let i = 0; i < 200; i++) pending.push(cold.wire(request()));
    });
    expect(asked).toBe(1);
    await Promise.all(pending);
    await turn();
    expect(loads()).toBe(1);
  });

  it('a load already under way (an upload started it): busy calls ask for no turn', async () => {
    const { cold, loads } = setUp(() => new Promise(() => undefined));
    void cold.wire(request(new PassThrough()));
    const asked = await turnsAsked(async () => {
      for (let i = 0; i < 100; i++) await cold.wire(request());
    });
    expect(asked).toBe(0);
    expect(loads()).toBe(1);
  });

  it('closed: busy calls ask for no turn', async () => {
    const { cold, loads } = setUp();
    await cold.close();
    const asked = await turnsAsked(async () => {
      for (let i = 0; i < 100; i++) await cold.wire(request());
    });
    expect(asked).toBe(0);
    expect(loads()).toBe(0);
  });
});

/**
 * The cold-start wire's promises that cold-start-wire.test.ts leaves open: the `'http'` choice
 * never leaves node:http for JSON calls, and "busy" means 64 calls within one second, its last
 * millisecond included. Stand-in wires record which side took each call.
 */
describe('choices and the busy window', () => {
  function setUp(choice?: 'cold-start' | 'http') {
    const log: string[] = [];
    const side = (name: string) => standIn(name, log);
    let loads = 0;
    const load = async () => {
      loads++;
    };
    const cold =
      choice === undefined
        ? coldStartWire(side('http'), side('undici'), load)
        : coldStartWire(side('http'), side('undici'), load, choice);
    const call = async (body?: string) => {
      await cold.wire(request(body));
    };
    return { log, cold, call, loads: () => loads };
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  describe('the cold-start wire', () => {
    it("with the 'http' choice, JSON calls stay on node:http however busy the client, and undici is never loaded for them", async () => {
      const { log, call, loads } = setUp('http');
      for (let i = 0; i < 200; i++) await call(i % 2 ? '{"a":1}' : undefined);
      await turn();
      await turn();
      await call();
      expect(loads()).toBe(0);
      expect(new Set(log)).toEqual(new Set(['http']));
    });

    it("with the 'http' choice, an upload still goes to undici", async () => {
      const { log, cold, loads } = setUp('http');
      await cold.wire(request(new PassThrough()));
      expect(log).toEqual(['undici']);
      expect(loads()).toBe(1);
    });

    it('the default choice is cold-start: busy, it moves to undici', async () => {
      const { log, call, loads } = setUp();
      for (let i = 0; i < 64; i++) await call('{}');
      await turn();
      await turn();
      await call('{}');
      expect(loads()).toBe(1);
      expect(log.at(-1)).toBe('undici');
    });

    it('64 calls with the last exactly 1 s after the first count as busy', async () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const { call, loads } = setUp('cold-start');
      for (let i = 0; i < 63; i++) await call();
      vi.advanceTimersByTime(1_000);
      await call();
      vi.useRealTimers();
      await turn();
      expect(loads()).toBe(1);
    });

    it('a call 1 s and 1 ms after the window opened starts a new window', async () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const { call, loads } = setUp('cold-start');
      for (let i = 0; i < 63; i++) await call();
      vi.advanceTimersByTime(1_001);
      for (let i = 0; i < 63; i++) await call();
      vi.useRealTimers();
      await turn();
      expect(loads()).toBe(0);
    });
  });
});
