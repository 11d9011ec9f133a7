// Runs sharing one PostgreSQL journal in this process: a run alone keeps the input's order;
// runs started together walk apart and read the journal again (src/batch/walk.ts,
// BatchRun#metAnotherRun), and still send each key once in all, each reporting every key once.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fileClaims } from '../../src/batch/file-claims.js';
import { PostgresJournalStore } from '../../src/batch/postgres/index.js';
import type { JournalRecord } from '../../src/batch/record.js';
import type { ClaimResult } from '../../src/batch/result.js';
import type { JournalStore } from '../../src/batch/store.js';
import { ClaimsClient } from '../../src/index.js';
import { type ClaimsServer, claimLine, startClaimsServer } from '../batch/claims-server.js';
import { rec } from '../helpers/journal-records.js';
import { usePostgres } from './use-postgres.js';

const db = await usePostgres();
let tables = 0;
const fresh = () => `walk_${process.pid}_${++tables}`;
const stores: PostgresJournalStore[] = [];
const store = (table: string) => {
  const made = new PostgresJournalStore({ connectionString: db?.url as string, table });
  stores.push(made);
  return made;
};
afterAll(() => Promise.all(stores.map((s) => s.close())));

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

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${String(i).padStart(4, '0')}`);

/** The keys a store was asked to claim, in order. */
function asking(journal: JournalStore, asked: string[]): JournalStore {
  const claim = journal.claim.bind(journal);
  journal.claim = (record, previous) => {
    asked.push(record.key);
    return claim(record, previous);
  };
  return journal;
}

async function run(journal: JournalStore, all: string[], concurrency = 4): Promise<ClaimResult[]> {
  const results: ClaimResult[] = [];
  for await (const r of fileClaims(
    client,
    all.map((k) => claimLine(k)),
    { journal, concurrency },
  ))
    results.push(r);
  return results;
}

describe.skipIf(!db)('runs sharing a PostgreSQL journal: the walk', () => {
  it('a run alone asks for the keys in the input order', async () => {
    const all = keys(120);
    const asked: string[] = [];
    const results = await run(asking(store(fresh()), asked), all);
    expect(asked).toEqual(all);
    expect(results.map((r) => r.key).sort()).toEqual(all);
    expect(results.every((r) => r.state === 'filed' && r.note === 'sent')).toBe(true);
  });

  it('4 runs started together: each key sent once in all, reported once by each run, far fewer claims than 4 a key', async () => {
    const all = keys(600);
    const table = fresh();
    const asked: string[][] = [[], [], [], []];
    const reports = await Promise.all(asked.map((a) => run(asking(store(table), a), all)));
    const seen = new Set<string>();
    expect(server.received.filter((k) => seen.has(k) || !seen.add(k))).toEqual([]);
    expect([...seen].sort()).toEqual(all);
    for (const [i, results] of reports.entries()) {
      expect(results.map((r) => r.key).sort()).toEqual(all);
      // Each run asked for each key at most once.
      expect(new Set(asked[i]).size).toBe(asked[i]?.length);
      for (const r of results) {
        expect(['sent', 'already_filed', 'taken_elsewhere']).toContain(r.note);
        if (r.note === 'taken_elsewhere') expect(r.state).toBe('unknown');
        else expect(r.state).toBe('filed');
      }
    }
    // Every key filed by one run and read as such by the others: in all, each key's sending
    // record is asked for by fewer than the four runs (lock-step asked every key four times).
    const claims = asked.reduce((n, a) => n + a.length, 0);
    expect(claims).toBeLessThan(4 * all.length);
  });

  it('a row read again while the run writes the key never moves back the version its next write compares with', async () => {
    const journal = store(fresh());
    await journal.open();
    expect(await journal.claim(rec('J', 'sending'), undefined)).toEqual({ taken: true });
    expect(await journal.claim(rec('K', 'sending'), undefined)).toEqual({ taken: true });
    // The page is read (J and K at their first version), J yielded, K not yet.
    const reading = journal.load()[Symbol.asyncIterator]();
    expect((await reading.next()).value?.key).toBe('J');
    await journal.append(rec('K', 'unknown', { error: 'no usable answer' }));
    // K's older row now comes out of the read; K's next write still compares with the newer.
    expect((await reading.next()).value).toMatchObject({ key: 'K', state: 'sending' });
    await journal.append(rec('K', 'filed', { incidentId: 'INC-K', resolvedBy: 'user' }));
    const now = new Map<string, JournalRecord>();
    for await (const r of journal.load()) now.set(r.key, r);
    expect(now.get('K')).toMatchObject({ state: 'filed', incidentId: 'INC-K' });
  });
});
