// The order a run takes its claims in on a shared journal: the input's order while it is alone;
// elsewhere (a random point) once it met another run, and the journal read again to settle at
// once the keys the other runs settled. Every key still asked for or reported exactly once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchStoppedError } from '../../src/batch/errors.js';
import { fileClaims } from '../../src/batch/file-claims.js';
import type { JournalRecord } from '../../src/batch/record.js';
import type { ClaimResult } from '../../src/batch/result.js';
import type { JournalStore } from '../../src/batch/store.js';
import { Walk } from '../../src/batch/walk.js';
import { ClaimsClient } from '../../src/index.js';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from './claims-server.js';
import { MemorySharedStore } from './memory-shared-store.js';

let server: ClaimsServer;
let client: ClaimsClient;
beforeEach(async () => {
  server = await startClaimsServer();
  client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
});

const keys = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `K${from + i}`);

interface Other {
  /** Keys another live run is sending: a claim on them is refused, heldElsewhere. */
  held?: Set<string>;
  /** Keys another run filed: a claim on them is refused with the filed record, and load() gives them. */
  filed?: Set<string>;
  /** Keys another run left not_sent (a re-read gives them; a claim must name that record as previous). */
  notSent?: Set<string>;
  /** Keys of no claim of this run's input, given by a re-read first. */
  strangers?: string[];
  /** Waited for by a claim on a key another run filed (the test's way to order things). */
  before?: (key: string) => Promise<void> | undefined;
}

/** A shared store in memory whose other runs are scripted: see {@link Other}. */
function scripted(other: Other, shared = true) {
  const asked: string[] = [];
  let loads = 0;
  const filedRecord = (key: string): JournalRecord => ({
    key,
    state: 'filed',
    bodyHash: 'elsewhere',
    at: '2026-11-26T10:00:00.000Z',
    incidentId: `INC-${key}`,
  });
  const store: JournalStore & { asked: string[]; loads: () => number } = {
    shared,
    asked,
    loads: () => loads,
    open: async () => {},
    async *load() {
      // The first load is the run's start: the other runs had written nothing yet.
      if (loads++ === 0) return;
      for (const key of other.strangers ?? []) yield filedRecord(key);
      for (const key of other.notSent ?? [])
        yield { ...filedRecord(key), state: 'not_sent', incidentId: undefined };
      for (const key of other.filed ?? []) yield filedRecord(key);
      for (const key of other.held ?? [])
        yield {
          key,
          state: 'sending',
          bodyHash: 'elsewhere',
          at: '2026-11-26T10:00:00.000Z',
          heldElsewhere: true,
        };
    },
    claim: async (record, previous) => {
      asked.push(record.key);
      // A key another run left not_sent is taken only by naming that record, as a database's would be.
      if (other.notSent?.has(record.key) && previous?.state !== 'not_sent')
        return {
          taken: false,
          latest: { ...filedRecord(record.key), state: 'not_sent', incidentId: undefined },
        };
      if (other.filed?.has(record.key)) {
        await other.before?.(record.key);
        return { taken: false, latest: filedRecord(record.key) };
      }
      if (other.held?.has(record.key))
        return { taken: false, latest: { ...record, bodyHash: 'elsewhere', heldElsewhere: true } };
      return { taken: true };
    },
    append: async () => {},
    close: async () => {},
  };
  return store;
}

async function run(store: JournalStore, all: string[], concurrency: number): Promise<ClaimResult[]> {
  const results: ClaimResult[] = [];
  for await (const r of fileClaims(
    client,
    all.map((k) => claimLine(k)),
    { journal: store, concurrency },
  ))
    results.push(r);
  return results;
}

function expectEachOnce(results: ClaimResult[], all: string[]): void {
  expect(results.map((r) => r.key).sort()).toEqual([...all].sort());
}

describe('Walk', () => {
  it('gives each position once, in order, and goes on from where it is moved to, round to the start', () => {
    const walk = new Walk(6);
    expect([walk.next(), walk.next()]).toEqual([0, 1]);
    walk.jumpTo(4);
    expect(walk.visited(4)).toBe(false);
    expect([walk.next(), walk.next(), walk.next()]).toEqual([4, 5, 2]);
    expect(walk.visited(4)).toBe(true);
    expect(walk.visit(3)).toBe(true);
    expect(walk.visit(3)).toBe(false);
    expect(walk.next()).toBeUndefined();
    expect(walk.rest()).toEqual([]);
    const stopped = new Walk(5);
    stopped.next();
    stopped.visit(3);
    expect(stopped.rest()).toEqual([1, 2, 4]);
    expect(stopped.next()).toBeUndefined();
    expect(new Walk(0).next()).toBeUndefined();
  });
});

describe('the walk of a run over a shared journal', () => {
  it('alone on it: the keys asked for in the input order, at any concurrency, and the journal read once', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    for (const concurrency of [1, 4]) {
      const store = scripted({});
      const all = keys(40);
      const results = await run(store, all, concurrency);
      expect(store.asked).toEqual(all);
      expect(store.loads()).toBe(1);
      expectEachOnce(results, all);
      expect(results.every((r) => r.state === 'filed' && r.note === 'sent')).toBe(true);
    }
    expect(server.received).toHaveLength(80);
  });

  it('meeting a live run: goes on from a random point, round to the start; each key asked and reported once', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const store = scripted({ held: new Set(['K1']) });
    const all = keys(10);
    const results = await run(store, all, 1);
    expect(store.asked).toEqual(['K0', 'K1', 'K5', 'K6', 'K7', 'K8', 'K9', 'K2', 'K3', 'K4']);
    expect(server.received).toEqual(store.asked.filter((k) => k !== 'K1'));
    expectEachOnce(results, all);
    expect(results.find((r) => r.key === 'K1')).toMatchObject({ state: 'unknown', note: 'taken_elsewhere' });
    // 1 claim taken since the start: too few to read the journal again.
    expect(store.loads()).toBe(1);
  });

  it('a single-run store is never walked elsewhere', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    // Not shared: a refusal there is no other run's (a store of yours may still refuse).
    const store = scripted({ filed: new Set(['K1']) }, false);
    await run(store, keys(10), 1);
    expect(store.asked).toEqual(keys(10));
  });

  it('having taken its share: reads the journal again and settles the keys others settled without asking for them', async () => {
    // Jumps go to the start: the walk then goes on at the first key not visited.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let reread: () => void = () => {};
    const read = new Promise<void>((resolve) => (reread = resolve));
    const filed = new Set(keys(30, 30)); // K30..K59, filed by another run
    const held = new Set(['K70']); // another run is sending it
    const notSent = new Set(['K80']); // another run left it not_sent: this run sends it
    const store = scripted({
      filed,
      held,
      notSent,
      strangers: ['X1'], // not in this input: passed over
      before: (key) => (key === 'K31' ? read : undefined),
    });
    const load = store.load.bind(store);
    store.load = async function* () {
      yield* load();
      if (store.loads() > 1) reread();
    };
    const all = keys(100);
    const results = await run(store, all, 1);
    // K0..K29 taken (at least 16 per unit of concurrency), K30 refused: the journal read again
    // while K31's claim is under way; K32..K59 and K70 settled by it, never asked for; K80
    // asked for once, naming the not_sent record the read gave.
    expect(store.loads()).toBe(2);
    expect(store.asked).toEqual([...keys(32), ...keys(10, 60), ...keys(29, 71)]);
    expectEachOnce(results, all);
    for (const key of filed)
      expect(results.find((r) => r.key === key)).toMatchObject({
        state: 'filed',
        note: 'conflict',
        incidentId: `INC-${key}`,
      });
    expect(results.find((r) => r.key === 'K70')).toMatchObject({ state: 'unknown', note: 'taken_elsewhere' });
    expect(results.find((r) => r.key === 'K80')).toMatchObject({ state: 'filed', note: 'sent' });
    expect(new Set(server.received)).toEqual(new Set([...keys(30), ...keys(10, 60), ...keys(29, 71)]));
    expect(server.received).toHaveLength(69);
  });

  it('reads again no sooner than 16 claims per unit of concurrency, nor than a 32nd of the batch', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    // The refused claim counts: K14 is the 15th asked for, too soon; K15 the 16th.
    const soon = scripted({ filed: new Set(['K14']) });
    await run(soon, keys(40), 1);
    expect(soon.loads()).toBe(1);
    const enough = scripted({ filed: new Set(['K15']) });
    await run(enough, keys(40), 1);
    expect(enough.loads()).toBe(2);
    // 16 per unit of concurrency: at 2, some 21 asked for is too few.
    const two = scripted({ filed: new Set(['K20']) });
    await run(two, keys(40), 2);
    expect(two.loads()).toBe(1);
    // A 32nd of 1,056 claims is 33: 32 asked for is too few, 33 enough. (K34's 403 stops the
    // batch there: the other thousand claims need not be sent to show it.)
    server.answer = (key) =>
      key === 'K34' ? { status: 403, body: { message: 'forbidden' } } : defaultAnswer(key);
    const big = scripted({ filed: new Set(['K31']) });
    await expect(run(big, keys(1_056), 1)).rejects.toBeInstanceOf(BatchStoppedError);
    expect(big.loads()).toBe(1);
    const big2 = scripted({ filed: new Set(['K32']) });
    await expect(run(big2, keys(1_056), 1)).rejects.toBeInstanceOf(BatchStoppedError);
    expect(big2.loads()).toBe(2);
    expect(big2.asked).toEqual(keys(35));
  });

  it('reads again each time it has taken its share anew', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const filed = new Set(['K20']);
    const store = scripted({ filed });
    const load = store.load.bind(store);
    store.load = async function* () {
      yield* load();
      // Another run files K40 after this run's first read.
      if (store.loads() === 2) filed.add('K40');
    };
    const all = keys(60);
    const results = await run(store, all, 1);
    // K20 (21 asked): read; K40 (20 asked since): read again.
    expect(store.loads()).toBe(3);
    expect(store.asked).toEqual(all);
    expectEachOnce(results, all);
  });

  it('a journal that cannot be read again changes nothing: each key is asked for as before', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const store = scripted({ filed: new Set(['K20', 'K21']) });
    const load = store.load.bind(store);
    let failed = 0;
    store.load = async function* () {
      if (store.loads() > 0) {
        failed++;
        throw new Error('connection lost');
      }
      yield* load();
    };
    const all = keys(30);
    const results = await run(store, all, 1);
    expect(failed).toBe(1);
    expect(store.asked).toEqual(all);
    expectEachOnce(results, all);
  });

  it('stopped before taking them: the keys not visited are reported not_sent, once', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    server.answer = (key) =>
      key === 'K6' ? { status: 403, body: { message: 'forbidden' } } : defaultAnswer(key);
    const store = scripted({ held: new Set(['K1']) });
    const all = keys(10);
    const results: ClaimResult[] = [];
    await expect(async () => {
      for await (const r of fileClaims(
        client,
        all.map((k) => claimLine(k)),
        { journal: store, concurrency: 1 },
      ))
        results.push(r);
    }).rejects.toBeInstanceOf(BatchStoppedError);
    expect(store.asked).toEqual(['K0', 'K1', 'K5', 'K6']);
    expectEachOnce(results, all);
    const notSent = results.filter((r) => r.state === 'not_sent').map((r) => r.key);
    expect(notSent.sort()).toEqual(['K2', 'K3', 'K4', 'K6', 'K7', 'K8', 'K9']);
  });

  it('two runs at once on one journal: every key sent once in all, each run reports every key once', async () => {
    const all = keys(300);
    const name = `walk-${Math.random()}`;
    const [a, b] = await Promise.all([
      run(new MemorySharedStore(name), all, 4),
      run(new MemorySharedStore(name), all, 4),
    ]);
    expectEachOnce(a as ClaimResult[], all);
    expectEachOnce(b as ClaimResult[], all);
    expect([...server.received].sort()).toEqual([...all].sort());
    for (const results of [a, b] as ClaimResult[][])
      expect(results.every((r) => r.state === 'filed' || r.note === 'taken_elsewhere')).toBe(true);
  });
});
