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
import { withClient } from './with-client.js';

const db = await usePostgres();
/** Runs one statement as the database's owner (a trigger of the test's). */
async function admin(sql: string): Promise<void> {
  await withClient(db?.url as string, (client) => client.query(sql));
}
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

/** How a store was read: calls of `load` and `loadChanges`, and the records each gave. */
interface Reads {
  load: number;
  loadChanges: number;
  loaded: number;
  changes: number;
  /** Records `loadChanges` gave that this store had already given (same key, same version). */
  again: number;
}

function reading(journal: JournalStore, reads: Reads): JournalStore {
  const load = journal.load.bind(journal);
  const loadChanges = (journal.loadChanges as () => AsyncIterable<JournalRecord>).bind(journal);
  const given = new Set<string>();
  const seen = (r: JournalRecord) => `${r.key} ${r.state} ${r.at} ${r.heldElsewhere === true}`;
  journal.load = async function* () {
    reads.load++;
    for await (const r of load()) {
      reads.loaded++;
      given.add(seen(r));
      yield r;
    }
  };
  journal.loadChanges = async function* () {
    reads.loadChanges++;
    for await (const r of loadChanges()) {
      reads.changes++;
      if (given.has(seen(r))) reads.again++;
      given.add(seen(r));
      yield r;
    }
  };
  return journal;
}
const noReads = (): Reads => ({ load: 0, loadChanges: 0, loaded: 0, changes: 0, again: 0 });

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
    const reads = asked.map(noReads);
    const reports = await Promise.all(
      asked.map((a, i) => run(reading(asking(store(table), a), reads[i] as Reads), all)),
    );
    // Each run loaded the journal once, at its open, and read it again only by its changes.
    expect(reads.map((r) => r.load)).toEqual([1, 1, 1, 1]);
    expect(reads.some((r) => r.loadChanges > 0)).toBe(true);
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

  it('runs whose every read of changes gives again every record it gave before (as within the margin): each key sent once, reported once by each run', async () => {
    const all = keys(400);
    const table = fresh();
    const first = store(table);
    await first.open();
    await first.close();
    // Every write stamped a day ahead: each read of changes gives every row another run wrote.
    await admin(
      `CREATE FUNCTION "${table}_ahead"() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN NEW.updated_at := now() + interval '1 day'; RETURN NEW; END $$`,
    );
    await admin(
      `CREATE TRIGGER ahead BEFORE INSERT OR UPDATE ON "${table}" FOR EACH ROW EXECUTE FUNCTION "${table}_ahead"()`,
    );
    // 100 keys filed by an earlier run: settled at each run's open, and given again by every
    // read of changes (which no run takes on: it reported them already).
    const filedBefore = all.slice(0, 100);
    expect((await run(store(table), filedBefore)).every((r) => r.state === 'filed')).toBe(true);
    const sentBefore = server.received.length;
    const asked: string[][] = [[], [], []];
    const reads = asked.map(noReads);
    const reports = await Promise.all(
      asked.map((a, i) => run(reading(asking(store(table), a), reads[i] as Reads), all)),
    );
    const seen = new Set<string>();
    expect(server.received.filter((k) => seen.has(k) || !seen.add(k))).toEqual([]);
    expect(server.received.slice(sentBefore).sort()).toEqual(all.slice(100));
    for (const [i, results] of reports.entries()) {
      expect(results.map((r) => r.key).sort()).toEqual(all);
      for (const r of results.filter((r) => filedBefore.includes(r.key)))
        expect(r.note).toBe('already_filed');
      expect(new Set(asked[i]).size).toBe(asked[i]?.length);
      expect(asked[i]?.filter((k) => filedBefore.includes(k))).toEqual([]);
    }
    const readAgain = reads.filter((r) => r.loadChanges > 0);
    expect(readAgain.length).toBeGreaterThan(0);
    // Each read of changes gave the 100 again, at least.
    for (const r of readAgain) expect(r.again).toBeGreaterThanOrEqual(100 * r.loadChanges);
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
