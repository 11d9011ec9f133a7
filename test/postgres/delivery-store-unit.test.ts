// PostgresDeliveryStore's own decisions against a fake pool that records each statement: its
// option checks, the statements and values it sends, when it sweeps, what it ends, and how a
// failure reads. The real server runs the same statements in delivery-store.test.ts.
import { describe, expect, it } from 'vitest';
import type { PostgresPool, PostgresResult } from '../../src/batch/postgres/connection.js';
import { PostgresDeliveryStore } from '../../src/batch/postgres/index.js';
import { ClaimsError, ClaimsValidationError } from '../../src/errors.js';

type Answer = (text: string, values: unknown[]) => Partial<PostgresResult<Record<string, unknown>>> | Error;

function fakePool(answer: Answer = () => ({})) {
  const statements: { text: string; values: unknown[]; on: 'pool' | 'client' }[] = [];
  let released = 0;
  let ended = 0;
  let connects = 0;
  const run = (on: 'pool' | 'client') => async (text: string, given?: unknown[]) => {
    const values = given ?? [];
    statements.push({ text: text.replace(/\s+/g, ' ').trim(), values, on });
    const out = answer(text, values);
    if (out instanceof Error) throw out;
    return { rows: [], rowCount: 0, ...out } as PostgresResult<never>;
  };
  const pool = {
    query: run('pool'),
    connect: async () => {
      connects++;
      return { query: run('client'), release: () => released++ };
    },
    end: async () => {
      ended++;
    },
  } as unknown as PostgresPool;
  return {
    pool,
    statements,
    texts: () => statements.map((s) => s.text),
    released: () => released,
    ended: () => ended,
    connects: () => connects,
  };
}

const CREATE = [
  'BEGIN',
  'SELECT pg_advisory_xact_lock(hashtext($1))',
  'CREATE TABLE IF NOT EXISTS "claims_webhook_deliveries" (key text PRIMARY KEY, held boolean NOT NULL, until timestamptz NOT NULL)',
  'COMMIT',
];

function refusal(make: () => unknown): { path: string; message: string }[] {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ClaimsValidationError);
    return (error as ClaimsValidationError).issues.map(({ path, message }) => ({ path, message }));
  }
  throw new Error('not refused');
}

describe('options', () => {
  it('refuses a store with neither a connectionString nor a pool, naming both', () => {
    expect(refusal(() => new PostgresDeliveryStore({}))).toEqual([
      { path: 'connectionString', message: 'give a connectionString or a pool' },
    ]);
    expect(refusal(() => new PostgresDeliveryStore({ connectionString: '' }))).toEqual([
      { path: 'connectionString', message: 'give a connectionString or a pool' },
    ]);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])(
    'refuses retentionMs %s',
    (retentionMs) => {
      const { pool } = fakePool();
      expect(refusal(() => new PostgresDeliveryStore({ pool, retentionMs }))).toEqual([
        { path: 'retentionMs', message: 'must be a positive whole number' },
      ]);
    },
  );

  it('takes retentionMs 1 and defaults to 24 h; the table defaults to claims_webhook_deliveries', () => {
    const { pool } = fakePool();
    expect(new PostgresDeliveryStore({ pool, retentionMs: 1 }).retentionMs).toBe(1);
    const store = new PostgresDeliveryStore({ pool });
    expect(store.retentionMs).toBe(86_400_000);
    expect(store.table).toBe('claims_webhook_deliveries');
    expect(new PostgresDeliveryStore({ pool, table: 'hooks.seen' }).table).toBe('hooks.seen');
  });

  it.each(['a;b', '', 'x'.repeat(41), 'a.b.c'])(
    'refuses the table name %j, in words about a table (not a journal)',
    (table) => {
      const { pool } = fakePool();
      expect(refusal(() => new PostgresDeliveryStore({ pool, table }))).toEqual([
        {
          path: 'table',
          message: 'must be a name of letters, digits and _ (at most 40 characters), optionally schema.name',
        },
      ]);
    },
  );
});

describe('statements', () => {
  it('creates its table once, under an advisory lock named after it, on a connection it gives back', async () => {
    const fake = fakePool(() => ({ rows: [{ key: 'k' }] }));
    const store = new PostgresDeliveryStore({ pool: fake.pool });
    await store.claim('k', 1000);
    await store.claim('k2', 1000);
    const created = fake.statements.filter((s) => s.on === 'client');
    expect(created.map((s) => s.text)).toEqual(CREATE);
    expect(created[1]?.values).toEqual(['claims-deliveries:claims_webhook_deliveries']);
    expect(fake.connects()).toBe(1);
    expect(fake.released()).toBe(1);
  });

  it('claim: one conditional upsert, the ttl in whole ms (at least 1); true only when a row came back', async () => {
    let rows: { key: string }[] = [{ key: 'k' }];
    const fake = fakePool((text) => (text.startsWith('INSERT') ? { rows } : {}));
    const store = new PostgresDeliveryStore({ pool: fake.pool, table: 'd' });
    expect(await store.claim('k', 1500.2)).toBe(true);
    rows = [];
    expect(await store.claim('k', 0)).toBe(false);
    rows = [{ key: 'a' }, { key: 'b' }];
    expect(await store.claim('k', -5)).toBe(false);
    const claims = fake.statements.filter((s) => s.on === 'pool');
    expect(claims.map((s) => s.values)).toEqual([
      ['k', 1501],
      ['k', 1],
      ['k', 1],
    ]);
    expect(claims[0]?.text).toBe(
      `INSERT INTO "d" AS d (key, held, until) VALUES ($1, true, now() + $2::bigint * interval '1 millisecond') ON CONFLICT (key) DO UPDATE SET held = true, until = excluded.until WHERE d.until <= now() RETURNING key`,
    );
  });

  it('release deletes only a held key; done marks it not held for the retention; isDone reads an unexpired done row', async () => {
    let found: Record<string, unknown>[] = [{ '?column?': 1 }];
    const fake = fakePool((text) => (text.startsWith('SELECT 1') ? { rows: found } : {}));
    const store = new PostgresDeliveryStore({ pool: fake.pool, table: 'd', retentionMs: 5000 });
    await store.release('k');
    await store.done('k');
    expect(await store.isDone('k')).toBe(true);
    found = [];
    expect(await store.isDone('k')).toBe(false);
    found = [{}, {}];
    expect(await store.isDone('k')).toBe(false);
    const own = fake.statements.filter((s) => s.on === 'pool');
    expect(own.slice(0, 3)).toEqual([
      { on: 'pool', text: 'DELETE FROM "d" WHERE key = $1 AND held', values: ['k'] },
      {
        on: 'pool',
        text: `INSERT INTO "d" AS d (key, held, until) VALUES ($1, false, now() + $2::bigint * interval '1 millisecond') ON CONFLICT (key) DO UPDATE SET held = false, until = excluded.until`,
        values: ['k', 5000],
      },
      { on: 'pool', text: 'SELECT 1 FROM "d" WHERE key = $1 AND NOT held AND until > now()', values: ['k'] },
    ]);
  });

  it('sweeps expired keys once every 500 claims, and a failed sweep fails no claim', async () => {
    const fake = fakePool((text) => (text.startsWith('DELETE') ? new Error('sweep failed') : { rows: [{}] }));
    const store = new PostgresDeliveryStore({ pool: fake.pool, table: 'd' });
    const sweeps = () => fake.texts().filter((t) => t === 'DELETE FROM "d" WHERE until <= now()').length;
    for (let i = 1; i < 500; i++) await store.claim(`k${i}`, 1000);
    expect(sweeps()).toBe(0);
    expect(await store.claim('k500', 1000)).toBe(true);
    expect(sweeps()).toBe(1);
    for (let i = 501; i <= 1000; i++) await store.claim(`k${i}`, 1000);
    expect(sweeps()).toBe(2);
  });
});

describe('close', () => {
  it('leaves a pool of yours open, and the store still works after close()', async () => {
    const fake = fakePool(() => ({ rows: [{}] }));
    const store = new PostgresDeliveryStore({ pool: fake.pool });
    await store.claim('k', 1000);
    await store.close();
    expect(fake.ended()).toBe(0);
    expect(await store.claim('k2', 1000)).toBe(true);
  });
});

describe('failures', () => {
  it('a failure of the database is a ClaimsError naming it and its code, the cause kept', async () => {
    const cause = Object.assign(new Error('relation is locked'), { code: '55P03' });
    const fake = fakePool((text) => (text.startsWith('INSERT') ? cause : {}));
    const store = new PostgresDeliveryStore({ pool: fake.pool });
    const error = (await store.claim('k', 1000).catch((e: unknown) => e)) as ClaimsError;
    expect(error).toBeInstanceOf(ClaimsError);
    expect(error).not.toBeInstanceOf(ClaimsValidationError);
    expect(error.message).toBe('The PostgreSQL delivery store failed: relation is locked (55P03)');
    expect(error.cause).toBe(cause);
  });

  it('without a code or a message: the thrown value itself is named', async () => {
    const fake = fakePool((text) =>
      text.startsWith('DELETE') ? new Error('no code') : text.startsWith('SELECT 1') ? ({} as Error) : {},
    );
    const store = new PostgresDeliveryStore({ pool: fake.pool });
    const noCode = (await store.release('k').catch((e: unknown) => e)) as Error;
    expect(noCode.message).toBe('The PostgreSQL delivery store failed: no code');
    const bare = new PostgresDeliveryStore({
      pool: {
        ...fake.pool,
        query: async (text: string) => {
          if (text.startsWith('SELECT 1')) throw 'socket gone';
          return { rows: [], rowCount: 0 };
        },
        connect: fake.pool.connect,
        end: fake.pool.end,
      } as PostgresPool,
    });
    const thrown = (await bare.isDone('k').catch((e: unknown) => e)) as Error;
    expect(thrown.message).toBe('The PostgreSQL delivery store failed: socket gone');
    const nothing = new PostgresDeliveryStore({
      pool: {
        ...fake.pool,
        query: async () => {
          throw null;
        },
      } as PostgresPool,
    });
    expect(((await nothing.isDone('k').catch((e: unknown) => e)) as Error).message).toBe(
      'The PostgreSQL delivery store failed: null',
    );
    const numeric = fakePool((text) =>
      text.startsWith('SELECT 1') ? Object.assign(new Error('odd'), { code: 42 }) : {},
    );
    const odd = (await new PostgresDeliveryStore({ pool: numeric.pool })
      .isDone('k')
      .catch((e: unknown) => e)) as Error;
    expect(odd.message).toBe('The PostgreSQL delivery store failed: odd');
  });

  it('a failed table creation rolls back, gives the connection back, and the next call tries again', async () => {
    let fail = true;
    const fake = fakePool((text) => {
      if (text.startsWith('CREATE') && fail) return new Error('permission denied for schema public');
      return { rows: [{}] };
    });
    const store = new PostgresDeliveryStore({ pool: fake.pool, table: 'd' });
    const error = (await store.claim('k', 1000).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('The PostgreSQL delivery store failed: permission denied for schema public');
    expect(fake.texts()).toContain('ROLLBACK');
    expect(fake.texts()).not.toContain('COMMIT');
    expect(fake.released()).toBe(1);
    fail = false;
    expect(await store.claim('k', 1000)).toBe(true);
    expect(fake.connects()).toBe(2);
    expect(fake.texts().filter((t) => t === 'COMMIT')).toHaveLength(1);
  });

  it('a password in a failure is redacted', async () => {
    const password = 'Sw0rdfish-9';
    const store = new PostgresDeliveryStore({
      connectionString: `postgres://u:${password}@127.0.0.1:9/db`,
      pool: fakePool(() => new Error(`password ${password} refused`)).pool,
    });
    const error = (await store.claim('k', 1000).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^The PostgreSQL delivery store failed: password .+ refused$/);
    expect(error.message).not.toContain(password);
  });
});
