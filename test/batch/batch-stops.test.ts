import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchStoppedError } from '../../src/batch/errors.js';
import { fileClaims } from '../../src/batch/file-claims.js';
import { storeGrace } from '../../src/batch/grace.js';
import { Journal } from '../../src/batch/journal.js';
import type { JournalRecord } from '../../src/batch/record.js';
import type { ClaimResult } from '../../src/batch/result.js';
import type { JournalStore } from '../../src/batch/store.js';
import { ClaimsClient } from '../../src/index.js';
import { captureBatchPauses } from '../helpers/pauses.js';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from './claims-server.js';
import { mountSmallDisk } from './small-disk.js';

let server: ClaimsServer;
let dir: string;
let journal: string;
beforeEach(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'batch-stops-'));
  journal = join(dir, 'claims.journal');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${String(i + 1).padStart(3, '0')}`);

/** Every result, and what the iterator threw at the end (if anything). */
async function runAll(
  client: ClaimsClient,
  lines: ReturnType<typeof claimLine>[],
  options: Partial<Parameters<typeof fileClaims>[2]> = {},
): Promise<{ results: Map<string, ClaimResult>; error: unknown }> {
  const results = new Map<string, ClaimResult>();
  try {
    for await (const r of fileClaims(client, lines, { journal, concurrency: 4, ...options })) {
      expect(results.has(r.key), `${r.key} reported twice`).toBe(false);
      results.set(r.key, r);
    }
    return { results, error: undefined };
  } catch (error) {
    return { results, error };
  }
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A fetch that fails to connect (ECONNREFUSED) for the keys `refuse` names, else fetches. */
function refusingFetch(refuse: (key: string) => boolean): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { description?: string }) : {};
    if (body.description !== undefined && refuse(body.description)) {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
      });
    }
    return fetch(input, init);
  };
}

describe('an unreachable API stops the batch', () => {
  it('after one claim failed to connect on every attempt with no answer meanwhile: one reason, every key not_sent', async () => {
    const client = new ClaimsClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      accessToken: 'tok',
    });
    const pauses = captureBatchPauses();
    const { results, error } = await runAll(
      client,
      keys(40).map((k) => claimLine(k)),
      { maxRetries: 2 },
    );
    // The back-off's two pauses (0.5 s and 1 s, less up to 25% jitter) of each claim in flight
    // (4 at most), not 40 claims' worth, and no longer pause.
    expect(pauses.length).toBeGreaterThanOrEqual(2);
    expect(pauses.length).toBeLessThanOrEqual(2 * 4);
    for (const ms of pauses)
      expect((ms >= 375 && ms <= 500) || (ms >= 750 && ms <= 1_000), `${ms} ms`).toBe(true);
    expect(error).toBeInstanceOf(BatchStoppedError);
    expect(error).toMatchObject({ reason: 'unreachable', unrecorded: [] });
    expect((error as Error).message).toMatch(
      /^The API could not be reached: 3 attempt\(s\) to send key "K00\d" failed to connect \(.*ECONNREFUSED.*\), and no claim got an answer from the API meanwhile$/,
    );
    expect(results.size).toBe(40);
    expect([...results.values()].every((r) => r.state === 'not_sent')).toBe(true);
    // At most the 4 claims in flight were tried; the others were never taken.
    const untried = [...results.values()].filter(
      (r) => r.error === 'not sent: the batch stopped (unreachable)',
    );
    expect(untried.length).toBeGreaterThanOrEqual(36);
    expect(untried.every((r) => r.note === 'stopped')).toBe(true);
    const open = await Journal.open(journal, { readOnly: true });
    expect(open.needingReview()).toEqual([]);
    await open.close();
    // Once the API is back, the same batch files every claim.
    const again = await runAll(
      new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' }),
      keys(40).map((k) => claimLine(k)),
    );
    expect(again.error).toBeUndefined();
    expect([...again.results.values()].every((r) => r.state === 'filed')).toBe(true);
  });

  it('not while other claims get answers: the one claim that cannot connect is not_sent, the rest are filed', async () => {
    const client = new ClaimsClient({
      baseUrl: server.url,
      accessToken: 'tok',
      fetch: refusingFetch((key) => key === 'K001'),
    });
    server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 30 });
    const { results, error } = await runAll(
      client,
      keys(30).map((k) => claimLine(k)),
      { maxRetries: 2, concurrency: 2 },
    );
    expect(error).toBeUndefined();
    expect(results.get('K001')).toMatchObject({ state: 'not_sent', note: 'sent' });
    expect([...results.values()].filter((r) => r.state === 'filed')).toHaveLength(29);
  });

  it('not for a blip: connections refused for a moment, then answered, file every claim', async () => {
    let refusing = true;
    setTimeout(() => {
      refusing = false;
    }, 700);
    const client = new ClaimsClient({
      baseUrl: server.url,
      accessToken: 'tok',
      fetch: refusingFetch(() => refusing),
    });
    const { results, error } = await runAll(
      client,
      keys(12).map((k) => claimLine(k)),
      { maxRetries: 4 },
    );
    expect(error).toBeUndefined();
    expect([...results.values()].every((r) => r.state === 'filed')).toBe(true);
    expect(new Set(server.received).size).toBe(server.received.length);
  });
});

describe('a journal that cannot be written stops the batch, and says what it knows', () => {
  /** A file store whose final records fail (like a full disk) from the n-th on; its `sending` records are written. */
  async function failingAfter(n: number): Promise<JournalStore> {
    const { FileJournalStore } = await import('../../src/batch/file-store.js');
    const store = new FileJournalStore(journal);
    let finals = 0;
    const append = store.append.bind(store);
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    return Object.assign(store, {
      append: (record: JournalRecord) =>
        record.state !== 'sending' && ++finals > n ? Promise.reject(full) : append(record),
    });
  }

  it('lists the claims filed whose filed record was lost, reports every key, and sends nothing without a sending record', async () => {
    server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 20 });
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    const { results, error } = await runAll(
      client,
      keys(30).map((k) => claimLine(k)),
      { journal: await failingAfter(10) },
    );
    expect(error).toBeInstanceOf(BatchStoppedError);
    const stopped = error as BatchStoppedError;
    expect(stopped.reason).toBe('journal_failed');
    expect(stopped.message).toBe('The journal could not be written: ENOSPC: no space left on device, write');
    expect(results.size).toBe(30);
    const journalState = await Journal.open(journal, { readOnly: true });
    // Every claim that reached the server had its `sending` record durable first.
    for (const key of server.received) expect(journalState.get(key)?.state).toMatch(/^(sending|filed)$/);
    expect(new Set(server.received).size).toBe(server.received.length);
    // The keys the journal still says `sending` are exactly those listed, the filed ones with their ids.
    const sending = [...journalState.records()].filter((r) => r.state === 'sending').map((r) => r.key);
    expect(stopped.unrecorded.map((u) => u.key).sort()).toEqual(sending.sort());
    const filed = stopped.unrecorded.filter((u) => u.state === 'filed');
    expect(filed.length).toBeGreaterThan(0);
    for (const u of filed) {
      expect(u).toEqual({
        key: u.key,
        state: 'filed',
        incidentId: `INC-${u.key}`,
        requestId: `req-${u.key}`,
      });
      expect(results.get(u.key)).toMatchObject({ state: 'filed', incidentId: `INC-${u.key}` });
      expect(results.get(u.key)?.error).toBe(
        'its filed record could not be written: the journal still says sending, so it is not sent again until resolved (as filed, with its incidentId)',
      );
    }
    for (const u of stopped.unrecorded.filter((u) => u.state !== 'filed')) {
      expect(u).toEqual({ key: u.key, state: 'not_sent' });
      expect(server.received).not.toContain(u.key);
    }
    for (const [key, r] of results) {
      if (!server.received.includes(key)) expect([key, r.state]).toEqual([key, 'not_sent']);
    }
    await journalState.close();
  });

  const disk = mountSmallDisk(64);
  it.skipIf(typeof disk === 'string')(
    `on a full disk (a 64 KiB tmpfs: ENOSPC), the same; the journal stays readable and a re-run files nothing twice${typeof disk === 'string' ? ` (skipped: ${disk})` : ''}`,
    async () => {
      if (typeof disk === 'string') return;
      try {
        const onDisk = join(disk.dir, 'claims.journal');
        const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
        const lines = keys(400).map((k) => claimLine(k));
        const first = await runAll(client, lines, { journal: onDisk, concurrency: 8 });
        expect(first.error).toMatchObject({ reason: 'journal_failed' });
        expect((first.error as Error).message).toContain('ENOSPC');
        expect(first.results.size).toBe(400);
        // The operator moves the journal to a disk with room and runs again.
        copyFileSync(onDisk, journal);
        const second = await runAll(client, lines);
        expect(second.error).toBeUndefined();
        expect(new Set(server.received).size).toBe(server.received.length);
        const review = [...second.results.values()]
          .filter((r) => r.note === 'needs_review')
          .map((r) => r.key);
        expect(review.sort()).toEqual((first.error as BatchStoppedError).unrecorded.map((u) => u.key).sort());
        expect(second.results.size).toBe(400);
      } finally {
        disk.unmount();
      }
    },
    60_000,
  );
});

it('gives a journal store 5 s to answer after a stop, by default', () => {
  expect(storeGrace.ms).toBe(5_000);
});

describe('a journal store that never answers cannot keep an aborted batch running', () => {
  // 5 s in use; shortened here (the mechanism is the same) so the suite and mutation runs stay quick.
  const GRACE_MS = 400;
  beforeEach(() => {
    storeGrace.ms = GRACE_MS;
  });
  afterEach(() => {
    storeGrace.ms = 5_000;
  });

  const never = new Promise<never>(() => {});

  /**
   * The timers of exactly `ms` armed meanwhile (the grace's: no other timer of the run is that
   * long), held instead of run: `pass()` runs those not cleared, as if `ms` had passed. Records,
   * for each, whether `signal` had aborted when it was armed. Restored by `vi.restoreAllMocks()`.
   */
  function holdTimersOf(ms: number, signal: AbortSignal) {
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    const held = new Map<unknown, () => void>();
    const armedAfterAbort: boolean[] = [];
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      run: (...args: unknown[]) => void,
      delay?: number,
      ...args: unknown[]
    ) => {
      if (delay !== ms) return realSet(run, delay, ...args);
      // A real handle (clearTimeout accepts it), which never fires by itself.
      const handle = realSet(() => {}, 2 ** 31 - 1);
      handle.unref();
      held.set(handle, () => run(...args));
      armedAfterAbort.push(signal.aborted);
      return handle;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation((handle) => {
      held.delete(handle);
      realClear(handle);
    });
    return {
      armedAfterAbort,
      pass(): void {
        for (const [handle, run] of held) {
          held.delete(handle);
          realClear(handle as NodeJS.Timeout);
          run();
        }
      },
    };
  }

  it('gives up the grace after the abort, with every key reported', async () => {
    const store: JournalStore = {
      shared: false,
      open: async () => {},
      load: async function* () {},
      // K001's sending record is never durable; the final records never are.
      claim: (record) => (record.key === 'K001' ? never : Promise.resolve({ taken: true })),
      append: () => never,
      close: () => never,
    };
    const controller = new AbortController();
    // The first POST sets the abort off: no slot sends a second claim while its last final
    // record is not durable, and here none ever is.
    server.answer = (key, n) => {
      if (n === 0) setTimeout(() => controller.abort(), 20);
      return { ...defaultAnswer(key), delayMs: 50 };
    };
    // A grace no test waits out: its timer is held, and passed by hand.
    storeGrace.ms = 47_000;
    const grace = holdTimersOf(47_000, controller.signal);
    let ended = false;
    const run = runAll(
      new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' }),
      keys(10).map((k) => claimLine(k)),
      { journal: store, signal: controller.signal, concurrency: 2 },
    ).finally(() => {
      ended = true;
    });
    // The grace begins at the abort, not before: every grace timer armed once it aborted.
    await vi.waitFor(() => expect(grace.armedAfterAbort.length).toBeGreaterThan(0), { interval: 5 });
    expect(grace.armedAfterAbort.every(Boolean)).toBe(true);
    // Within the grace the run waits for the store: it does not end before the grace has passed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ended).toBe(false);
    // Once it has passed, the run ends, with nothing else to wait for.
    grace.pass();
    const { results, error } = await run;
    expect(error).toMatchObject({
      reason: 'journal_unresponsive',
      message: 'The journal store did not answer within 47 s of the stop; the run ended with what it knew',
    });
    expect(results.size).toBe(10);
    // K002 only: its slot then took K003 and wrote its sending record, but did not send it.
    expect(server.received).toEqual(['K002']);
    expect(results.get('K001')).toMatchObject({ state: 'not_sent' });
    for (const key of server.received)
      expect(results.get(key)).toMatchObject({ state: 'filed', incidentId: `INC-${key}` });
    const unrecorded = (error as BatchStoppedError).unrecorded;
    expect(unrecorded).toContainEqual({ key: 'K001', state: 'not_sent' });
    expect(
      unrecorded
        .filter((u) => u.state === 'filed')
        .map((u) => u.key)
        .sort(),
    ).toEqual([...server.received].sort());
  }, 20_000);

  it('a store whose close() never answers, after a batch aborted before it sent anything', async () => {
    const store: JournalStore = {
      shared: false,
      open: async () => {},
      load: async function* () {},
      claim: async () => ({ taken: true }),
      append: async () => {},
      close: () => never,
    };
    const { results, error } = await runAll(
      new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' }),
      [claimLine('K1')],
      { journal: store, signal: AbortSignal.abort() },
    );
    expect(error).toBeUndefined();
    expect(results.get('K1')).toMatchObject({ state: 'not_sent', note: 'aborted' });
  }, 20_000);

  it('a store that never opens: the abort ends it, nothing sent', async () => {
    const store: JournalStore = {
      shared: false,
      open: () => never,
      load: async function* () {},
      claim: async () => ({ taken: true }),
      append: async () => {},
      close: async () => {},
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { error } = await runAll(
      new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' }),
      [claimLine('K1')],
      {
        journal: store,
        signal: controller.signal,
      },
    );
    expect(error).toMatchObject({ reason: 'journal_unresponsive' });
    expect((error as Error).message).toBe(
      'The journal store did not open within 0.4 s of the abort; nothing was sent',
    );
    expect(server.received).toEqual([]);
  }, 20_000);
});
