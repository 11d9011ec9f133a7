import { ClaimsError, ClaimsValidationError } from '../../errors.js';
import type { DeliveryStore } from '../../webhooks/delivery-store.js';
import {
  makePool,
  type PostgresConnection,
  type PostgresPool,
  redactSecrets,
  secretsOf,
} from './connection.js';
import { TABLE_NAME_RULE, tablesOf } from './schema.js';

/** Options of {@link PostgresDeliveryStore}. */
export interface PostgresDeliveryStoreOptions extends PostgresConnection {
  /**
   * The table of delivery keys (`name` or `schema.name`), created on first use. Receivers on
   * several machines that share it process each delivery once between them.
   * @default 'claims_webhook_deliveries'
   */
  table?: string;
  /**
   * How long a processed delivery's key is remembered, in ms: a copy within it is answered
   * 200 without running the handler. Expired keys are deleted now and then.
   * @default 86400000 (24 h)
   */
  retentionMs?: number;
}

const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** One sweep of expired keys every this many claims. */
const SWEEP_EVERY = 500;

/**
 * The webhook receivers' `DeliveryStore` (`claims-notification-sdk/webhooks`) in PostgreSQL, shared by receivers on any
 * number of machines: one row per delivery key, `(key text primary key, held boolean, until
 * timestamptz)`; `claim` is one `INSERT … ON CONFLICT … DO UPDATE … WHERE until <= now()`,
 * so of concurrent copies exactly one runs the handler. Times are the database's clock. Needs
 * the `pg` package (an optional peer); the password is in no message.
 *
 * @example
 * import { createNodeMiddleware } from 'claims-notification-sdk/webhooks';
 * import { PostgresDeliveryStore } from 'claims-notification-sdk/batch/postgres';
 *
 * const store = new PostgresDeliveryStore({ connectionString: process.env.DATABASE_URL });
 * app.post('/claims-webhook', createNodeMiddleware({ headerName, headerValue, deduplicate: { key, store }, handler }));
 */
export class PostgresDeliveryStore implements DeliveryStore {
  /** The table, as given. */
  readonly table: string;
  /** How long a done key is remembered, in ms. */
  readonly retentionMs: number;
  readonly #quoted: string;
  readonly #connectionString: string | undefined;
  readonly #secrets: string[];
  #pool: PostgresPool | undefined;
  readonly #ownsPool: boolean;
  #ready: Promise<PostgresPool> | undefined;
  #claims = 0;

  constructor(options: PostgresDeliveryStoreOptions) {
    if (options.pool === undefined && !options.connectionString) {
      throw new ClaimsValidationError([
        { path: 'connectionString', message: 'give a connectionString or a pool' },
      ]);
    }
    const retention = options.retentionMs ?? DEFAULT_RETENTION_MS;
    if (!(Number.isSafeInteger(retention) && retention > 0)) {
      throw new ClaimsValidationError([{ path: 'retentionMs', message: 'must be a positive whole number' }]);
    }
    let tables: ReturnType<typeof tablesOf>;
    try {
      tables = tablesOf(options.table ?? 'claims_webhook_deliveries');
    } catch {
      // Not the journal's own words ("The journal table must be ..."): this is no journal.
      throw new ClaimsValidationError([{ path: 'table', message: `must be ${TABLE_NAME_RULE}` }]);
    }
    this.table = tables.name;
    this.#quoted = tables.keys;
    this.retentionMs = retention;
    this.#connectionString = options.connectionString;
    this.#secrets = secretsOf(options.connectionString);
    this.#pool = options.pool;
    this.#ownsPool = options.pool === undefined;
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const { rows } = await this.#query<{ key: string }>(
      `INSERT INTO ${this.#quoted} AS d (key, held, until) VALUES ($1, true, now() + $2::bigint * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET held = true, until = excluded.until WHERE d.until <= now()
       RETURNING key`,
      [key, Math.max(1, Math.ceil(ttlMs))],
    );
    // Stryker disable next-line UpdateOperator: counting down sweeps as often (-500 % 500 is -0, which === 0)
    if (++this.#claims % SWEEP_EVERY === 0) {
      void this.#query(`DELETE FROM ${this.#quoted} WHERE until <= now()`).catch(() => undefined);
    }
    return rows.length === 1;
  }

  async release(key: string): Promise<void> {
    await this.#query(`DELETE FROM ${this.#quoted} WHERE key = $1 AND held`, [key]);
  }

  async done(key: string): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#quoted} AS d (key, held, until) VALUES ($1, false, now() + $2::bigint * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET held = false, until = excluded.until`,
      [key, this.retentionMs],
    );
  }

  async isDone(key: string): Promise<boolean> {
    const { rows } = await this.#query(
      `SELECT 1 FROM ${this.#quoted} WHERE key = $1 AND NOT held AND until > now()`,
      [key],
    );
    return rows.length === 1;
  }

  /** Ends the pool the store made (a pool of yours is left open). */
  async close(): Promise<void> {
    const pool = this.#pool;
    this.#ready = undefined;
    if (pool && this.#ownsPool) {
      this.#pool = undefined;
      await pool.end();
    }
  }

  async #query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: Row[] }> {
    try {
      this.#ready ??= this.#connect();
      const pool = await this.#ready;
      return await pool.query<Row>(text, values);
    } catch (error) {
      if (error instanceof ClaimsError) throw error;
      const e = error as { message?: unknown; code?: unknown };
      const code = typeof e?.code === 'string' ? ` (${e.code})` : '';
      throw new ClaimsError(
        redactSecrets(
          `The PostgreSQL delivery store failed: ${String(e?.message ?? error)}${code}`,
          this.#secrets,
        ),
        { cause: error },
      );
    }
  }

  async #connect(): Promise<PostgresPool> {
    try {
      this.#pool ??= await makePool(this.#connectionString as string);
      // Under an advisory lock: two receivers creating the table at once would collide.
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`claims-deliveries:${this.table}`]);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${this.#quoted} (key text PRIMARY KEY, held boolean NOT NULL, until timestamptz NOT NULL)`,
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
      return this.#pool;
    } catch (error) {
      this.#ready = undefined;
      throw error;
    }
  }
}
