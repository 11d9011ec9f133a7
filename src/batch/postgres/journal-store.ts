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
import { WriteGroups } from './write-group.js';

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
/**
 * How far before this store's previous read `loadChanges()` looks, in ms. A row's `updated_at`
 * is `now()` of the transaction that wrote it, which is the time that transaction STARTED: a
 * write that started before the previous read and committed after that read looked at its row
 * was not seen by it, yet carries an earlier time than the read's. Every write here is one
 * statement in a transaction of its own, so the margin covers one statement's run: its wait
 * for rows another run's statement holds (at most the deadlock timeout, 1 s by default, when
 * PostgreSQL fails one of two; an update also waits for its group's inserts, which may wait on
 * another run's uncommitted insert of the same key, that run's statement and commit, ms) and
 * its commit, ms otherwise. 3 s covers that with room; a write slower still is missed by the
 * next read, which costs one refused `claim`, and a row written within the margin is read
 * twice, which is harmless (see `JournalStore.loadChanges`).
 */
const CHANGES_MARGIN_MS = 3_000;

/** The most writes sent in one statement. */
const GROUP_MAX = 256;

interface Row {
  key: string;
  record: string;
  version: string;
  worker: string;
  live: boolean;
}

/** One conditional write of a group: a key's next row, and the version it must be at (`null`: no row). */
interface WriteItem {
  key: string;
  state: JournalState;
  bodyHash: string;
  incidentId: string | null;
  /** The record as stored: JSON text. */
  record: string;
  /** The lease of a `sending` record, in ms; `null` for any other. */
  leaseMs: number | null;
  expected: string | null;
}

/** What a conditional write did: the row's new version, or none and (a refused insert) the row as it is. */
interface Written {
  version: string | undefined;
  latest?: Row | undefined;
}

/** A row of a group's answer: a written key and its version, or (key `null`) the shared back-off left. */
interface WrittenRow {
  key: string | null;
  version: string | null;
  left_ms: number | null;
}

/** A group's writes as one row each, from the parameters of {@link groupParams}. */
const GROUP_VALUES = `SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[])
  AS v(key, state, body_hash, incident_id, record, lease_ms, expected)`;
/** A row's lease: until `lease_ms` from now, for a `sending` record. */
const LEASE = `CASE WHEN v.lease_ms IS NULL THEN NULL ELSE now() + v.lease_ms * interval '1 millisecond' END`;

/** How often a group PostgreSQL chose to fail to break a deadlock is written again. */
const DEADLOCK_TRIES = 3;

/**
 * Runs a group's statement. Two runs updating overlapping keys (re-runs over the same
 * `not_sent` keys) may lock them in opposite orders; PostgreSQL then fails one statement
 * (`40P01`) after its deadlock timeout, having written nothing of it, and it is run again.
 */
async function writeGroup(pool: PostgresPool, sql: string, params: unknown[]): Promise<WrittenRow[]> {
  for (let tries = 1; ; tries++) {
    try {
      return (await pool.query<WrittenRow>(sql, params)).rows;
    } catch (error) {
      if (tries >= DEADLOCK_TRIES || (error as { code?: unknown } | null)?.code !== '40P01') throw error;
    }
  }
}

/** A group's parameters: one array per column of {@link GROUP_VALUES}, then the worker. */
function groupParams(items: WriteItem[], worker: string): unknown[] {
  return [
    items.map((i) => i.key),
    items.map((i) => i.state),
    items.map((i) => i.bodyHash),
    items.map((i) => i.incidentId),
    items.map((i) => i.record),
    items.map((i) => i.leaseMs),
    items.map((i) => i.expected),
    worker,
  ];
}

/**
 * The submission journal in a PostgreSQL table, shared by any number of runs on any number of
 * machines (`shared: true`): each key is one row, `claim` its conditional write, so of
 * several runs exactly one sends a key. Writes asked for at the same time share a statement. A `sending` record carries its
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
   * When this store's last complete read (`load` or `loadChanges`) started, on the database's
   * clock: epoch seconds, as text. `loadChanges` reads what changed since, less the margin.
   */
  #lastRead: string | undefined;
  readonly #writes = new WriteGroups<WriteItem, Written>((items) => this.#writeGroup(items), GROUP_MAX);
  /** The shared back-off's ms left, an expression read with every write (one primary-key lookup, no round trip). */
  readonly #backoffLeft: string;

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
    this.#backoffLeft = `(SELECT extract(epoch FROM until - now())::float8 * 1000 FROM ${this.#tables.meta}
                          WHERE name = 'backoff' AND until > now())`;
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
      // Tracked as a write: a renewal still under way when close() ends the leases would
      // otherwise land after it and hold this run's keys for one more lease.
      this.#renewal = setInterval(
        () => void this.#track('renew', () => this.#renew()).catch(() => undefined),
        Math.max(50, Math.floor(this.leaseMs / 3)),
      );
      this.#renewal.unref();
    }
  }

  /** The latest record of every key, in the order keys were first written. */
  load(): AsyncIterable<JournalRecord> {
    return this.#read(false);
  }

  /**
   * The latest record of each key another run changed since this store's last complete read
   * (`load` or `loadChanges`), in the order keys were first written; every key's before any
   * read. Read by the `updated_at` index: rows whose `updated_at` is at least the start of that
   * read, on the database's clock, less a margin of 3 s for writes under way then; a row written
   * within the margin comes back again (harmless). Keys whose latest record this run wrote are
   * left out: the run knows them.
   */
  loadChanges(): AsyncIterable<JournalRecord> {
    return this.#read(true);
  }

  /** Every key's latest record (or only those changed since the last read), a page at a time. */
  async *#read(changes: boolean): AsyncGenerator<JournalRecord> {
    const pool = this.#usable('load');
    const since = changes ? this.#lastRead : undefined;
    // Only other runs' rows changed since `$3` (less the margin: see CHANGES_MARGIN_MS).
    const changed =
      since === undefined
        ? ''
        : `AND updated_at >= to_timestamp($3::float8) - interval '${CHANGES_MARGIN_MS} milliseconds' AND worker <> $2`;
    let startedAt: string;
    let after = '0';
    try {
      // Taken before the first page, so no later than any page's snapshot: a write this read
      // misses committed after its page was read, so it started (its updated_at) no earlier
      // than this, less the time it took (the margin).
      startedAt = (await pool.query<{ at: string }>('SELECT extract(epoch FROM now())::text AS at')).rows[0]
        ?.at as string;
    } catch (error) {
      throw databaseError('be read', error, this.#secrets);
    }
    for (;;) {
      let rows: Row[];
      try {
        ({ rows } = await pool.query<Row>(
          // The page's last seq as text (`position`), not as `seq`: ORDER BY seq would sort by
          // that text column (K1, K10, K100...) rather than by the number.
          `SELECT key, record, version::text, seq::text AS position, worker,
                  (state = 'sending' AND lease_until > now()) AS live
             FROM ${this.#tables.keys} WHERE seq > $1 ${changed} ORDER BY seq LIMIT ${PAGE}`,
          since === undefined ? [after] : [after, this.worker, since],
        ));
      } catch (error) {
        throw databaseError('be read', error, this.#secrets);
      }
      for (const row of rows) yield this.#recordOf(row);
      if (rows.length < PAGE) break;
      after = (rows[rows.length - 1] as Row & { position: string }).position;
    }
    // Only a read that got to its end: one stopped half-way (a failure, a caller that stopped
    // reading) leaves the next read of changes to start where the last complete one did.
    this.#lastRead = startedAt;
  }

  /**
   * The per-key conditional write: an `INSERT … ON CONFLICT DO NOTHING` for a key with no
   * record, else an `UPDATE … WHERE version = <the version previous was read at>`, in one
   * statement with the other writes this run asks for meanwhile (a claim's final record and
   * the next claim's `sending` row share one commit).
   * A `sending` record gets this run's lease. When another run got there first, answers the
   * key's record as it is now (`heldElsewhere` while its run lives).
   */
  claim(record: JournalRecord, previous: JournalRecord | undefined): Promise<ClaimAnswer> {
    return this.#track('write', async (pool) => {
      const expected = previous === undefined ? undefined : await this.#versionOf(pool, previous);
      if (expected !== undefined && typeof expected !== 'string') return expected;
      const written = await this.#write(record, expected);
      if (written.version !== undefined) return { taken: true };
      // An insert another run won comes back with the winner's row, read with its group.
      if (written.latest) return { taken: false, latest: this.#recordOf(written.latest) };
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
      const { version } = await this.#write(record, this.#known.get(record.key) ?? null);
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
    const row = (await this.#rows(pool, [previous.key]))[0];
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
   * Writes the key's row if its version is `expected` (`null`: the key has no row), grouped
   * with the writes other claims of this run ask for meanwhile (see {@link WriteGroups}).
   * Answers the new version, or, when the row was not as expected, `undefined` and (for an
   * insert the row refused) the key's row as it is now.
   */
  async #write(record: JournalRecord, expected: string | null | undefined): Promise<Written> {
    const item: WriteItem = {
      key: record.key,
      state: record.state,
      bodyHash: record.bodyHash,
      incidentId: record.incidentId ?? null,
      record: JSON.stringify(ownFields(record)),
      leaseMs: record.state === 'sending' ? this.leaseMs : null,
      expected: expected ?? null,
    };
    const written = await this.#writes.write(record.key, item);
    if (written.version === undefined) return written;
    this.#versions.set(record, written.version);
    this.#known.set(record.key, written.version);
    return written;
  }

  /**
   * Writes a group in one statement (one commit): inserts the keys that had no row, in key
   * order (so two runs inserting overlapping keys wait on each other in one order, never in a
   * circle), updates the others each only if its row is still at the version expected, and
   * reads the shared back-off; then the rows of the keys another run inserted first, in one
   * read (a statement of its own: it sees the winners' commits).
   */
  async #writeGroup(items: WriteItem[]): Promise<Written[]> {
    // There: close() waits for every write before it ends the pool.
    const pool = this.#pool as PostgresPool;
    const rows = await writeGroup(
      pool,
      `WITH v AS (${GROUP_VALUES}),
            i AS (INSERT INTO ${this.#tables.keys}
                    (key, state, body_hash, incident_id, record, version, worker, lease_until)
                  SELECT key, state, body_hash, incident_id, record, 1, $8, ${LEASE} FROM v
                   WHERE v.expected IS NULL ORDER BY key
                  ON CONFLICT (key) DO NOTHING RETURNING key, version::text),
            u AS (UPDATE ${this.#tables.keys} AS k
                     SET state = v.state, body_hash = v.body_hash, incident_id = v.incident_id,
                         record = v.record, version = k.version + 1, worker = $8,
                         lease_until = ${LEASE}, updated_at = now()
                    FROM v WHERE k.key = v.key AND k.version = v.expected
                  RETURNING k.key, k.version::text)
       SELECT key, version, NULL::float8 AS left_ms FROM i
       UNION ALL SELECT key, version, NULL FROM u
       UNION ALL SELECT NULL, NULL, ${this.#backoffLeft}`,
      groupParams(items, this.worker),
    );
    const versions = this.#versionsOf(rows);
    const refused = items
      .filter((item) => item.expected === null && !versions.has(item.key))
      .map((item) => item.key);
    const now = new Map<string, Row>();
    if (refused.length > 0) {
      try {
        for (const row of await this.#rows(pool, refused)) now.set(row.key, row);
      } catch {
        // The group's writes are committed: they stand. A refused key's caller reads its row
        // again alone (`claim`), and fails alone if that fails too.
      }
    }
    return items.map((item) => ({ version: versions.get(item.key), latest: now.get(item.key) }));
  }

  /** The written keys' new versions; the shared back-off from the statement's row without a key. */
  #versionsOf(rows: WrittenRow[]): Map<string, string> {
    const versions = new Map<string, string>();
    for (const row of rows) {
      if (row.key === null) this.#heldFor(row.left_ms);
      else versions.set(row.key, row.version as string);
    }
    return versions;
  }

  /** The shared back-off read from the database: `ms` left of it from now, when any. */
  #heldFor(ms: number | null | undefined): void {
    if (typeof ms === 'number' && ms > 0) this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + ms);
  }

  /** The rows of `keys` as they are now, each marked live while its `sending` lease runs. */
  async #rows(pool: PostgresPool, keys: string[]): Promise<Row[]> {
    const { rows } = await pool.query<Row>(
      `SELECT key, record, version::text, worker, (state = 'sending' AND lease_until > now()) AS live
         FROM ${this.#tables.keys} WHERE key = ANY($1::text[])`,
      [keys],
    );
    return rows;
  }

  /** The key's record as it is now (read in a statement of its own: it sees the winner's commit). */
  async #latest(pool: PostgresPool, key: string): Promise<JournalRecord> {
    const row = (await this.#rows(pool, [key]))[0];
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
    // Only forward: a row read again while this run writes the key (a runner reading the
    // journal again mid-batch) may be older than the version its own write just made.
    const known = this.#known.get(row.key);
    if (known === undefined || Number(row.version) > Number(known)) this.#known.set(row.key, row.version);
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
