import { inspect } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JournalError } from '../../src/batch/errors.js';
import { Journal } from '../../src/batch/journal.js';
import { PostgresJournalStore, type PostgresJournalStoreOptions } from '../../src/batch/postgres/index.js';
import { migrations, tablesOf } from '../../src/batch/postgres/schema.js';
import type { JournalRecord } from '../../src/batch/record.js';
import { rec } from '../helpers/journal-records.js';
import { usePostgres } from './use-postgres.js';

const db = await usePostgres();
const url = db?.url as string;
let tables = 0;
const fresh = () => `store_${process.pid}_${++tables}`;
const open: PostgresJournalStore[] = [];
async function opened(options: Partial<PostgresJournalStoreOptions> = {}, readOnly = false) {
  const store = new PostgresJournalStore({ connectionString: url, table: fresh(), ...options });
  await store.open(readOnly ? { readOnly } : {});
  open.push(store);
  return store;
}
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

let admin: pg.Client;
beforeAll(async () => {
  if (!db) return;
  admin = new pg.Client(url);
  await admin.connect();
});
afterAll(() => admin?.end());

async function loadAll(store: PostgresJournalStore): Promise<JournalRecord[]> {
  const out: JournalRecord[] = [];
  for await (const r of store.load()) out.push(r);
  return out;
}
async function failure(promise: Promise<unknown>): Promise<JournalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalError);
  return error as JournalError;
}

describe.skipIf(!db)('PostgresJournalStore', () => {
  describe('the password, in the URL or PGPASSWORD, is in no message', () => {
    const password = db?.password as string;
    const shown = (error: JournalError) => `${error.message}\n${error.stack}\n${inspect(error)}`;

    it('a wrong password: JournalError io naming the failure, not the password', async () => {
      const wrong = `${password}-wrong/+&`;
      const store = new PostgresJournalStore({
        connectionString: url.replace(password, encodeURIComponent(wrong)),
        table: fresh(),
      });
      expect(String(store)).not.toContain(password);
      expect(String(store)).toMatch(
        /^PostgreSQL journal store_\d+_\d+ at postgres:\/\/claims@127\.0\.0\.1:\d+\/postgres$/,
      );
      expect(inspect(store, { depth: 5 })).not.toContain(password);
      const error = await failure(store.open());
      expect(error.code).toBe('io');
      expect(error.message).toMatch(/could not be opened: .*password authentication failed.*\(28P01\)/);
      expect(shown(error)).not.toContain(wrong);
      expect(shown(error)).not.toContain(encodeURIComponent(wrong));
      await expect(store.claim(rec('A', 'sending'), undefined)).rejects.toMatchObject({ code: 'closed' });
    });

    it('from PGPASSWORD: opens with the URL holding none; a wrong one is not shown either', async () => {
      vi.stubEnv('PGPASSWORD', password);
      try {
        const store = new PostgresJournalStore({ connectionString: db?.urlWithoutPassword, table: fresh() });
        await store.open();
        await store.close();
        vi.stubEnv('PGPASSWORD', 'not-it-Secret-42');
        const wrong = new PostgresJournalStore({ connectionString: db?.urlWithoutPassword, table: fresh() });
        const error = await failure(wrong.open());
        expect(shown(error)).not.toContain('not-it-Secret-42');
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('a server that is not there: JournalError io (ECONNREFUSED), the password not shown', async () => {
      const store = new PostgresJournalStore(`postgres://u:${password}@127.0.0.1:9/db`);
      const error = await failure(store.open());
      expect(error.message).toContain('ECONNREFUSED');
      expect(shown(error)).not.toContain(password);
    });
  });

  it('refuses bad options before connecting: no way to connect, a table name that is not an identifier, a lease out of bounds', () => {
    const refused = (options: PostgresJournalStoreOptions) => {
      try {
        new PostgresJournalStore(options);
      } catch (error) {
        return `${(error as JournalError).code}: ${(error as Error).message}`;
      }
      return 'accepted';
    };
    expect(refused({})).toBe('invalid_store: PostgresJournalStore needs a connectionString or a pool');
    for (const table of ['a-b', 'x; DROP TABLE y', '"q"', '1abc', 'a'.repeat(41), 'a.b.c', '']) {
      expect(refused({ connectionString: url, table })).toMatch(/^invalid_store: The journal table must be/);
    }
    expect(refused({ connectionString: url, table: 'a'.repeat(40) })).toBe('accepted');
    expect(refused({ connectionString: url, table: 'ops.night_batch' })).toBe('accepted');
    for (const leaseMs of [99, 86_400_001, 1.5, Number.NaN]) {
      expect(refused({ connectionString: url, leaseMs })).toMatch(
        /^invalid_store: leaseMs must be a whole number of ms from 100 to 86400000$/,
      );
    }
    expect(new PostgresJournalStore({ connectionString: url, leaseMs: 100 }).leaseMs).toBe(100);
    expect(new PostgresJournalStore({ connectionString: url }).leaseMs).toBe(30_000);
    expect(new PostgresJournalStore({ connectionString: url }).table).toBe('claims_journal');
    expect(new PostgresJournalStore({ connectionString: url, worker: 'night-1' }).worker).toMatch(
      /^night-1\/[0-9a-f]{6}$/,
    );
  });

  it('creates its tables in a schema of yours; a second store of the same journal migrates nothing again', async () => {
    await admin.query('CREATE SCHEMA IF NOT EXISTS ops');
    const table = `ops.${fresh()}`;
    const [a, b] = [0, 1].map(() => new PostgresJournalStore({ connectionString: url, table }));
    await Promise.all([a?.open(), b?.open()]);
    await a?.append(rec('K', 'not_sent'));
    expect((await loadAll(b as PostgresJournalStore)).map((r) => r.key)).toEqual(['K']);
    const name = table.split('.')[1];
    const { rows } = await admin.query(`SELECT value FROM ops."${name}_meta" WHERE name = 'schema'`);
    expect(rows).toEqual([{ value: '2' }]);
    await Promise.all([a?.close(), b?.close()]);
  });

  it('refuses a journal of a newer schema version, read-only or not', async () => {
    const store = await opened();
    await admin.query(`UPDATE "${store.table}_meta" SET value = '7' WHERE name = 'schema'`);
    for (const readOnly of [false, true]) {
      const again = new PostgresJournalStore({ connectionString: url, table: store.table });
      const error = await failure(again.open({ readOnly }));
      expect(error.code).toBe('corrupt');
      expect(error.message).toContain(`${store.table} has schema version 7; this SDK knows versions up to 2`);
    }
  });

  it('read-only: a missing meta table is not_found too; status() works; writes refused', async () => {
    const store = await opened();
    await store.append(rec('A', 'filed', { incidentId: 'INC-A' }));
    const reader = new PostgresJournalStore({ connectionString: url, table: store.table });
    await reader.open({ readOnly: true });
    expect((await reader.status()).totals.filed).toBe(1);
    await expect(reader.append(rec('B', 'not_sent'))).rejects.toMatchObject({ code: 'read_only' });
    await reader.close();
    await admin.query(`DROP TABLE "${store.table}_meta"`);
    const error = await failure(
      new PostgresJournalStore({ connectionString: url, table: store.table }).open({ readOnly: true }),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(`There is no journal table ${store.table} in this database`);
  });

  it('is opened once; nothing is read before it is opened', async () => {
    const store = new PostgresJournalStore({ connectionString: url, table: fresh() });
    await expect(loadAll(store)).rejects.toMatchObject({
      code: 'closed',
      message: 'The journal must be opened before load',
    });
    await expect(store.status()).rejects.toThrow('The journal must be opened before status');
    await expect(store.append(rec('A', 'not_sent'))).rejects.toThrow(
      'The journal must be opened before write',
    );
    await store.open();
    await expect(store.open()).rejects.toMatchObject({
      code: 'closed',
      message: 'A PostgresJournalStore is opened once',
    });
    await store.close();
    await store.close();
    await expect(loadAll(store)).rejects.toMatchObject({ code: 'closed', message: 'The journal is closed' });
  });

  it('append is conditional: a key another run changed since is not overwritten (a not_sent record is dropped, any other refused)', async () => {
    const a = await opened({ worker: 'a' });
    const b = new PostgresJournalStore({ connectionString: url, table: a.table, worker: 'b' });
    await b.open();
    open.push(b);
    expect(await a.claim(rec('K', 'sending'), undefined)).toEqual({ taken: true });
    expect(await a.claim(rec('N', 'sending'), undefined)).toEqual({ taken: true });
    // b reads both (held by a live run), and a person resolves them over a's head.
    const seen = new Map((await loadAll(b)).map((r) => [r.key, r]));
    expect(seen.get('K')?.heldElsewhere).toBe(true);
    for (const key of ['K', 'N']) {
      const resolution = rec(key, 'not_sent', { resolvedBy: 'user', error: 'resolved as not filed' });
      expect(await b.claim(resolution, seen.get(key))).toEqual({ taken: true });
    }
    const error = await failure(a.append(rec('K', 'filed', { incidentId: 'INC-K' })));
    expect(error.code).toBe('changed_elsewhere');
    expect(error.message).toBe(
      'Key "K" was changed by another run (it is now not_sent) after this run took it, so its filed record was not written (did its lease run out, and was it resolved meanwhile?)',
    );
    await a.append(rec('N', 'not_sent', { error: 'not sent: the batch was stopped' }));
    const now = new Map((await loadAll(a)).map((r) => [r.key, r]));
    expect(now.get('N')).toMatchObject({ state: 'not_sent', resolvedBy: 'user' });
    expect(now.get('K')).toMatchObject({ state: 'not_sent', resolvedBy: 'user' });
    // A key this run never read, written by another run meanwhile: the same.
    await b.append(rec('Z', 'filed', { incidentId: 'INC-Z' }));
    await a.append(rec('Z', 'not_sent', { error: 'upload failed' }));
    expect((await failure(a.append(rec('Z', 'rejected', { status: 422 })))).code).toBe('changed_elsewhere');
    expect((await loadAll(a)).find((r) => r.key === 'Z')).toMatchObject({
      state: 'filed',
      incidentId: 'INC-Z',
    });
  });

  it('claim with a previous record compares content when the record is not one it read, refusing a key whose row is gone', async () => {
    const a = await opened();
    await a.append(rec('K', 'unknown', { status: 503, error: 'x' }));
    const b = new PostgresJournalStore({ connectionString: url, table: a.table });
    await b.open();
    open.push(b);
    // Equal in content (another object, fields in another order): taken.
    expect(
      await b.claim(rec('K', 'filed', { incidentId: 'I', resolvedBy: 'user' }), {
        error: 'x',
        status: 503,
        ...rec('K', 'unknown'),
      }),
    ).toEqual({ taken: true });
    const stale = await b.claim(rec('K', 'not_sent'), rec('K', 'unknown', { status: 503, error: 'x' }));
    expect(stale).toMatchObject({ taken: false, latest: { state: 'filed', incidentId: 'I' } });
    await admin.query(`DELETE FROM "${a.table}" WHERE key = 'K'`);
    const error = await failure(
      b.claim(rec('K', 'not_sent'), rec('K', 'filed', { incidentId: 'I', resolvedBy: 'user' })),
    );
    expect(error.code).toBe('changed_elsewhere');
    expect(error.message).toContain('has no record in the journal table, though one was read');
  });

  it('a row whose record is not JSON is refused (corrupt), naming the key', async () => {
    const a = await opened();
    await a.append(rec('K', 'not_sent'));
    await admin.query(`UPDATE "${a.table}" SET record = '{not json' WHERE key = 'K'`);
    const error = await failure(loadAll(a));
    expect(error.code).toBe('corrupt');
    expect(error.message).toBe('The record of key "K" in the journal table is not JSON');
    // Journal.open refuses a journal whose records do not fit, and closes the store.
    await admin.query(`UPDATE "${a.table}" SET record = '{"key":7001,"state":"filed"}' WHERE key = 'K'`);
    const again = new PostgresJournalStore({ connectionString: url, table: a.table });
    await expect(Journal.open(again)).rejects.toMatchObject({ code: 'corrupt' });
    await expect(again.append(rec('A', 'not_sent'))).rejects.toMatchObject({ code: 'closed' });
  });

  it('leases: renewed while the run lives, ended at close() (its sending keys need review at once)', async () => {
    const holder = await opened({ leaseMs: 300 });
    await holder.claim(rec('L', 'sending'), undefined);
    const { rows: before } = await admin.query(`SELECT lease_until - now() AS left FROM "${holder.table}"`);
    expect(before[0].left.milliseconds).toBeGreaterThan(150);
    await new Promise((r) => setTimeout(r, 700));
    const reader = async () => {
      const r = new PostgresJournalStore({ connectionString: url, table: holder.table });
      await r.open({ readOnly: true });
      const [one] = await loadAll(r);
      await r.close();
      return one;
    };
    expect((await reader())?.heldElsewhere).toBe(true);
    await holder.close();
    expect((await reader())?.heldElsewhere).toBeUndefined();
    // The holder's own records are never "held elsewhere" when it reads them.
    const self = await opened({ leaseMs: 60_000 });
    await self.claim(rec('S', 'sending'), undefined);
    expect((await loadAll(self))[0]?.heldElsewhere).toBeUndefined();
  });

  it('close() waits for a lease renewal under way, so it cannot renew a lease close() ended', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
    let held: (() => void) | undefined;
    let renewals = 0;
    const renewalHeld = new Promise<void>((seen) => {
      (pool as unknown as { query: typeof query }).query = async (text, values) => {
        if (/SET lease_until = now\(\) \+/.test(text) && renewals++ === 0) {
          seen();
          await new Promise<void>((release) => (held = release));
        }
        return query(text, values);
      };
    });
    const store = new PostgresJournalStore({ pool, table: fresh(), leaseMs: 150 });
    await store.open();
    await store.claim(rec('S', 'sending'), undefined);
    await renewalHeld;
    const closed = store.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    held?.();
    await closed;
    const { rows } = await admin.query(`SELECT lease_until <= now() AS ended FROM "${store.table}"`);
    expect(rows).toEqual([{ ended: true }]);
    await pool.end();
  });

  it('status(): counts per worker and in all, keys in flight, last write', async () => {
    const a = await opened({ worker: 'alpha' });
    const b = new PostgresJournalStore({ connectionString: url, table: a.table, worker: 'beta' });
    await b.open();
    open.push(b);
    await a.claim(rec('A1', 'sending'), undefined);
    await a.append(rec('A1', 'filed', { incidentId: 'I1' }));
    await a.claim(rec('A2', 'sending'), undefined);
    await b.append(rec('B1', 'rejected', { status: 422 }));
    await b.append(rec('B2', 'unknown'));
    await b.append(rec('B3', 'not_sent'));
    const status = await a.status();
    const zero = { sending: 0, filed: 0, rejected: 0, unknown: 0, not_sent: 0 };
    expect(status.workers.map(({ lastWrite, ...w }) => w)).toEqual([
      { worker: a.worker, counts: { ...zero, filed: 1, sending: 1 }, inFlight: 1 },
      { worker: b.worker, counts: { ...zero, rejected: 1, unknown: 1, not_sent: 1 }, inFlight: 0 },
    ]);
    expect(status.totals).toEqual({
      sending: 1,
      filed: 1,
      rejected: 1,
      unknown: 1,
      not_sent: 1,
      inFlight: 1,
    });
    for (const w of status.workers) expect(Date.now() - Date.parse(w.lastWrite)).toBeLessThan(60_000);
  });

  it('loads a journal of more keys than one page, oldest first', async () => {
    const a = await opened();
    await admin.query(
      `INSERT INTO "${a.table}" (key, state, body_hash, record, version, worker)
       SELECT 'K' || i, 'filed', 'h', json_build_object('key', 'K' || i, 'state', 'filed', 'bodyHash', 'h', 'at', 'x', 'incidentId', 'I' || i)::text, 1, 'w'
         FROM generate_series(1, 5003) AS i ORDER BY i`,
    );
    const keys = (await loadAll(a)).map((r) => r.key);
    expect(keys).toHaveLength(5003);
    expect(keys.slice(0, 2)).toEqual(['K1', 'K2']);
    expect(keys.slice(-2)).toEqual(['K5002', 'K5003']);
  });

  it('a pool of yours is used and not ended by close()', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const store = new PostgresJournalStore({ pool, table: fresh() });
    expect(String(store)).toMatch(/ at a pool$/);
    await store.open();
    await store.append(rec('A', 'not_sent'));
    await store.close();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  describe('writes asked for at once share a statement (group commit)', () => {
    /** A pg pool whose statements are recorded (their first words) and may be made to fail. */
    function recordingPool(failWith?: { code: string; times: number }) {
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      const statements: string[] = [];
      let failures = failWith?.times ?? 0;
      const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
      (pool as unknown as { query: typeof query }).query = async (text, values) => {
        const kind = /^\s*WITH v AS \(.*?\),\s*i AS \(INSERT/s.test(text);
        // Each key of a group, `+` when inserted (no row expected), `~` when updated.
        const keys = kind
          ? ((values as string[][])[0] as string[]).map(
              (k, i) => `${(values as unknown[][])[6]?.[i] === null ? '+' : '~'}${k}`,
            )
          : [];
        statements.push(kind ? `group ${keys.join(',')}` : (text.trim().split(/\s+/)[0] as string));
        if (kind && failures > 0) {
          failures--;
          throw Object.assign(new Error('deadlock detected'), { code: failWith?.code });
        }
        return query(text, values);
      };
      return { pool, statements };
    }
    const groups = (statements: string[]) => statements.filter((s) => s.startsWith('group '));

    it('16 claims asked for in one turn: one statement; 16 appends likewise; every record as written', async () => {
      const { pool, statements } = recordingPool();
      const store = new PostgresJournalStore({ pool, table: fresh() });
      await store.open();
      const keys = Array.from({ length: 16 }, (_, i) => `K${String(i).padStart(2, '0')}`);
      const answers = await Promise.all(keys.map((k) => store.claim(rec(k, 'sending'), undefined)));
      expect(answers).toEqual(keys.map(() => ({ taken: true })));
      expect(groups(statements)).toEqual([`group ${keys.map((k) => `+${k}`).join(',')}`]);
      statements.length = 0;
      await Promise.all(keys.map((k) => store.append(rec(k, 'filed', { incidentId: `I-${k}` }))));
      expect(statements).toEqual([`group ${keys.map((k) => `~${k}`).join(',')}`]);
      const loaded = await loadAll(store);
      expect(loaded).toEqual(keys.map((k) => rec(k, 'filed', { incidentId: `I-${k}` })));
      await store.close();
      await pool.end();
    });

    it("a claim's final record and the next key's sending record, asked for in one turn, are one statement (one commit), each as written", async () => {
      const { pool, statements } = recordingPool();
      const store = new PostgresJournalStore({ pool, table: fresh() });
      await store.open();
      expect(await store.claim(rec('A', 'sending'), undefined)).toEqual({ taken: true });
      statements.length = 0;
      const [filed, next] = await Promise.all([
        store.append(rec('A', 'filed', { incidentId: 'I-A' })),
        store.claim(rec('B', 'sending'), undefined),
      ]);
      expect(filed).toBeUndefined();
      expect(next).toEqual({ taken: true });
      expect(statements).toEqual(['group ~A,+B']);
      expect(await loadAll(store)).toEqual([rec('A', 'filed', { incidentId: 'I-A' }), rec('B', 'sending')]);
      await store.close();
      await pool.end();
    });

    it('an update refused (another run changed the key since) reads no row with its group: a not_sent record is dropped in one statement', async () => {
      const holder = await opened();
      expect(await holder.claim(rec('K', 'sending'), undefined)).toEqual({ taken: true });
      const { pool, statements } = recordingPool();
      const other = new PostgresJournalStore({ pool, table: holder.table });
      await other.open();
      await loadAll(other);
      await holder.append(rec('K', 'filed', { incidentId: 'I-K' }));
      statements.length = 0;
      await other.append(rec('K', 'not_sent'));
      expect(statements).toEqual(['group ~K']);
      expect(await loadAll(other)).toEqual([rec('K', 'filed', { incidentId: 'I-K' })]);
      await other.close();
      await pool.end();
    });

    it('the read of refused keys fails: the written ones stand (a final record too), a refused key is read again alone', async () => {
      const holder = await opened();
      expect(await holder.claim(rec('A', 'sending'), undefined)).toEqual({ taken: true });
      const { pool, statements } = recordingPool();
      let failReads = 1;
      const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
      (pool as unknown as { query: typeof query }).query = async (text, values) => {
        if (/^\s*SELECT key, record/.test(text) && failReads > 0) {
          failReads--;
          statements.push('SELECT (failed)');
          throw new Error('connection reset');
        }
        return query(text, values);
      };
      const other = new PostgresJournalStore({ pool, table: holder.table });
      await other.open();
      expect(await other.claim(rec('K', 'sending'), undefined)).toEqual({ taken: true });
      statements.length = 0;
      const [filed, a, b] = await Promise.all([
        other.append(rec('K', 'filed', { incidentId: 'I-K' })),
        other.claim(rec('A', 'sending', { bodyHash: 'other' }), undefined),
        other.claim(rec('B', 'sending'), undefined),
      ]);
      expect(filed).toBeUndefined();
      expect(a).toEqual({ taken: false, latest: { ...rec('A', 'sending'), heldElsewhere: true } });
      expect(b).toEqual({ taken: true });
      expect(statements).toEqual(['group ~K,+A,+B', 'SELECT (failed)', 'SELECT']);
      expect(await loadAll(other)).toEqual([
        { ...rec('A', 'sending'), heldElsewhere: true },
        rec('K', 'filed', { incidentId: 'I-K' }),
        rec('B', 'sending'),
      ]);
      await other.close();
      await pool.end();
    });

    it('keys asked for in one turn are inserted in key order; an update of a row deleted by hand inserts nothing', async () => {
      const store = await opened();
      await Promise.all(['B', 'C', 'A'].map((k) => store.claim(rec(k, 'sending'), undefined)));
      expect((await loadAll(store)).map((r) => r.key)).toEqual(['A', 'B', 'C']);
      await admin.query(`DELETE FROM ${store.table} WHERE key = 'B'`);
      const error = await failure(store.append(rec('B', 'filed', { incidentId: 'I-B' })));
      expect(error.code).toBe('corrupt');
      expect((await loadAll(store)).map((r) => r.key)).toEqual(['A', 'C']);
      await store.close();
    });

    it('keys another run holds: refused in one insert, their rows read in one statement, each answered heldElsewhere', async () => {
      const holder = await opened();
      const keys = ['A', 'B', 'C', 'D'];
      for (const k of keys) expect(await holder.claim(rec(k, 'sending'), undefined)).toEqual({ taken: true });
      const { pool, statements } = recordingPool();
      const other = new PostgresJournalStore({ pool, table: holder.table });
      await other.open();
      statements.length = 0;
      const answers = await Promise.all(
        [...keys, 'E'].map((k) => other.claim(rec(k, 'sending', { bodyHash: 'other' }), undefined)),
      );
      expect(answers).toEqual([
        ...keys.map((k) => ({ taken: false, latest: { ...rec(k, 'sending'), heldElsewhere: true } })),
        { taken: true },
      ]);
      expect(statements).toEqual(['group +A,+B,+C,+D,+E', 'SELECT']);
      await other.close();
      await pool.end();
    });

    it('a group PostgreSQL failed to break a deadlock (40P01) is written again, twice at most; a third time fails as io', async () => {
      const twice = recordingPool({ code: '40P01', times: 2 });
      const store = new PostgresJournalStore({ pool: twice.pool, table: fresh() });
      await store.open();
      expect(await store.claim(rec('A', 'sending'), undefined)).toEqual({ taken: true });
      expect(groups(twice.statements)).toEqual(['group +A', 'group +A', 'group +A']);
      expect(await loadAll(store)).toEqual([rec('A', 'sending')]);
      await store.close();
      await twice.pool.end();

      const thrice = recordingPool({ code: '40P01', times: 3 });
      const failing = new PostgresJournalStore({ pool: thrice.pool, table: fresh() });
      await failing.open();
      const error = await failure(failing.append(rec('B', 'not_sent')));
      expect(error.code).toBe('io');
      expect(error.message).toBe('The PostgreSQL journal could not be written: deadlock detected (40P01)');
      expect(groups(thrice.statements)).toHaveLength(3);
      expect(await loadAll(failing)).toEqual([]);
      await failing.close();
      await thrice.pool.end();

      const other = recordingPool({ code: '23505', times: 1 });
      const once = new PostgresJournalStore({ pool: other.pool, table: fresh() });
      await once.open();
      expect((await failure(once.append(rec('C', 'not_sent')))).message).toMatch(/\(23505\)$/);
      expect(groups(other.statements)).toHaveLength(1);
      await once.close();
      await other.pool.end();
    });

    it('two runs re-claiming the same 60 not_sent keys at once, in opposite orders: each key taken by exactly one', async () => {
      const a = await opened();
      const keys = Array.from({ length: 60 }, (_, i) => `N${i}`);
      await Promise.all(keys.map((k) => a.append(rec(k, 'not_sent'))));
      const b = await opened({ table: a.table });
      const previous = new Map((await loadAll(b)).map((r) => [r.key, r]));
      const previousA = new Map((await loadAll(a)).map((r) => [r.key, r]));
      const [byA, byB] = await Promise.all([
        Promise.all(keys.map((k) => a.claim(rec(k, 'sending'), previousA.get(k)))),
        Promise.all([...keys].reverse().map((k) => b.claim(rec(k, 'sending'), previous.get(k)))),
      ]);
      const takenByA = new Set(keys.filter((_, i) => byA[i]?.taken));
      const takenByB = new Set([...keys].reverse().filter((_, i) => byB[i]?.taken));
      for (const k of keys) expect(Number(takenByA.has(k)) + Number(takenByB.has(k))).toBe(1);
    }, 30_000);
  });

  describe('loadChanges: a read again gives only the keys other runs changed since this store last read', () => {
    /** A pg pool whose reads are recorded: each statement's text, values and rows; a page may be made to fail. */
    function readingPool() {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const reads: { text: string; values: unknown[]; rows: Record<string, unknown>[] }[] = [];
      const fail = { page: false, start: false };
      const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
      (pool as unknown as { query: typeof query }).query = async (text, values) => {
        const reading = /^\s*SELECT (key, record|extract)/.test(text);
        if (reading && fail.page && text.includes('ORDER BY seq')) {
          fail.page = false;
          throw new Error('connection lost');
        }
        if (reading && fail.start && text.includes('extract(epoch')) {
          fail.start = false;
          throw new Error('connection reset');
        }
        const result = await query(text, values);
        if (reading) reads.push({ text, values: values ?? [], rows: result.rows });
        return result;
      };
      return { pool, reads, fail };
    }
    const keysOf = async (records: AsyncIterable<JournalRecord>) => {
      const out: string[] = [];
      for await (const r of records) out.push(r.key);
      return out;
    };
    /** When the store's last read started (the database's clock, as it read it). */
    const startOf = (reads: { text: string; rows: Record<string, unknown>[] }[]) =>
      reads.filter((r) => r.text.includes('extract(epoch')).at(-1)?.rows[0]?.at as string;
    /** Moves the keys' last change back an hour: written long before any read here. */
    const age = (table: string, keys?: string[]) =>
      admin.query(
        `UPDATE "${table}" SET updated_at = now() - interval '1 hour'${keys ? ' WHERE key = ANY($1::text[])' : ''}`,
        keys ? [keys] : [],
      );

    it("exactly the keys another run wrote since: not those written before, not this run's own", async () => {
      const a = await opened({ worker: 'a' });
      const b = await opened({ table: a.table, worker: 'b' });
      // Before any read: every key's, as load().
      await b.append(rec('O1', 'filed', { incidentId: 'INC-O1' }));
      await b.append(rec('O2', 'not_sent'));
      expect(await keysOf(a.loadChanges())).toEqual(['O1', 'O2']);
      await age(a.table);
      // Since that read: O2 filed, N1 taken (in flight), N2 written; A1 is a's own.
      const o2 = new Map((await loadAll(b)).map((r) => [r.key, r])).get('O2');
      expect(await b.claim(rec('O2', 'sending'), o2)).toEqual({ taken: true });
      await b.append(rec('O2', 'filed', { incidentId: 'INC-O2' }));
      expect(await b.claim(rec('N1', 'sending'), undefined)).toEqual({ taken: true });
      await b.append(rec('N2', 'rejected', { status: 422 }));
      expect(await a.claim(rec('A1', 'sending'), undefined)).toEqual({ taken: true });
      const changes: JournalRecord[] = [];
      for await (const r of a.loadChanges()) changes.push(r);
      expect(changes).toEqual([
        rec('O2', 'filed', { incidentId: 'INC-O2' }),
        { ...rec('N1', 'sending'), heldElsewhere: true },
        rec('N2', 'rejected', { status: 422 }),
      ]);
      // Read, they are aged too: nothing changed since.
      await age(a.table);
      expect(await keysOf(a.loadChanges())).toEqual([]);
      // The records it gave are the store's own: a's claim of N2 compares with the version read.
      const n2 = changes[2] as JournalRecord;
      expect(await a.claim(rec('N2', 'sending', { bodyHash: 'changed' }), n2)).toEqual({ taken: true });
      // load() is a read as well: loadChanges after it starts from it.
      await b.append(rec('N3', 'not_sent'));
      expect((await loadAll(a)).map((r) => r.key)).toEqual(['O1', 'O2', 'N1', 'N2', 'A1', 'N3']);
      await age(a.table);
      expect(await keysOf(a.loadChanges())).toEqual([]);
    });

    it('looks back 3 s before the last read started (writes under way then): a row written within it comes back again', async () => {
      const { pool, reads } = readingPool();
      const a = new PostgresJournalStore({ pool, table: fresh(), worker: 'a' });
      await a.open();
      const b = await opened({ table: a.table, worker: 'b' });
      for (const key of ['IN', 'EDGE', 'OUT', 'NOW']) await b.append(rec(key, 'not_sent'));
      expect(await keysOf(a.loadChanges())).toEqual(['IN', 'EDGE', 'OUT', 'NOW']);
      const start = startOf(reads);
      // The read started at `start`: rows written up to 3 s before it (a write under way then
      // is stamped with its own start) come back; a row written earlier does not.
      const back = (key: string, ms: number) =>
        admin.query(
          `UPDATE "${a.table}" SET updated_at = to_timestamp($1::float8) - $2::int * interval '1 millisecond' WHERE key = $3`,
          [start, ms, key],
        );
      await back('IN', 2_999);
      await back('EDGE', 3_000);
      await back('OUT', 3_001);
      expect(await keysOf(a.loadChanges())).toEqual(['IN', 'EDGE', 'NOW']);
      // Given again, each is the key's record as it is, so a run takes it as the first time.
      const last = reads.at(-1) as { text: string; values: unknown[] };
      expect(last.values).toEqual(['0', a.worker, start]);
      expect(startOf(reads)).not.toBe(start);
      await a.close();
      await pool.end();
    });

    it('a read that did not get to its end (it failed, or its reader stopped) leaves the next to start where the last complete one did', async () => {
      const { pool, reads, fail } = readingPool();
      const a = new PostgresJournalStore({ pool, table: fresh(), worker: 'a' });
      await a.open();
      const b = await opened({ table: a.table, worker: 'b' });
      await b.append(rec('K1', 'not_sent'));
      await b.append(rec('K2', 'not_sent'));
      await loadAll(a);
      const complete = startOf(reads);
      fail.page = true;
      const error = await failure(keysOf(a.loadChanges()));
      expect(error.code).toBe('io');
      expect(error.message).toBe('The PostgreSQL journal could not be read: connection lost');
      fail.start = true;
      const before = await failure(keysOf(a.loadChanges()));
      expect(before.code).toBe('io');
      expect(before.message).toBe('The PostgreSQL journal could not be read: connection reset');
      for await (const _ of a.loadChanges()) break;
      await keysOf(a.loadChanges());
      const pages = reads.filter((r) => r.text.includes('ORDER BY seq'));
      expect(pages.slice(-2).map((p) => p.values[2])).toEqual([complete, complete]);
      // That one got to its end: the next starts from it.
      await keysOf(a.loadChanges());
      expect(reads.filter((r) => r.text.includes('ORDER BY seq')).at(-1)?.values[2]).not.toBe(complete);
      await a.close();
      await pool.end();
    });

    it('a change set larger than a page: every key, a page at a time, oldest first', async () => {
      const a = await opened({ worker: 'a' });
      await loadAll(a);
      await admin.query(
        `INSERT INTO "${a.table}" (key, state, body_hash, record, version, worker)
         SELECT 'K' || i, 'filed', 'h', json_build_object('key', 'K' || i, 'state', 'filed', 'bodyHash', 'h', 'at', 'x', 'incidentId', 'I' || i)::text, 1, 'w'
           FROM generate_series(1, 5003) AS i ORDER BY i`,
      );
      const keys = await keysOf(a.loadChanges());
      expect(keys).toHaveLength(5003);
      expect(keys.slice(0, 2)).toEqual(['K1', 'K2']);
      expect(keys.slice(-2)).toEqual(['K5002', 'K5003']);
    });

    it('is a range of the updated_at index, not a scan of the table', async () => {
      const { pool, reads } = readingPool();
      const a = new PostgresJournalStore({ pool, table: fresh(), worker: 'a' });
      await a.open();
      await admin.query(
        `INSERT INTO "${a.table}" (key, state, body_hash, record, version, worker, updated_at)
         SELECT 'K' || i, 'filed', 'h', '{}', 1, 'w', now() - interval '1 hour' FROM generate_series(1, 20000) AS i`,
      );
      await admin.query(`UPDATE "${a.table}" SET updated_at = now() WHERE key IN ('K7', 'K70')`);
      await admin.query(`ANALYZE "${a.table}"`);
      await keysOf(a.load());
      for await (const _ of a.loadChanges());
      const changes = reads.filter((r) => r.text.includes('ORDER BY seq')).at(-1) as (typeof reads)[number];
      expect(changes.rows.map((r) => r.key)).toEqual(['K7', 'K70']);
      const { rows } = await admin.query(`EXPLAIN (FORMAT JSON) ${changes.text}`, changes.values);
      const nodes: Record<string, unknown>[] = [];
      const walk = (node: Record<string, unknown>) => {
        nodes.push(node);
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk(
        (rows[0]['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]?.Plan as Record<string, unknown>,
      );
      expect(nodes.map((n) => n['Index Name'])).toContain(`${a.table}_updated_at_idx`);
      expect(nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      await a.close();
      await pool.end();
    });

    it('a journal created at schema version 1 is migrated to 2 when opened, and works; a newer one is still refused', async () => {
      const table = fresh();
      const t = tablesOf(table);
      // The journal as the SDK of version 1 made it: migration 1 only, its rows.
      await admin.query(`CREATE TABLE ${t.meta} (name text PRIMARY KEY, value text, until timestamptz)`);
      for (const statement of migrations(t)[0] as string[]) await admin.query(statement);
      await admin.query(`INSERT INTO ${t.meta} (name, value) VALUES ('schema', '1')`);
      await admin.query(
        `INSERT INTO ${t.keys} (key, state, body_hash, incident_id, record, version, worker)
         VALUES ('V1', 'filed', 'h-V1', 'INC-V1', $1, 1, 'old')`,
        [JSON.stringify(rec('V1', 'filed', { incidentId: 'INC-V1' }))],
      );
      const index = `SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE '%(updated_at)'`;
      expect((await admin.query(index, [table])).rows).toEqual([]);
      // Read-only, it is read as it is (a version this SDK reads), and not migrated.
      const reader = await opened({ table }, true);
      expect((await loadAll(reader)).map((r) => r.key)).toEqual(['V1']);
      expect((await admin.query(`SELECT value FROM ${t.meta} WHERE name = 'schema'`)).rows).toEqual([
        { value: '1' },
      ]);
      const a = await opened({ table, worker: 'a' });
      expect((await admin.query(`SELECT value FROM ${t.meta} WHERE name = 'schema'`)).rows).toEqual([
        { value: '2' },
      ]);
      expect((await admin.query(index, [table])).rows).toEqual([{ indexname: `${table}_updated_at_idx` }]);
      const journal = await Journal.open(new PostgresJournalStore({ connectionString: url, table }));
      expect(journal.get('V1')).toEqual(rec('V1', 'filed', { incidentId: 'INC-V1' }));
      const b = await opened({ table, worker: 'b' });
      expect((await loadAll(a)).map((r) => r.key)).toEqual(['V1']);
      await age(table);
      await b.append(rec('V2', 'not_sent'));
      expect(await keysOf(a.loadChanges())).toEqual(['V2']);
      await journal.close();
      await admin.query(`UPDATE ${t.meta} SET value = '3' WHERE name = 'schema'`);
      for (const readOnly of [false, true]) {
        const newer = new PostgresJournalStore({ connectionString: url, table });
        const error = await failure(newer.open({ readOnly }));
        expect(error.code).toBe('corrupt');
        expect(error.message).toContain(`${table} has schema version 3; this SDK knows versions up to 2`);
      }
    });

    it('every write stamps updated_at: a claim, an append, a resolution; a lease renewed or ended does not', async () => {
      const a = await opened({ worker: 'a', leaseMs: 300 });
      const row = async (key: string) =>
        (
          await admin.query(
            `SELECT extract(epoch FROM updated_at)::text AS at, lease_until::text AS lease FROM "${a.table}" WHERE key = $1`,
            [key],
          )
        ).rows[0] as { at: string; lease: string };
      const aged = async () => {
        await age(a.table);
        return (await row('K')).at;
      };
      expect(await a.claim(rec('K', 'sending'), undefined)).toEqual({ taken: true });
      let before = await aged();
      // Renewed every 100 ms: not a change of the record.
      const lease = (await row('K')).lease;
      while ((await row('K')).lease === lease) await new Promise((r) => setTimeout(r, 20));
      expect((await row('K')).at).toBe(before);
      await a.append(rec('K', 'unknown', { error: 'x' }));
      expect(Number((await row('K')).at)).toBeGreaterThan(Number(before));
      before = await aged();
      const journal = await Journal.open(new PostgresJournalStore({ connectionString: url, table: a.table }));
      await journal.resolve('K', { filed: 'INC-K' });
      expect(Number((await row('K')).at)).toBeGreaterThan(Number(before));
      await journal.close();
      // A lease ended by close(): the key needs review, its record unchanged.
      expect(await a.claim(rec('L', 'sending'), undefined)).toEqual({ taken: true });
      await age(a.table);
      const held = await row('L');
      await a.close();
      expect((await row('L')).at).toBe(held.at);
      expect((await row('L')).lease).not.toBe(held.lease);
    });
  });
});
