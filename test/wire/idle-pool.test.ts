/**
 * The idle-connection rule both pools share (src/wire/idle-pool.ts): when a request goes out on
 * a fresh connection after an idle gap (stale keep-alive sockets), and how the server's
 * `keep-alive` header shortens that gap. The same cases run on both pools, undici's dispatcher
 * and the `node:http` wire's agents, with the clock given by hand, so the limits are checked to
 * the millisecond. What each pool does with the one it replaces, and the proxy or TLS options
 * it is made with, are in dispatcher.test.ts and http-agent.test.ts.
 */
import type { Agent } from 'node:http';
import type { Dispatcher } from 'undici';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { OwnDispatcher } from '../../src/wire/dispatcher.js';
import { type HttpClient, OwnHttpAgent } from '../../src/wire/http-agent.js';
import { IDLE_LIMIT_MS } from '../../src/wire/idle-pool.js';

/** A pool whose connections are numbered stand-ins: `take` gives the number of the one it got. */
interface NumberedPool {
  take(now: number): number;
  touch(now: number, keepAlive: string | readonly string[] | undefined): void;
}

const POOLS: ReadonlyArray<readonly [string, () => NumberedPool]> = [
  [
    'undici’s dispatcher (OwnDispatcher)',
    () => {
      let made = 0;
      const own = new OwnDispatcher(
        () => ({ n: ++made, close: async () => undefined }) as unknown as Dispatcher,
        false,
      );
      return {
        take: (now) => (own.take(undici, now) as unknown as { n: number }).n,
        touch: (now, keepAlive) => own.touch(now, keepAlive),
      };
    },
  ],
  [
    'the node:http wire’s agents (OwnHttpAgent)',
    () => {
      let made = 0;
      const agents = new OwnHttpAgent(
        () => ({ n: ++made, keepAlive: true, freeSockets: {} }) as unknown as Agent,
      );
      const client = { secure: false } as HttpClient;
      return {
        take: (now) => (agents.take(client, now) as unknown as { n: number }).n,
        touch: (now, keepAlive) => agents.touch(now, keepAlive),
      };
    },
  ],
];

describe.each(POOLS)('%s: a fresh connection after an idle gap', (_name, make) => {
  it(`keeps the connection up to ${IDLE_LIMIT_MS} ms idle (counted from the last request), a fresh one after`, () => {
    const pool = make();
    expect(pool.take(1_000)).toBe(1);
    expect(pool.take(1_000 + IDLE_LIMIT_MS)).toBe(1);
    expect(pool.take(1_000 + 2 * IDLE_LIMIT_MS + 1)).toBe(2);
    expect(pool.take(1_000 + 2 * IDLE_LIMIT_MS + 1)).toBe(2);
  });

  it('counts the idle gap from the last answer (touch), not from when the request was sent', () => {
    const pool = make();
    pool.take(0);
    pool.touch(3_000, undefined);
    expect(pool.take(3_000 + IDLE_LIMIT_MS)).toBe(1);
  });

  it.each([
    ['timeout=3', 2_000],
    ['timeout=3, max=100', 2_000],
    // The parameter's name in any case, anywhere in the header.
    ['Timeout=3, max=100', 2_000],
    ['Timeout=3', 2_000],
    ['max=100, timeout=2', 1_000],
    // A server keep-alive of 1 s or less: a fresh connection after any idle gap, never a negative limit.
    ['timeout=1', 0],
    ['timeout=0', 0],
    // The server allows longer than we do: our own limit stays (a number of several digits read whole).
    ['timeout=5', IDLE_LIMIT_MS],
    ['timeout=10', IDLE_LIMIT_MS],
    ['timeout=15', IDLE_LIMIT_MS],
    ['timeout=120', IDLE_LIMIT_MS],
    // No timeout announced: our own limit.
    ['max=100', IDLE_LIMIT_MS],
    ['', IDLE_LIMIT_MS],
  ])('keep-alive "%s": a fresh connection after more than %i ms idle', (keepAlive, limitMs) => {
    const pool = make();
    pool.take(0);
    pool.touch(10, keepAlive);
    expect(pool.take(10 + limitMs)).toBe(1);
    expect(pool.take(10 + 2 * limitMs + 1)).toBe(2);
  });

  it('a keep-alive header sent on two lines (the wires give an array): one list, its timeout holds', () => {
    const pool = make();
    pool.take(0);
    pool.touch(0, ['max=100', 'timeout=2']);
    expect(pool.take(1_000)).toBe(1);
    expect(pool.take(2_001)).toBe(2);
  });

  it('a later answer without a keep-alive timeout keeps the limit the server announced before', () => {
    const pool = make();
    pool.take(0);
    pool.touch(0, 'timeout=2');
    pool.touch(0, 'max=100');
    pool.touch(100, undefined);
    expect(pool.take(1_100)).toBe(1);
    expect(pool.take(2_101)).toBe(2);
  });

  it('a server limit longer than the last one announced: the new one holds (9 s less a margin, never past ours)', () => {
    const pool = make();
    pool.take(0);
    pool.touch(0, 'Timeout=3');
    expect(pool.take(2_001)).toBe(2);
    pool.touch(10_000, 'timeout=10');
    expect(pool.take(10_000 + IDLE_LIMIT_MS)).toBe(2);
    expect(pool.take(10_000 + 2 * IDLE_LIMIT_MS + 1)).toBe(3);
  });
});
