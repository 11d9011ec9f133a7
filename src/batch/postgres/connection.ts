// The PostgreSQL driver set-up shared by the SDK's PostgreSQL stores: `pg` (an optional peer) is
// loaded only here, with a real `import()`, when a store first connects; the database password
// (in the URL or PGPASSWORD) is kept out of every message.
import { redactorFor } from '../../internal/redact.js';
import { JournalError } from '../errors.js';

/** One query's answer, as `pg` gives it. */
export interface PostgresResult<Row> {
  /** The rows. */
  rows: Row[];
  /** Rows written or read. */
  rowCount: number | null;
}

/** One connection of a {@link PostgresPool}. */
export interface PostgresPoolClient {
  /** Runs one statement with `$1`-style parameters. */
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PostgresResult<Row>>;
  /** Gives the connection back to the pool. */
  release(): void;
}

/**
 * What the stores need of a connection pool: `pg`'s `Pool` fits, and so does any pool with a
 * `query(text, values)` that runs each statement in its own transaction (autocommit).
 */
export interface PostgresPool {
  /** Runs one statement with `$1`-style parameters. */
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PostgresResult<Row>>;
  /** One connection, for a transaction (the journal's migrations). */
  connect(): Promise<PostgresPoolClient>;
  /** Ends the pool. Called only on a pool the store made itself. */
  end(): Promise<void>;
}

/** How a store connects: a `postgres://` URL, or a pool of yours (then never ended by the store). */
export interface PostgresConnection {
  /**
   * `postgres://user[:password]@host:port/database` (any URL `pg` takes, e.g. with
   * `?sslmode=require`). The password may also come from `PGPASSWORD`; it is never shown.
   */
  connectionString?: string;
  /** A pool of yours (e.g. `new pg.Pool(...)`); the store does not end it. */
  pool?: PostgresPool;
}

/** How long a new connection may take before the store gives up, in ms. */
const CONNECT_TIMEOUT_MS = 10_000;
/** How long one statement may take before the store gives up, in ms: a database that stopped answering must not hold a batch for ever. */
const QUERY_TIMEOUT_MS = 30_000;

/** Query parameters `pg` takes a password from (pg-connection-string passes every parameter on). */
const SECRET_PARAMS = ['password', 'sslpassword'];

/** The passwords a message must not show: the URL's and `PGPASSWORD`. */
export function secretsOf(connectionString: string | undefined): string[] {
  const secrets: string[] = [];
  if (connectionString) {
    try {
      const url = new URL(connectionString);
      // `pg` also reads a password from the query (`?password=`, `?sslpassword=`).
      const query = SECRET_PARAMS.flatMap((name) => url.searchParams.getAll(name));
      for (const password of [decodeURIComponent(url.password), ...query]) {
        if (password) secrets.push(password, encodeURIComponent(password));
      }
    } catch {
      // Not a URL `URL` reads (a key=value string): the whole string is treated as secret below.
      secrets.push(connectionString);
    }
  }
  const env = process.env.PGPASSWORD;
  if (env) secrets.push(env);
  return secrets;
}

/** Text with every secret replaced by `[REDACTED]`, in any spelling the redactor knows. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = redactorFor(secret).text(out);
  return out;
}

/** A `postgres://` URL as it may be shown: without its password. */
export function displayUrl(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    url.password = ''; // a user with no password is shown as `user@`, with no `:`
    // Only when there: deleting writes the whole query again, in its own encoding.
    for (const name of SECRET_PARAMS) if (url.searchParams.has(name)) url.searchParams.delete(name);
    return url.toString();
  } catch {
    return '(a connection string)';
  }
}

/**
 * Makes a pool from a URL, loading `pg` on first use. Its idle connections that the server
 * drops (a restart) are replaced, not thrown as an uncaught error.
 */
export async function makePool(connectionString: string): Promise<PostgresPool> {
  let pg: {
    Pool: new (config: Record<string, unknown>) => PostgresPool & { on(event: 'error', f: () => void): void };
  };
  try {
    const loaded = (await import('pg')) as unknown as { default?: typeof pg } & typeof pg;
    pg = loaded.default ?? loaded;
  } catch (error) {
    throw new JournalError(
      'io',
      'The PostgreSQL stores need the `pg` package, an optional peer dependency: npm install pg',
      { cause: error },
    );
  }
  const pool = new pg.Pool({
    connectionString,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    application_name: 'claims-notification-sdk',
  });
  // A connection the server dropped while idle: the pool discards it and opens another.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A driver's failure as a `JournalError` (`io`): what went wrong, the server's SQLSTATE
 * when it gave one, and no password. The driver's error is kept as `cause`.
 */
export function databaseError(doing: string, error: unknown, secrets: readonly string[]): JournalError {
  if (error instanceof JournalError) return error;
  const e = error as { message?: unknown; code?: unknown } | null;
  const text = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  const code = typeof e?.code === 'string' ? ` (${e.code})` : '';
  return new JournalError(
    'io',
    redactSecrets(`The PostgreSQL journal could not ${doing}: ${text}${code}`, secrets),
    {
      cause: error,
    },
  );
}
