// Issue #20 point 3: a back-off shared by workers. When one worker is told to wait (a 429, or a
// 503 with Retry-After), every worker sharing the PostgreSQL journal waits too, so a fleet
// does not hammer a rate-limited API. Workers here are runs in this process, each with a store
// (and a pool) of its own, against one local server.
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileClaims } from '../../src/batch/file-claims.js';
import { PostgresJournalStore } from '../../src/batch/postgres/index.js';
import type { ClaimResult } from '../../src/batch/result.js';
import { ClaimsClient } from '../../src/platform/node.js';
import {
  type Answer,
  type ClaimsServer,
  claimLine,
  defaultAnswer,
  startClaimsServer,
} from '../batch/claims-server.js';
import { usePostgres } from './use-postgres.js';

const db = await usePostgres();

let server: ClaimsServer;
let tables = 0;
beforeEach(async () => {
  server = await startClaimsServer();
});
afterEach(() => server.close());

let admin: pg.Client | undefined;
afterAll(async () => {
  await admin?.end();
});

const WORKERS = 3;
const CONCURRENCY = 2;
const WAIT_MS = 1_200;
const keys = Array.from({ length: 120 }, (_, i) => `B${String(i + 1).padStart(3, '0')}`);

/** Runs every worker on the same input and journal table; each worker's results. */
async function runWorkers(table: string): Promise<ClaimResult[][]> {
  return Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', maxRetries: 0 });
      const journal = new PostgresJournalStore({ connectionString: db?.url, table, worker: `w${w}` });
      const results: ClaimResult[] = [];
      for await (const r of fileClaims(
        client,
        keys.map((k) => claimLine(k)),
        { journal, concurrency: CONCURRENCY, maxRetries: 2 },
      ))
        results.push(r);
      return results;
    }),
  );
}

/** Resolves once the journal's shared back-off row holds (committed: every later statement sees it). */
async function backoffVisible(table: string): Promise<number> {
  if (!admin) {
    admin = new pg.Client({ connectionString: db?.url });
    await admin.connect();
  }
  for (let tries = 0; tries < 2_000; tries++) {
    const { rows } = await admin.query(
      `SELECT 1 FROM "${table}_meta" WHERE name = 'backoff' AND until > now()`,
    );
    if (rows.length > 0) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the back-off row never appeared');
}

describe.skipIf(!db)('a back-off shared by every worker on one PostgreSQL journal', () => {
  for (const [what, toldToWait] of [
    ['a 429 with Retry-After', { status: 429, body: { message: 'slow down' } }],
    ['a 503 with Retry-After', { status: 503, body: { message: 'overloaded' } }],
  ] as const) {
    it(`${what} to one worker: no worker sends until the wait is over; every key filed once`, async () => {
      const table = `backoff_${process.pid}_${++tables}`;
      let toldAt = 0;
      let visible: Promise<number> | undefined;
      server.answer = (key, n): Answer => {
        if (n === 0) {
          toldAt = Date.now();
          visible = backoffVisible(table);
          return { ...toldToWait, headers: { 'retry-after-ms': String(WAIT_MS) } };
        }
        // Answers to the POSTs that arrive before the back-off is visible wait for it: the
        // count below starts once every worker's next claim must see it.
        const answer = { ...defaultAnswer(key), delayMs: 3 };
        return visible ? { ...answer, hold: visible.then(() => undefined) } : answer;
      };
      const results = (await runWorkers(table)).flat();
      const seenAt = await (visible as Promise<number>);

      // From the moment the back-off was visible until it ended, at most the claims that had
      // already passed their check (one per slot of each worker) reached the server; without a
      // shared back-off the other workers would have sent on for the whole wait.
      const during = server.arrivals.filter((t) => t > seenAt && t < toldAt + WAIT_MS).length;
      expect(during).toBeLessThanOrEqual(WORKERS * CONCURRENCY);
      // Work went on after the wait: the batch was not simply over.
      expect(server.arrivals.filter((t) => t >= toldAt + WAIT_MS).length).toBeGreaterThan(
        WORKERS * CONCURRENCY,
      );

      // Every key filed exactly once over the workers (the 429'd one sent again after the
      // wait; the 503'd one is unknown: it may have been processed).
      const first = server.received[0] as string;
      const after = server.received.slice(1);
      expect(new Set(after).size).toBe(after.length);
      expect(after.length).toBe(toldToWait.status === 429 ? keys.length : keys.length - 1);
      const byKey = new Map<string, string>();
      for (const r of results) if (r.note === 'sent') byKey.set(r.key, r.state);
      if (toldToWait.status === 429) expect(byKey.get(first)).toBe('filed');
      else expect(byKey.get(first)).toBe('unknown');
      expect([...byKey.entries()].filter(([k, s]) => k !== first && s !== 'filed')).toEqual([]);
      expect(byKey.size).toBe(keys.length);
    }, 30_000);
  }

  it('the back-off is kept on the database clock in <table>_meta, and only moves later', async () => {
    const table = `backoff_${process.pid}_${++tables}`;
    const a = new PostgresJournalStore({ connectionString: db?.url, table });
    const b = new PostgresJournalStore({ connectionString: db?.url, table });
    await a.open();
    await b.open();
    try {
      expect(b.pausedUntil()).toBe(0);
      await a.pauseAll(30_000);
      await b.pauseAll(10);
      // b read the longer one back with its own write.
      expect(b.pausedUntil()).toBeGreaterThan(Date.now() + 25_000);
      const reader = new pg.Client({ connectionString: db?.url });
      await reader.connect();
      const { rows } = await reader
        .query(
          `SELECT name, value, (until - now() > interval '25 seconds') AS long FROM "${table}_meta" ORDER BY name`,
        )
        .finally(() => reader.end());
      expect(rows).toEqual([
        { name: 'backoff', value: null, long: true },
        { name: 'schema', value: '2', long: null },
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
