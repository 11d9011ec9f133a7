// The journal's tables and their versioned migrations. A journal named `claims_journal` is the
// table `claims_journal` (one row per key) and `claims_journal_meta` (the row `schema`: the
// schema's version; the row `backoff`: the back-off every run honours, its `until`). Migrations run in one transaction under an advisory lock, so runs
// opening a new journal at once create it once.
import { JournalError } from '../errors.js';
import type { PostgresPool } from './connection.js';

/** A table name the store takes: `name` or `schema.name`, letters, digits and `_`. */
const NAME = /^(?:[A-Za-z_][A-Za-z0-9_]{0,62}\.)?[A-Za-z_][A-Za-z0-9_]{0,39}$/;

/** The quoted identifiers of a journal's objects. */
export interface JournalTables {
  /** The table of keys, quoted: `"claims_journal"` or `"ops"."claims_journal"`. */
  keys: string;
  /** Its meta table, quoted. */
  meta: string;
  /** The table's name as given, for messages and `to_regclass`. */
  name: string;
}

/** What a table name may be, as a refusal says it. */
export const TABLE_NAME_RULE =
  'a name of letters, digits and _ (at most 40 characters), optionally schema.name';

/** The tables of a journal named `table`; a name that is not a plain identifier is refused. */
export function tablesOf(table: string): JournalTables {
  if (typeof table !== 'string' || !NAME.test(table)) {
    throw new JournalError('invalid_store', `The journal table must be ${TABLE_NAME_RULE}`);
  }
  const parts = table.split('.');
  const last = parts.pop() as string;
  const prefix = parts.map((p) => `"${p}".`).join('');
  return { keys: `${prefix}"${last}"`, meta: `${prefix}"${last}_meta"`, name: table };
}

/**
 * The migrations, in order: migration `i` brings a journal from version `i` to `i + 1`. Never
 * edit one that has shipped; add the next.
 */
export function migrations(t: JournalTables): string[][] {
  return [
    [
      // One row per key: its latest record (as JSON text, exactly as written), the columns an
      // operator queries, the version `claim` compares, and the lease of a `sending` record.
      `CREATE TABLE ${t.keys} (
        key text PRIMARY KEY,
        state text NOT NULL,
        body_hash text NOT NULL,
        incident_id text,
        record text NOT NULL,
        version bigint NOT NULL,
        seq bigserial NOT NULL,
        worker text NOT NULL,
        lease_until timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX ON ${t.keys} (worker) WHERE state = 'sending'`,
      `CREATE INDEX ON ${t.keys} (seq)`,
    ],
    [
      // `loadChanges`: the rows written since a run's last read, as a range of this index
      // rather than a scan of the table (every write sets updated_at).
      `CREATE INDEX ON ${t.keys} (updated_at)`,
    ],
  ];
}

/** The schema version this SDK writes and reads. */
export function currentVersion(t: JournalTables): number {
  return migrations(t).length;
}

/**
 * Creates the journal's tables if missing and brings them to the current version, in one
 * transaction under an advisory lock keyed by the table's name. A journal of a newer version
 * (a newer SDK migrated it) is refused rather than written with the old layout.
 */
export async function migrate(pool: PostgresPool, t: JournalTables): Promise<void> {
  const all = migrations(t);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`claims-journal:${t.name}`]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${t.meta} (name text PRIMARY KEY, value text, until timestamptz)`,
    );
    const found = await client.query<{ value: string }>(`SELECT value FROM ${t.meta} WHERE name = 'schema'`);
    const version = found.rows.length === 0 ? 0 : Number(found.rows[0]?.value);
    checkVersion(version, all.length, t);
    for (let v = version; v < all.length; v++) {
      for (const statement of all[v] as string[]) await client.query(statement);
    }
    await client.query(
      `INSERT INTO ${t.meta} (name, value) VALUES ('schema', $1)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      [String(all.length)],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A read-only open: the journal must exist, at a version this SDK reads; nothing is written. */
export async function checkExists(pool: PostgresPool, t: JournalTables): Promise<void> {
  const { rows } = await pool.query<{ keys: string | null; meta: string | null }>(
    'SELECT to_regclass($1)::text AS keys, to_regclass($2)::text AS meta',
    [t.keys, t.meta],
  );
  if (!rows[0]?.keys || !rows[0]?.meta) {
    throw new JournalError('not_found', `There is no journal table ${t.name} in this database`);
  }
  const found = await pool.query<{ value: string }>(`SELECT value FROM ${t.meta} WHERE name = 'schema'`);
  checkVersion(Number(found.rows[0]?.value ?? 0), currentVersion(t), t);
}

function checkVersion(version: number, known: number, t: JournalTables): void {
  if (Number.isInteger(version) && version >= 0 && version <= known) return;
  throw new JournalError(
    'corrupt',
    `The journal table ${t.name} has schema version ${version}; this SDK knows versions up to ${known}: use a newer SDK`,
  );
}
