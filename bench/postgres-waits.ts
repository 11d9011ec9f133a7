/**
 * Where a batch's time goes against a PostgreSQL journal (issue #20 point 6), from the
 * database's side: `POSTGRES_WAITS_WORKERS` runs (default 4) of concurrency 4 in this process,
 * on one journal, against a 20 ms server, as the workers part of `bench/batch.ts --latency`;
 * while they run, `pg_stat_activity` is sampled every 3 ms and each active connection counted
 * by what it waits for (`CPU/-`: running). Then the WAL written and flushed per claim, and how
 * long a flush took (`pg_stat_io`, with `track_wal_io_timing` on), and the journal's statements
 * as its client timed them. docs/benchmarks.md quotes it.
 *
 *   npx tsx bench/postgres-waits.ts           POSTGRES_WAITS_WORKERS=1 npx tsx bench/postgres-waits.ts
 */
import { fileURLToPath } from 'node:url';
import type * as Batch from '../src/batch/index.js';
import type * as BatchPostgres from '../src/batch/postgres/index.js';
import type * as Sdk from '../src/index.js';
import { startPostgres } from '../test/postgres/server.js';
import { makeClaims } from './lib/batch-latency.js';
import { CAN_PIN, ensureBuilt, median, round, startServerProcess, stop } from './lib/common.js';

const WORKERS = Number(process.env.POSTGRES_WAITS_WORKERS ?? 4);
const CLAIMS = 8_000;
const SAMPLE_EVERY_MS = 3;

ensureBuilt();
const sdk = (await import('../dist/index.js' as string)) as typeof Sdk;
const batch = (await import('../dist/batch/index.js' as string)) as typeof Batch;
const { PostgresJournalStore } = (await import(
  '../dist/batch/postgres/index.js' as string
)) as typeof BatchPostgres;
const pg = (await import('pg' as string)) as {
  default: {
    Client: new (
      o: object,
    ) => {
      connect(): Promise<void>;
      query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
      end(): Promise<void>;
    };
    Pool: new (o: object) => BatchPostgres.PostgresPool;
  };
};

const db = await startPostgres(CAN_PIN ? { cpu: 1 } : {});
if (typeof db === 'string') throw new Error(`no PostgreSQL server could be started: ${db}`);
const dbUrl = db.url;
process.env.BENCH_SERVER_DELAY_MS = '20';
const server = await startServerProcess(fileURLToPath(new URL('./lib/api-server.mjs', import.meta.url)), 1);
const sampler = new pg.default.Client({ connectionString: dbUrl });

/** WAL written and flushed so far: records, full-page images, bytes, flushes and their ms. */
async function walSoFar() {
  const { rows } = await sampler.query(
    `SELECT wal_records::float8 AS records, wal_fpi::float8 AS fpi, wal_bytes::float8 AS bytes,
            (SELECT sum(fsyncs)::float8 FROM pg_stat_io WHERE object = 'wal') AS flushes,
            (SELECT sum(fsync_time)::float8 FROM pg_stat_io WHERE object = 'wal') AS "flushMs"
       FROM pg_stat_wal`,
  );
  return rows[0] as { records: number; fpi: number; bytes: number; flushes: number; flushMs: number };
}

/** A pool whose journal writes and reads are timed, by the statement's kind. */
function timedPool(times: Map<string, number[]>): BatchPostgres.PostgresPool {
  const pool = new pg.default.Pool({ connectionString: dbUrl });
  const query = pool.query.bind(pool) as (sql: string, values?: unknown[]) => Promise<never>;
  (pool as unknown as { query: typeof query }).query = async (sql, values) => {
    const started = performance.now();
    const result = await query(sql, values);
    const kind = /\bi AS \(INSERT/.test(sql)
      ? 'write'
      : (sql.trim().split(/\s+/).slice(0, 2).join(' ') as string);
    times.set(kind, [...(times.get(kind) ?? []), performance.now() - started]);
    return result;
  };
  return pool;
}

try {
  await sampler.connect();
  await sampler.query('ALTER SYSTEM SET track_wal_io_timing = on');
  await sampler.query('SELECT pg_reload_conf()');
  const waits = new Map<string, number>();
  let samples = 0;
  let sampling = true;
  const sampled = (async () => {
    while (sampling) {
      const { rows } = await sampler.query(
        `SELECT coalesce(wait_event_type, 'CPU') || '/' || coalesce(wait_event, '-') AS what
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`,
      );
      samples++;
      for (const { what } of rows as { what: string }[]) waits.set(what, (waits.get(what) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
    }
  })();
  const claims = makeClaims(CLAIMS, 'W');
  const times = new Map<string, number[]>();
  const before = await walSoFar();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      const client = new sdk.ClaimsClient({ baseUrl: server.url, accessToken: 'tok_bench_0123456789abcdef' });
      const pool = timedPool(times);
      const journal = new PostgresJournalStore({ pool, table: 'waits' });
      for await (const _ of batch.fileClaims(client, claims, { journal, concurrency: 4 })) {
        // drained
      }
      await pool.end();
    }),
  );
  const ms = performance.now() - started;
  sampling = false;
  await sampled;
  const after = await walSoFar();
  const per = (x: number) => round(x / CLAIMS, 2);
  process.stdout.write(
    `${WORKERS} worker(s), concurrency 4 each, ${CLAIMS} claims, a 20 ms server: ${round(CLAIMS / (ms / 1000))} claims/s\n` +
      `WAL a claim: ${per(after.records - before.records)} records, ${round((after.bytes - before.bytes) / CLAIMS)} bytes, ` +
      `${per(after.fpi - before.fpi)} full pages, ${per(after.flushes - before.flushes)} flushes; ` +
      `a flush took ${round((after.flushMs - before.flushMs) / (after.flushes - before.flushes), 2)} ms, ` +
      `flushing ${round((after.flushMs - before.flushMs) / ms, 2)} of the run\n` +
      `statements as the client timed them (median ms): ${[...times]
        .filter(([, t]) => t.length >= 10)
        .map(([kind, t]) => `${kind} ×${t.length} ${round(median(t), 2)}`)
        .join(', ')}\n` +
      `active connections per sample (${samples} samples, every ${SAMPLE_EVERY_MS} ms), by what they wait for:\n` +
      [...waits]
        .sort((a, b) => b[1] - a[1])
        .filter(([, n]) => n / samples >= 0.005)
        .map(([what, n]) => `  ${what}: ${round(n / samples, 3)}\n`)
        .join(''),
  );
} finally {
  await sampler.end().catch(() => undefined);
  await stop(server.child);
  await db.destroy();
}
