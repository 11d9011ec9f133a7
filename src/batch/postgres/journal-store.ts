import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { echo } from '../echo.js';
import { JournalError } from '../errors.js';
import type { JournalRecord, JournalState } from '../record.js';
import type { ClaimAnswer, JournalOpenOptions, JournalStore } from '../store.js';
import {
  databaseError,
  displayUrl,
  makePool,
  type PostgresConnection,
  type PostgresPool,
  secretsOf,
} from './connection.js';
import { checkExists, type JournalTables, migrate, tablesOf } from './schema.js';

/** Options of {@link PostgresJournalStore}. */
export interface PostgresJournalStoreOptions extends PostgresConnection {
  /**
   * The journal's table (`name` or `schema.name`); created with its `<table>_meta` table on
   * the first open that may write. One table per journal: runs sharing a batch share it.
   * @default 'claims_journal'
   */
  table?: string;
  /**
   * How long a `sending` record stays another run's after its run last renewed it, in ms. A
   * live run renews its leases every third of this; a run that died stops, and once its lease
   * ran out its keys read `sending` without `heldElsewhere`: reported `unknown`
   * (`needs_review`) and never sent again until resolved. Shorter: a dead run's keys show as
   * needing review sooner; longer: a run stalled that long (a paused VM) is not mistaken for
   * a dead one. Either way no key is ever sent twice because of it.
   * @default 30000
   */
  leaseMs?: number;
  /**
   * This run's name in the journal (`claims journal status` counts by it).
   * @default `<host>/<pid>`
   */
  worker?: string;
}

/** One worker's share of a journal: see {@link PostgresJournalStore.status}. */
export interface JournalWorkerStatus {
  /** The run's name (`<host>/<pid>/<random>` by default). */
  worker: string;
  /** Keys whose latest record this run wrote, by state (`sending`: in flight or left for review). */
  counts: Record<JournalState, number>;
  /** Of its `sending` keys, those whose lease is still being renewed (in flight now). */
  inFlight: number;
  /** When it last wrote a record (ISO 8601). */
  lastWrite: string;
}

/** A journal's counts per worker and in all: see {@link PostgresJournalStore.status}. */
export interface JournalStatus {
  /** Each run that wrote a key's latest record, oldest name first. */
  workers: JournalWorkerStatus[];
  /** Keys by state over every worker, and how many are in flight now. */
  totals: JournalTotals;
}

/** Keys by state over every worker (see {@link JournalStatus}). */
export interface JournalTotals extends Record<JournalState, number> {
  /** Of the `sending` keys, those whose worker is alive (its lease renewed): in flight now. */
  inFlight: number;
}

const DEFAULT_LEASE_MS = 30_000;
const MIN_LEASE_MS = 100;
const MAX_LEASE_MS = 24 * 3_600_000;
/** Rows read per query by `load()`: a million keys are not one answer in memory. */
const PAGE = 5_000;

interface Row {
  key: string;
  record: string;
  version: string;
  worker: string;
  live: boolean;
}

/**
 * The submission journal in a PostgreSQL table, shared by any number of runs on any number of
 * machines (`shared: true`): each key is one row, `claim` its conditional write (one
 * statement), so of several runs exactly one sends a key. A `sending` record carries its
 * run's lease, renewed while the run lives. Needs the `pg` package (an optional peer).
 *
 * @example
 * import { fileClaims } from 'claims-notification-sdk/batch';
 * import { PostgresJournalStore } from 'claims-notification-sdk/batch/postgres';
 *
 * const journal = new PostgresJournalStore({ connectionString: process.env.JOURNAL_URL, table: 'night_batch' });
 * for await (const result of fileClaims(client, claims, { journal })) console.log(result.key, result.state);
 */
export class PostgresJournalStore implements JournalStore {
  /** Always true: any number of runs share the journal; `claim` decides per key. */
  readonly shared = true;
  /** The table, as given (`claims_journal` by default). */
  readonly table: string;
  /** The lease of a `sending` record, in ms. */
  readonly leaseMs: number;
  /** This run's name in the journal: `<worker option or host/pid>/<random>`. */
  readonly worker: string;
  readonly #tables: JournalTables;
  readonly #connectionString: string | undefined;
  readonly #secrets: string[];
  #pool: PostgresPool | undefined;
  readonly #ownsPool: boolean;
  #state: 'new' | 'open' | 'read_only' | 'closed' = 'new';
  /** The row version of each record object this store read or wrote: what `claim` compares. */
  readonly #versions = new WeakMap<JournalRecord, string>();
  /** The row version of each key as this store last read or wrote it: what `append` compares. */
  readonly #known = new Map<string, string>();
  readonly #pending = new Set<Promise<unknown>>();
  #renewal: NodeJS.Timeout | undefined;
  /** The shared back-off as last read, in ms since the epoch on this machine's clock. */
  #pausedUntil = 0;

  /**
   * @param connection a `postgres://user[:password]@host:port/db` URL, or the options. The
   *   password may also come from `PGPASSWORD`; it is never in a message.
   */
  constructor(connection: string | PostgresJournalStoreOptions) {
    const options: PostgresJournalStoreOptions =
      typeof connection === 'string' ? { connectionString: connection } : { ...connection };
    this.#connectionString = options.connectionString;
    this.#secrets = secretsOf(options.connectionString);
    if (options.pool === undefined && !options.connectionString) {
      throw new JournalError('invalid_store', 'PostgresJournalStore needs a connectionString or a pool');
    }
    this.#pool = options.pool;
    this.#ownsPool = options.pool === undefined;
    this.#tables = tablesOf(options.table ?? 'claims_journal');
    this.table = this.#tables.name;
    const lease = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isInteger(lease) || lease < MIN_LEASE_MS || lease > MAX_LEASE_MS) {
      throw new JournalError(
        'invalid_store',
        `leaseMs must be a whole number of ms from ${MIN_LEASE_MS} to ${MAX_LEASE_MS}`,
      );
    }
    this.leaseMs = lease;
    const name = options.worker ?? `${hostname()}/${process.pid}`;
    this.worker = `${name}/${randomBytes(3).toString('hex')}`;
  }

  /** Where the journal is, for messages: the URL without its password, and the table. */
  toString(): string {
    const where = this.#connectionString ? displayUrl(this.#connectionString) : 'a pool';
    return `PostgreSQL journal ${this.table} at ${where}`;
  }

  /**
   * Connects (loading `pg`), then creates the tables if missing and migrates them to this
   * SDK's schema version, once however many runs open at the same time. With
   * `{ readOnly: true }` nothing is written: a journal table that is not there is refused
   * (`JournalError` `not_found`). Fails with `JournalError` `io` (the driver's error as
   * `cause`, no password) when the database cannot be reached.
   */
  async open(options: JournalOpenOptions = {}): Promise<void> {
    if (this.#state !== 'new') throw new JournalError('closed', 'A PostgresJournalStore is opened once');
    const readOnly = options.readOnly === true;
    try {
      this.#pool ??= await makePool(this.#connectionString as string);
      if (readOnly) await checkExists(this.#pool, this.#tables);
      else await migrate(this.#pool, this.#tables);
    } catch (error) {
      await this.#endPool();
      this.#state = 'closed';
      throw databaseError('be opened', error, this.#secrets);
    }
    this.#state = readOnly ? 'read_only' : 'open';
    if (!readOnly) {
      this.#renewal = setInterval(() => void this.#renew(), Math.max(50, Math.floor(this.leaseMs / 3)));
      this.#renewal.unref();
    }
  }

  /** The latest record of every key, in the order keys were first written. */
  async *load(): AsyncIterable<JournalRecord> {
    const pool = this.#usable('load');
    let after = '0';
    for (;;) {
      let rows: Row[];
      try {
        ({ rows } = await pool.query<Row>(
          // The page's last seq as text (`position`), not as `seq`: ORDER BY seq would sort by
          // that text column (K1, K10, K100...) rather than by the number.
          `SELECT key, record, version::text, seq::text AS position, worker,
                  (state = 'sending' AND lease_until > now()) AS live
             FROM ${this.#tables.keys} WHERE seq > $1 ORDER BY seq LIMIT ${PAGE}`,
          [after],
        ));
      } catch (error) {
        throw databaseError('be read', error, this.#secrets);
      }
      for (const row of rows) yield this.#recordOf(row);
      if (rows.length < PAGE) return;
      after = (rows[rows.length - 1] as Row & { position: string }).position;
    }
  }

  /**
   * The per-key conditional write, one statement: an `INSERT … ON CONFLICT DO NOTHING` for a
   * key with no record, else an `UPDATE … WHERE version = <the version previous was read at>`.
   * A `sending` record gets this run's lease. When another run got there first, answers the
   * key's record as it is now (`heldElsewhere` while its run lives).
   */
  claim(record: JournalRecord, previous: JournalRecord | undefined): Promise<ClaimAnswer> {
    return this.#track('write', async (pool) => {
      const expected = previous === undefined ? undefined : await this.#versionOf(pool, previous);
      if (expected !== undefined && typeof expected !== 'string') return expected;
      const version = await this.#write(pool, record, expected);
      if (version !== undefined) return { taken: true };
      return { taken: false, latest: await this.#latest(pool, record.key) };
    });
  }

  /**
   * Writes a key's next record, committed before it resolves, only if the key is still as
   * this run last read or wrote it. When another run changed it meanwhile (a lease that ran
   * out, then a person's resolution), a `not_sent` record is dropped (the other run's record
   * stands) and any other is refused with `JournalError` `changed_elsewhere`.
   */
  append(record: JournalRecord): Promise<void> {
    return this.#track('write', async (pool) => {
      const version = await this.#write(pool, record, this.#known.get(record.key) ?? null);
      if (version !== undefined) return;
      // Another run changed the key since this run read or wrote it.
      if (record.state === 'not_sent' && record.resolvedBy === undefined) {
        // Nothing of this run reached the server: the other run's record is the key's state.
        return;
      }
      const now = await this.#latest(pool, record.key);
      throw new JournalError(
        'changed_elsewhere',
        `Key ${echo(record.key)} was changed by another run (it is now ${now.state}) after this run took it, ` +
          `so its ${record.state} record was not written (did its lease run out, and was it resolved meanwhile?)`,
      );
    });
  }

  /**
   * Holds every run sharing this journal until `ms` from now, on the database's clock (so the
   * machines' clocks need not agree): the `<table>_meta` row `backoff`, whose `until` only
   * moves later. Every run reads it with each of its writes.
   */
  pauseAll(ms: number): Promise<void> {
    return this.#track('write', async (pool) => {
      const { rows } = await pool.query<{ left_ms: number | null }>(
        `INSERT INTO ${this.#tables.meta} AS m (name, until)
              VALUES ('backoff', now() + $1::float8 * interval '1 millisecond')
         ON CONFLICT (name) DO UPDATE SET until = greatest(m.until, excluded.until)
         RETURNING extract(epoch FROM m.until - now())::float8 * 1000 AS left_ms`,
        [Math.max(0, ms)],
      );
      this.#heldFor(rows[0]?.left_ms);
    });
  }

  /**
   * Until when the shared back-off holds, in ms since the epoch on this machine's clock, as
   * last read (with this run's latest write or `pauseAll`); 0 when none was seen.
   */
  pausedUntil(): number {
    return this.#pausedUntil;
  }

  /**
   * Counts per worker (the run that wrote each key's latest record) and in all, read in one
   * query: `claims journal status`. Works read-only.
   */
  async status(): Promise<JournalStatus> {
    const pool = this.#usable('status');
    let rows: { worker: string; state: JournalState; n: string; live: string; last: Date }[];
    try {
      ({ rows } = await pool.query(
        `SELECT worker, state, count(*)::text AS n,
                count(*) FILTER (WHERE state = 'sending' AND lease_until > now())::text AS live,
                max(updated_at) AS last
           FROM ${this.#tables.keys} GROUP BY worker, state ORDER BY worker, state`,
      ));
    } catch (error) {
      throw databaseError('be read', error, this.#secrets);
    }
    const workers = new Map<string, JournalWorkerStatus>();
    const totals = { ...noCounts(), inFlight: 0 };
    for (const row of rows) {
      let w = workers.get(row.worker);
      if (!w) {
        w = { worker: row.worker, counts: noCounts(), inFlight: 0, lastWrite: row.last.toISOString() };
        workers.set(row.worker, w);
      }
      const n = Number(row.n);
      w.counts[row.state] += n;
      w.inFlight += Number(row.live);
      totals[row.state] += n;
      totals.inFlight += Number(row.live);
      if (row.last.toISOString() > w.lastWrite) w.lastWrite = row.last.toISOString();
    }
    return { workers: [...workers.values()], totals };
  }

  /**
   * Waits for writes under way, stops renewing leases and ends any that this run still holds
   * (a key left `sending` now needs review at once), and ends the pool it made.
   */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'closed';
    clearInterval(this.#renewal);
    await Promise.allSettled([...this.#pending]);
    if (wasOpen && this.#pool) {
      // What this run still holds `sending` is no longer being sent: it needs review now,
      // not once the lease runs out.
      await this.#pool
        .query(
          `UPDATE ${this.#tables.keys} SET lease_until = now() WHERE worker = $1 AND state = 'sending' AND lease_until > now()`,
          [this.worker],
        )
        .catch(() => undefined);
    }
    await this.#endPool();
  }

  /** The pool, when the store may be read; else the refusal. */
  #usable(doing: string): PostgresPool {
    if (this.#state === 'closed') throw new JournalError('closed', 'The journal is closed');
    if (this.#state === 'new' || !this.#pool) {
      throw new JournalError('closed', `The journal must be opened before ${doing}`);
    }
    return this.#pool;
  }

  /** Runs one write, refused when closed or read-only; close() waits for it. */
  #track<T>(doing: string, write: (pool: PostgresPool) => Promise<T>): Promise<T> {
    if (this.#state === 'read_only') {
      return Promise.reject(new JournalError('read_only', 'The journal was opened read-only'));
    }
    let pool: PostgresPool;
    try {
      pool = this.#usable(doing);
    } catch (error) {
      return Promise.reject(error);
    }
    const promise = write(pool).catch((error: unknown) => {
      throw databaseError('be written', error, this.#secrets);
    });
    this.#pending.add(promise);
    const forget = () => this.#pending.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  /**
   * The row version `previous` was read at: known for every record this store read or wrote;
   * for another record (equal in content, e.g. one a person typed), the row's version when its
   * record still equals it, else the refusal with the latest record.
   */
  async #versionOf(pool: PostgresPool, previous: JournalRecord): Promise<string | ClaimAnswer> {
    const known = this.#versions.get(previous);
    if (known !== undefined) return known;
    const { rows } = await pool.query<Row>(
      `SELECT key, record, version::text, worker,
              (state = 'sending' AND lease_until > now()) AS live
         FROM ${this.#tables.keys} WHERE key = $1`,
      [previous.key],
    );
    const row = rows[0];
    if (!row) {
      throw new JournalError(
        'changed_elsewhere',
        `Key ${echo(previous.key)} has no record in the journal table, though one was read: was the table changed by hand?`,
      );
    }
    const latest = this.#recordOf(row);
    if (isDeepStrictEqual(ownFields(latest), ownFields(previous))) return row.version;
    return { taken: false, latest };
  }

  /**
   * Writes the key's row if its version is `expected` (`null`: the key has no row); answers
   * the new version, or `undefined` when the row was not as expected.
   */
  async #write(
    pool: PostgresPool,
    record: JournalRecord,
    expected: string | null | undefined,
  ): Promise<string | undefined> {
    const stored = ownFields(record);
    const values = [
      record.key,
      record.state,
      record.bodyHash,
      record.incidentId ?? null,
      JSON.stringify(stored),
      this.worker,
      record.state === 'sending' ? this.leaseMs : null,
    ];
    const lease = `CASE WHEN $7::int IS NULL THEN NULL ELSE now() + $7::int * interval '1 millisecond' END`;
    // The shared back-off is read in the same statement: one primary-key lookup, no round trip.
    const withBackoff = (write: string) =>
      `WITH w AS (${write})
       SELECT (SELECT version FROM w) AS version,
              (SELECT extract(epoch FROM until - now())::float8 * 1000 FROM ${this.#tables.meta}
                WHERE name = 'backoff' AND until > now()) AS left_ms`;
    const { rows } =
      expected === undefined || expected === null
        ? await pool.query<{ version: string | null; left_ms: number | null }>(
            withBackoff(`INSERT INTO ${this.#tables.keys}
               (key, state, body_hash, incident_id, record, version, worker, lease_until)
             VALUES ($1, $2, $3, $4, $5, 1, $6, ${lease})
             ON CONFLICT (key) DO NOTHING RETURNING version::text`),
            values,
          )
        : await pool.query<{ version: string | null; left_ms: number | null }>(
            withBackoff(`UPDATE ${this.#tables.keys}
                SET state = $2, body_hash = $3, incident_id = $4, record = $5, version = version + 1,
                    worker = $6, lease_until = ${lease}, updated_at = now()
              WHERE key = $1 AND version = $8 RETURNING version::text`),
            [...values, expected],
          );
    this.#heldFor(rows[0]?.left_ms);
    const version = rows[0]?.version ?? undefined;
    if (version === undefined) return undefined;
    this.#versions.set(record, version);
    this.#known.set(record.key, version);
    return version;
  }

  /** The shared back-off read from the database: `ms` left of it from now, when any. */
  #heldFor(ms: number | null | undefined): void {
    if (typeof ms === 'number' && ms > 0) this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + ms);
  }

  /** The key's record as it is now (read in a statement of its own: it sees the winner's commit). */
  async #latest(pool: PostgresPool, key: string): Promise<JournalRecord> {
    const { rows } = await pool.query<Row>(
      `SELECT key, record, version::text, worker,
              (state = 'sending' AND lease_until > now()) AS live
         FROM ${this.#tables.keys} WHERE key = $1`,
      [key],
    );
    const row = rows[0];
    if (!row) throw new JournalError('corrupt', `Key ${echo(key)} has no row in the journal table`);
    return this.#recordOf(row);
  }

  /** A row's record, marked `heldElsewhere` while another live run holds it `sending`. */
  #recordOf(row: Row): JournalRecord {
    let record: JournalRecord;
    try {
      record = JSON.parse(row.record) as JournalRecord;
    } catch {
      throw new JournalError(
        'corrupt',
        `The record of key ${echo(row.key)} in the journal table is not JSON`,
      );
    }
    if (record !== null && typeof record === 'object' && record.state === 'sending') {
      if (row.live && row.worker !== this.worker) record.heldElsewhere = true;
    }
    if (record !== null && typeof record === 'object') this.#versions.set(record, row.version);
    this.#known.set(row.key, row.version);
    return record;
  }

  /** Renews the leases of this run's `sending` records. A failure is not fatal: it is tried again next time. */
  async #renew(): Promise<void> {
    if (this.#state !== 'open' || !this.#pool) return;
    await this.#pool
      .query(
        `UPDATE ${this.#tables.keys} SET lease_until = now() + $2::int * interval '1 millisecond'
          WHERE worker = $1 AND state = 'sending'`,
        [this.worker, this.leaseMs],
      )
      .catch(() => undefined);
  }

  async #endPool(): Promise<void> {
    const pool = this.#pool;
    if (pool && this.#ownsPool) {
      this.#pool = undefined;
      await pool.end().catch(() => undefined);
    }
  }
}

function noCounts(): Record<JournalState, number> {
  return { sending: 0, filed: 0, rejected: 0, unknown: 0, not_sent: 0 };
}

/** A record as stored: without `heldElsewhere`, which the store decides when it reads. */
function ownFields(record: JournalRecord): JournalRecord {
  const { heldElsewhere: _, ...own } = record;
  return JSON.parse(JSON.stringify(own)) as JournalRecord;
}
