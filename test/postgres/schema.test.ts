import { describe, expect, it } from 'vitest';
import type { PostgresPool, PostgresResult } from '../../src/batch/postgres/connection.js';
import {
  checkExists,
  currentVersion,
  migrate,
  migrations,
  tablesOf,
} from '../../src/batch/postgres/schema.js';

// The journal's schema handling against a fake pool that records each statement (the real
// server runs the same statements in test/postgres/journal-store.test.ts).
type Answer = (text: string, values?: unknown[]) => Partial<PostgresResult<Record<string, unknown>>> | Error;

function fakePool(answer: Answer) {
  const statements: string[] = [];
  const values: unknown[][] = [];
  let released = 0;
  const query = async (text: string, given?: unknown[]) => {
    statements.push(text.replace(/\s+/g, ' ').trim());
    values.push(given ?? []);
    const out = answer(text, given);
    if (out instanceof Error) throw out;
    return { rows: [], rowCount: 0, ...out } as PostgresResult<never>;
  };
  const pool = {
    query,
    connect: async () => ({ query, release: () => released++ }),
    end: async () => undefined,
  } as unknown as PostgresPool;
  return { pool, statements, values, released: () => released };
}

describe('tablesOf', () => {
  it('quotes the keys table and its meta table, in a schema when named', () => {
    expect(tablesOf('claims_journal')).toEqual({
      keys: '"claims_journal"',
      meta: '"claims_journal_meta"',
      name: 'claims_journal',
    });
    expect(tablesOf('ops.Night_1')).toEqual({
      keys: '"ops"."Night_1"',
      meta: '"ops"."Night_1_meta"',
      name: 'ops.Night_1',
    });
  });

  it('takes identifiers only: a name up to 40 characters, a schema up to 63', () => {
    const message =
      'The journal table must be a name of letters, digits and _ (at most 40 characters), optionally schema.name';
    for (const table of ['_a', `a${'b'.repeat(39)}`, `${'s'.repeat(63)}.t`])
      expect(tablesOf(table).name).toBe(table);
    for (const table of [
      `a${'b'.repeat(40)}`,
      `${'s'.repeat(64)}.t`,
      '9a',
      'a.9b',
      'a b',
      'a.b.c',
      '.a',
      'a.',
      '',
      7,
    ]) {
      expect(() => tablesOf(table as string), String(table)).toThrow(
        expect.objectContaining({ code: 'invalid_store', message }),
      );
    }
  });
});

describe('migrate', () => {
  const t = tablesOf('ops.j');

  it('a new journal: under the advisory lock, in one transaction, every migration, then its version', async () => {
    const { pool, statements, values, released } = fakePool(() => ({ rows: [] }));
    await migrate(pool, t);
    const all = migrations(t)
      .flat()
      .map((s) => s.replace(/\s+/g, ' ').trim());
    expect(statements).toEqual([
      'BEGIN',
      'SELECT pg_advisory_xact_lock(hashtext($1))',
      'CREATE TABLE IF NOT EXISTS "ops"."j_meta" (name text PRIMARY KEY, value text, until timestamptz)',
      `SELECT value FROM "ops"."j_meta" WHERE name = 'schema'`,
      ...all,
      `INSERT INTO "ops"."j_meta" (name, value) VALUES ('schema', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      'COMMIT',
    ]);
    expect(values[1]).toEqual(['claims-journal:ops.j']);
    expect(values.at(-2)).toEqual(['2']);
    expect(all[0]).toMatch(/^CREATE TABLE "ops"\."j" \(/);
    expect(all.slice(1)).toEqual([
      `CREATE INDEX ON "ops"."j" (worker) WHERE state = 'sending'`,
      'CREATE INDEX ON "ops"."j" (seq)',
      'CREATE INDEX ON "ops"."j" (updated_at)',
    ]);
    expect(released()).toBe(1);
    expect(currentVersion(t)).toBe(2);
  });

  it('a journal at version 1: only migration 2 (the updated_at index), then version 2', async () => {
    const { pool, statements, values } = fakePool((text) =>
      text.startsWith('SELECT value') ? { rows: [{ value: '1' }] } : {},
    );
    await migrate(pool, t);
    expect(statements.slice(4)).toEqual([
      'CREATE INDEX ON "ops"."j" (updated_at)',
      `INSERT INTO "ops"."j_meta" (name, value) VALUES ('schema', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      'COMMIT',
    ]);
    expect(values.at(-2)).toEqual(['2']);
  });

  it('a journal at the current version: nothing migrated again', async () => {
    const { pool, statements } = fakePool((text) =>
      text.startsWith('SELECT value') ? { rows: [{ value: '2' }] } : {},
    );
    await migrate(pool, t);
    expect(
      statements.filter((s) => s.startsWith('CREATE TABLE "ops"') || s.startsWith('CREATE INDEX')),
    ).toEqual([]);
    expect(statements.at(-1)).toBe('COMMIT');
  });

  it('a journal of a newer version, or a version that is no number: refused, rolled back, the connection released', async () => {
    for (const value of ['3', 'x', '-1', '1.5']) {
      const { pool, statements, released } = fakePool((text) =>
        text.startsWith('SELECT value') ? { rows: [{ value }] } : {},
      );
      const error = await migrate(pool, t).catch((e: unknown) => e);
      const shown = value === 'x' ? 'NaN' : value;
      expect(error).toMatchObject({
        code: 'corrupt',
        message: `The journal table ops.j has schema version ${shown}; this SDK knows versions up to 2: use a newer SDK`,
      });
      expect(statements.at(-1)).toBe('ROLLBACK');
      expect(statements).not.toContain('COMMIT');
      expect(released()).toBe(1);
    }
  });

  it('a failing statement: rolled back (a failing rollback does not hide why), released, thrown', async () => {
    const boom = new Error('disk full');
    const { pool, statements, released } = fakePool((text) =>
      text.startsWith('CREATE INDEX') ? boom : text === 'ROLLBACK' ? new Error('connection gone') : {},
    );
    await expect(migrate(pool, t)).rejects.toBe(boom);
    expect(statements.at(-1)).toBe('ROLLBACK');
    expect(released()).toBe(1);
  });
});

describe('checkExists', () => {
  const t = tablesOf('j');

  it('a journal whose tables are both there, at a version this SDK reads: nothing written', async () => {
    for (const value of ['2', '1', '0', undefined]) {
      const { pool, statements, values } = fakePool((text) =>
        text.startsWith('SELECT to_regclass')
          ? { rows: [{ keys: 'j', meta: 'j_meta' }] }
          : { rows: value === undefined ? [] : [{ value }] },
      );
      await checkExists(pool, t);
      expect(statements).toEqual([
        'SELECT to_regclass($1)::text AS keys, to_regclass($2)::text AS meta',
        `SELECT value FROM "j_meta" WHERE name = 'schema'`,
      ]);
      expect(values[0]).toEqual(['"j"', '"j_meta"']);
    }
  });

  it('either table missing: not_found; a newer version: corrupt', async () => {
    for (const row of [{ keys: null, meta: 'j_meta' }, { keys: 'j', meta: null }, undefined]) {
      const { pool } = fakePool(() => ({ rows: row ? [row] : [] }));
      await expect(checkExists(pool, t)).rejects.toMatchObject({
        code: 'not_found',
        message: 'There is no journal table j in this database',
      });
    }
    const { pool } = fakePool((text) =>
      text.startsWith('SELECT to_regclass')
        ? { rows: [{ keys: 'j', meta: 'j_meta' }] }
        : { rows: [{ value: '3' }] },
    );
    await expect(checkExists(pool, t)).rejects.toMatchObject({
      code: 'corrupt',
      message: 'The journal table j has schema version 3; this SDK knows versions up to 2: use a newer SDK',
    });
  });
});
