/**
 * Batch bench: files BATCH_BENCH_CLAIMS claims (default 10,000) at concurrency 16 against a
 * local server (its own process) with `fileClaims` and its journal on (fsync after `sending`
 * and after the result, group-committed), versus a plain Promise.all pool of 16 making the same
 * `incidents.create` calls with no journal. Rounds alternate A B C C B A so load from elsewhere
 * hits both alike; the throughput ratio is taken per round. Target: ≥ 0.9.
 *
 * Then the same against a server that answers after BATCH_BENCH_LATENCY_MS (default 20 ms, on
 * BATCH_BENCH_LATENCY_CLAIMS claims, default 2,000), as a real API does.
 *
 * Also measured, without any network: the journal's own cost per claim (two durable records),
 * at concurrency 16 (group commit) and 1 (one fdatasync per record).
 *
 * A third side, `fileClaims` with a store that keeps nothing, shows what the runner costs
 * without the journal (validation, body hash, bookkeeping); the batch side also counts its
 * `fdatasync` calls per claim.
 *
 * Both sides make the same call per claim (`incidents.create(incident, { maxRetries: 0,
 * checkExtendedFields: false }).withResponse()`, as src/batch/send-claim.ts), at the same
 * concurrency, with the same client. Also reported: this process's CPU µs per claim on each
 * side, one local round trip (µs) and one `fdatasync` on this disk (µs), the two costs a
 * `sending` record's sync sets against each other.
 *
 * Writes `.bench-tmp/batch.json`. Exits 0 even when the target is missed (the JSON says so).
 * `--latency`: the journal's cost against its physical limit, for the file store and
 * PostgreSQL, and 1/2/4 workers on one PostgreSQL journal (bench/lib/batch-latency.ts; writes
 * `.bench-tmp/batch-latency.json`).
 *   npx tsx bench/batch.ts          npx tsx bench/batch.ts --latency          BATCH_BENCH_CLAIMS=2000 BATCH_BENCH_ROUNDS=2 npx tsx bench/batch.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Batch from '../src/batch/index.js';
import type * as Sdk from '../src/index.js';
import { plainPool } from './lib/batch-latency.js';
import {
  CAN_PIN,
  ensureBuilt,
  machine,
  median,
  pinned,
  ROOT,
  round,
  startServerProcess,
  stop,
} from './lib/common.js';
import { syncCalls } from './lib/sync-count.js';

const CLAIMS = positiveInt('BATCH_BENCH_CLAIMS', 10_000);
const ROUNDS = positiveInt('BATCH_BENCH_ROUNDS', 3);
const CONCURRENCY = 16;
const TARGET_RATIO = 0.9;
/** A second comparison against a server that takes this long per claim, as a real API does. */
const LATENCY_MS = positiveInt('BATCH_BENCH_LATENCY_MS', 20);
const LATENCY_CLAIMS = positiveInt('BATCH_BENCH_LATENCY_CLAIMS', 2_000);
const TMP = join(ROOT, '.bench-tmp');
const OUT_FILE = join(TMP, 'batch.json');

function positiveInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const incident = (i: number) => ({
  programmeCode: 'PRG-HOME',
  policyCountry: 'GB',
  policyTypeCode: 'HOME-STD',
  incidentDate: '2026-11-02',
  description: `Kitchen fire, smoke damage to the ceiling and the east wall; claim ${i}.`,
});
const makeClaims = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `B-${i}`, incident: incident(i) }));
type Claims = ReturnType<typeof makeClaims>;

/**
 * The same call `fileClaims` makes per claim (src/batch/send-claim.ts): no SDK retry (the
 * runner retries itself, across the batch), no extended-field look-up (the runner checked
 * them up front), the request id kept.
 */
const CREATE_OPTIONS = { maxRetries: 0, checkExtendedFields: false } as const;

async function withJournal(
  client: Sdk.ClaimsClient,
  batch: typeof Batch,
  claims: Claims,
  round: number,
  store?: Batch.JournalStore,
): Promise<number> {
  const path = join(TMP, `batch-bench-${round}.journal`);
  await rm(path, { force: true });
  const started = performance.now();
  let filed = 0;
  const journal = store ?? path;
  for await (const result of batch.fileClaims(client, claims, { journal, concurrency: CONCURRENCY })) {
    if (result.state === 'filed') filed++;
  }
  const ms = performance.now() - started;
  await rm(path, { force: true });
  if (filed !== claims.length) throw new Error(`only ${filed} of ${claims.length} filed`);
  return ms;
}

/**
 * A store that keeps nothing: `fileClaims` with it costs what the runner costs (validation,
 * body hash, bookkeeping) without the journal's records and syncs. Never for real use.
 */
function noStore(): Batch.JournalStore {
  const taken = { taken: true } as const;
  return {
    shared: false,
    open: async () => {},
    load: async function* () {},
    claim: () => Promise.resolve(taken),
    append: () => Promise.resolve(),
    close: async () => {},
  };
}

/** The journal alone: `sending` then `filed` for every claim, durable, `concurrency` at a time. */
async function journalOnly(batch: typeof Batch, concurrency: number, count: number): Promise<number> {
  const path = join(TMP, `journal-only-${concurrency}.journal`);
  await rm(path, { force: true });
  const journal = await batch.Journal.open(path);
  const at = new Date().toISOString();
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const key = `J-${next++}`;
      await journal.begin({ key, state: 'sending', bodyHash: 'x'.repeat(43), at });
      await journal.write({ key, state: 'filed', bodyHash: 'x'.repeat(43), at, incidentId: 'INC-000123' });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - started;
  await journal.close();
  await rm(path, { force: true });
  return (ms * 1000) / count;
}

/** Median µs of one POST at a time (the local round trip a `sending` record's sync competes with). */
async function roundTrip(client: Sdk.ClaimsClient, claims: Claims): Promise<number> {
  const us: number[] = [];
  for (const { incident } of claims.slice(0, 500)) {
    const started = performance.now();
    await client.incidents.create(incident, CREATE_OPTIONS).withResponse();
    us.push((performance.now() - started) * 1000);
  }
  return median(us);
}

/** µs of one `fdatasync` after a 200-byte append, on the disk the journal is on: median and 90th percentile. */
async function fdatasyncUs(): Promise<{ median: number; p90: number }> {
  const path = join(TMP, 'fdatasync-probe');
  const handle = await open(path, 'w');
  const line = Buffer.alloc(200, 0x78);
  const us: number[] = [];
  try {
    for (let i = 0; i < 300; i++) {
      await handle.write(line);
      const started = performance.now();
      await handle.datasync();
      us.push((performance.now() - started) * 1000);
    }
  } finally {
    await handle.close();
    await rm(path, { force: true });
  }
  const sorted = [...us].sort((a, b) => a - b);
  return { median: median(us), p90: sorted[Math.floor(sorted.length * 0.9)] as number };
}

type Side = 'plain' | 'batch' | 'noStore';

interface Comparison {
  serverDelayMs: number;
  claims: number;
  plainRps: number;
  batchRps: number;
  ratio: number;
  /** Every round's ratio, batch / plain. */
  ratios: number[];
  /** `fileClaims` with a store that keeps nothing: the runner without the journal. */
  noStoreRps: number;
  noStoreRatio: number;
  /** This process's CPU time (user + system) per claim, each side: the runner's own cost shows here. */
  cpuUsPerClaim: Record<Side, number>;
  /** `fdatasync` calls per claim of the journal-on batch (two records a claim, group-committed). */
  syncsPerClaim: number;
  /** One POST at a time against the same server: a local round trip, µs. */
  roundTripUs: number;
}

/** Both sides, rounds alternating A B B A / B A A B, against a server answering after `delayMs`. */
async function compare(
  sdk: typeof Sdk,
  batch: typeof Batch,
  delayMs: number,
  count: number,
  rounds: number,
): Promise<Comparison> {
  process.env.BENCH_SERVER_DELAY_MS = String(delayMs);
  const server = await startServerProcess(fileURLToPath(new URL('./lib/api-server.mjs', import.meta.url)), 1);
  try {
    const client = new sdk.ClaimsClient({ baseUrl: server.url, accessToken: 'tok_bench_0123456789abcdef' });
    const claims = makeClaims(count);
    // Warm-up: JIT and a full connection pool, both sides.
    await plainPool(client, claims.slice(0, 2_000), CONCURRENCY);
    await withJournal(client, batch, claims.slice(0, 2_000), -1);
    await withJournal(client, batch, claims.slice(0, 2_000), -2, noStore());
    const cpuUs: Record<Side, number[]> = { plain: [], batch: [], noStore: [] };
    const ratios: number[] = [];
    const noStoreRatios: number[] = [];
    const rps: Record<Side, number[]> = { plain: [], batch: [], noStore: [] };
    const syncs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const order: Side[] =
        r % 2 === 0
          ? ['plain', 'batch', 'noStore', 'noStore', 'batch', 'plain']
          : ['batch', 'noStore', 'plain', 'plain', 'noStore', 'batch'];
      const ms: Record<Side, number[]> = { plain: [], batch: [], noStore: [] };
      for (const [i, side] of order.entries()) {
        const cpuBefore = process.cpuUsage();
        const syncsBefore = syncCalls;
        ms[side].push(
          side === 'plain'
            ? await plainPool(client, claims, CONCURRENCY)
            : await withJournal(client, batch, claims, r * 6 + i, side === 'noStore' ? noStore() : undefined),
        );
        const cpu = process.cpuUsage(cpuBefore);
        cpuUs[side].push((cpu.user + cpu.system) / count);
        if (side === 'batch') syncs.push((syncCalls - syncsBefore) / count);
      }
      const perSecond = (side: Side) => count / (median(ms[side]) / 1000);
      for (const side of ['plain', 'batch', 'noStore'] as const) rps[side].push(perSecond(side));
      const p = perSecond('plain');
      const b = perSecond('batch');
      ratios.push(b / p);
      noStoreRatios.push(perSecond('noStore') / p);
      process.stdout.write(
        `server delay ${delayMs} ms, round ${r + 1}: plain pool ${round(p)} claims/s, fileClaims+journal ${round(b)} claims/s, ratio ${round(b / p, 3)} (no store: ${round(perSecond('noStore') / p, 3)})\n`,
      );
    }
    return {
      serverDelayMs: delayMs,
      claims: count,
      plainRps: round(median(rps.plain)),
      batchRps: round(median(rps.batch)),
      ratio: round(median(ratios), 3),
      ratios: ratios.map((x) => round(x, 3)),
      noStoreRps: round(median(rps.noStore)),
      noStoreRatio: round(median(noStoreRatios), 3),
      cpuUsPerClaim: {
        plain: round(median(cpuUs.plain)),
        batch: round(median(cpuUs.batch)),
        noStore: round(median(cpuUs.noStore)),
      },
      syncsPerClaim: round(median(syncs), 3),
      roundTripUs: round(await roundTrip(client, claims)),
    };
  } finally {
    await stop(server.child);
  }
}

async function main(): Promise<void> {
  ensureBuilt();
  await mkdir(TMP, { recursive: true });
  const sdk = (await import('../dist/index.js' as string)) as typeof Sdk;
  const batch = (await import('../dist/batch/index.js' as string)) as typeof Batch;
  if (process.argv.includes('--latency')) {
    // The journal's cost against its physical limit, both stores, and workers (bench/lib/batch-latency.ts).
    const { latencyMain } = await import('./lib/batch-latency.js');
    return latencyMain(sdk, batch);
  }
  const instant = await compare(sdk, batch, 0, CLAIMS, ROUNDS);
  const withLatency = await compare(sdk, batch, LATENCY_MS, LATENCY_CLAIMS, 2);
  const journalUs16 = await journalOnly(batch, CONCURRENCY, Math.min(CLAIMS, 5_000));
  const journalUs1 = await journalOnly(batch, 1, Math.min(CLAIMS, 500));
  const syncUs = await fdatasyncUs();
  const result = {
    machine: machine(),
    claims: CLAIMS,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
    pinned: CAN_PIN ? 'bench on CPU 0, server on CPU 1 (taskset)' : 'not pinned (no taskset or one CPU)',
    plainRps: instant.plainRps,
    batchRps: instant.batchRps,
    ratio: instant.ratio,
    ratios: instant.ratios,
    noStoreRps: instant.noStoreRps,
    noStoreRatio: instant.noStoreRatio,
    cpuUsPerClaim: instant.cpuUsPerClaim,
    syncsPerClaim: instant.syncsPerClaim,
    roundTripUs: instant.roundTripUs,
    fdatasyncUs: round(syncUs.median),
    fdatasyncP90Us: round(syncUs.p90),
    withLatency,
    journalUsPerClaim: { concurrency16: round(journalUs16), concurrency1: round(journalUs1) },
    target: { ratio: TARGET_RATIO, met: instant.ratio >= TARGET_RATIO },
  };
  await writeFile(OUT_FILE, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

// Pin this process to CPU 0 by running it again under taskset (once), as bench/overhead.ts does.
if (CAN_PIN && process.env.CLAIMS_BENCH_PINNED !== '1') {
  const [command, args] = pinned(0, process.execPath, [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    ...process.argv.slice(2),
  ]);
  const run = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, CLAIMS_BENCH_PINNED: '1' },
    cwd: ROOT,
  });
  process.exitCode = run.status ?? 1;
} else {
  await main();
}
