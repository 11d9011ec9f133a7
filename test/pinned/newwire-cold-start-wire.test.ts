/**
 * The cold-start wire's promises that cold-start-wire.test.ts leaves open: the `'http'` choice
 * never leaves node:http for JSON calls, and "busy" means 64 calls within one second, its last
 * millisecond included. Stand-in wires record which side took each call.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { coldStartWire } from '../../src/wire/cold-start-wire.js';
import { request, standIn, turn } from '../helpers/stand-in-wire.js';

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

describe('the cold-start wire (pinned)', () => {
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
