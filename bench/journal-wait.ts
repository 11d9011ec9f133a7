/**
 * Where a batch's time goes against its journal (issue #20 point 6), taken apart: at one
 * concurrency, against a 5 ms server, the plain pool, `fileClaims` with a store that keeps
 * nothing (the runner alone), and `fileClaims` with the file store, interleaved; plus how long
 * a `sending` write takes alone and inside the batch (the claim waits behind a group sync
 * already under way). docs/benchmarks.md quotes it.
 *
 *   JOURNAL_WAIT_CONCURRENCY=4 npx tsx bench/journal-wait.ts
 */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Batch from '../src/batch/index.js';
import type * as Sdk from '../src/index.js';
import { makeClaims, medianWrite, noStore, plainPool } from './lib/batch-latency.js';
import { ensureBuilt, median, round, startServerProcess, stop } from './lib/common.js';

const CONCURRENCY = Number(process.env.JOURNAL_WAIT_CONCURRENCY ?? 4);
const CLAIMS = 2_000;
const ROUNDS = 5;
const DIR = tmpdir();

ensureBuilt();
const sdk = (await import('../dist/index.js' as string)) as typeof Sdk;
const batch = (await import('../dist/batch/index.js' as string)) as typeof Batch;
process.env.BENCH_SERVER_DELAY_MS = '5';
const server = await startServerProcess(fileURLToPath(new URL('./lib/api-server.mjs', import.meta.url)), 1);
const client = new sdk.ClaimsClient({ baseUrl: server.url, accessToken: 'tok_bench_0123456789abcdef' });

let batches = 0;
const claims = () => makeClaims(CLAIMS, `K${++batches}`);

/** The file store, each `sending` write (its conditional write) timed. */
function timedFileStore(path: string, waits: number[]): Batch.JournalStore {
  const inner = new batch.FileJournalStore(path);
  return {
    shared: false,
    open: (options) => inner.open(options),
    load: () => inner.load(),
    claim: async (record) => {
      const started = performance.now();
      const answer = await inner.claim(record);
      waits.push(performance.now() - started);
      return answer;
    },
    append: (record) => inner.append(record),
    close: () => inner.close(),
  };
}

async function run(journal: Batch.JournalStore): Promise<number> {
  const started = performance.now();
  for await (const _ of batch.fileClaims(client, claims(), { journal, concurrency: CONCURRENCY })) {
    // drained
  }
  return performance.now() - started;
}

try {
  // One `sending` write at a time on one journal: the durable write alone.
  const probe = join(DIR, `journal-wait-probe-${process.pid}.journal`);
  const alone = await medianWrite(batch, probe);
  await rm(probe, { force: true });
  await plainPool(client, claims().slice(0, 500), CONCURRENCY);
  const rps: Record<'pool' | 'nothing' | 'file', number[]> = { pool: [], nothing: [], file: [] };
  const inBatch: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order =
      r % 2 === 0 ? (['pool', 'nothing', 'file'] as const) : (['file', 'nothing', 'pool'] as const);
    for (const side of order) {
      let ms: number;
      if (side === 'pool') ms = await plainPool(client, claims(), CONCURRENCY);
      else if (side === 'nothing') ms = await run(noStore());
      else {
        const path = join(DIR, `journal-wait-${process.pid}-${r}.journal`);
        ms = await run(timedFileStore(path, inBatch));
        await rm(path, { force: true });
      }
      rps[side].push(CLAIMS / (ms / 1000));
    }
  }
  const pool = median(rps.pool);
  inBatch.sort((a, b) => a - b);
  process.stdout.write(
    `concurrency ${CONCURRENCY}, a 5 ms server, ${CLAIMS} claims, ${ROUNDS} rounds (medians):\n` +
      `  plain pool        ${round(pool)} claims/s\n` +
      `  runner alone      ${round(median(rps.nothing))} claims/s, ${round(median(rps.nothing) / pool, 3)} of the pool\n` +
      `  file store        ${round(median(rps.file))} claims/s, ${round(median(rps.file) / pool, 3)} of the pool\n` +
      `  a sending write:  alone ${round(alone, 3)} ms; in the batch ${round(median(inBatch), 3)} ms ` +
      `(p90 ${round(inBatch[Math.floor(inBatch.length * 0.9)] as number, 3)} ms)\n`,
  );
} finally {
  await stop(server.child);
}
