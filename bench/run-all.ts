/**
 * `npm run bench`: builds `dist/` when missing or stale, runs every benchmark in a process of
 * its own (overhead, cold start, and the upload bench when present), then prints one summary
 * from the JSON each writes to `.bench-tmp/`. Exits 0: figures are for reading, not gating;
 * a benchmark that crashes is reported as such in the summary.
 *
 * Environment knobs pass through: PEER_COLD_ROUNDS, PEER_THROUGHPUT_ROUNDS, PEER_CREATES,
 * OVERHEAD_ROUNDS, OVERHEAD_SECONDS, COLD_START_RUNS, UPLOAD_BENCH_MB, UPLOAD_BENCH_ROUNDS,
 * BATCH_BENCH_CLAIMS, BATCH_BENCH_ROUNDS, CHECKS_ROUNDS.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, machine, ROOT } from './lib/common.js';

interface Bench {
  name: string;
  script: string;
  json: string;
  summarise(result: Record<string, unknown>): string[];
}

interface OverheadRow {
  concurrency: number;
  sdkRps: number;
  rawRps: number;
  ratio: number;
  sdkCpuUsPerCall: number;
  rawCpuUsPerCall: number;
  cpuRatio: number;
}

const BENCHES: Bench[] = [
  {
    name: 'overhead',
    script: 'bench/overhead.ts',
    json: 'overhead.json',
    summarise(result) {
      const rows = result.rows as OverheadRow[];
      const target = result.target as { met: boolean; ratioAt32: number };
      return [
        ...rows.map(
          (r) =>
            `incidents.create vs raw undici.request, concurrency ${r.concurrency}: ${r.sdkRps} vs ${r.rawRps} req/s, ` +
            `ratio ${r.ratio}; client CPU/call ${r.sdkCpuUsPerCall} vs ${r.rawCpuUsPerCall} µs (raw/SDK ${r.cpuRatio})`,
        ),
        `target ≥ ${target.ratioAt32} at concurrency 32: ${target.met ? 'met' : 'MISSED'}`,
      ];
    },
  },
  {
    name: 'cold start',
    script: 'bench/cold-start.ts',
    json: 'cold-start.json',
    summarise(result) {
      const ms = result.medianMs as Record<string, number>;
      const ratio = result.ratio as Record<string, number>;
      const target = result.target as { met: boolean; ratioToFetch: number; worst: number };
      const bundle = result.bundle as Record<
        string,
        { kib: number; byPackageKiB: Array<{ name: string; kib: number }> }
      >;
      const profile = result.profile as { top: Array<{ what: string; ms: number; percent: number }> };
      const sdkCases = ['sdk esm', 'sdk cjs', 'bundle esm', 'bundle cjs'];
      return [
        `first POST in a fresh process, median: fetch ${ms.fetch} ms, node:http ${ms['node:http']} ms`,
        ...sdkCases.map(
          (name) =>
            `${name}: ${ms[name]} ms, ${ratio[`${name}/fetch`]}× fetch, ${ratio[`${name}/node:http`]}× node:http`,
        ),
        `target: every SDK case ≤ ${target.ratioToFetch}× fetch: ${target.met ? 'met' : 'MISSED'} (worst ${target.worst}×)`,
        `bundle (minified): ESM ${bundle.esm?.kib} KiB, CJS ${bundle.cjs?.kib} KiB; ` +
          (bundle.esm?.byPackageKiB ?? [])
            .slice(0, 4)
            .map((p) => `${p.name} ${p.kib}`)
            .join(', '),
        `profile, top 3: ${profile.top
          .slice(0, 3)
          .map((c) => `${c.what} ${c.percent}%`)
          .join('; ')}`,
      ];
    },
  },
  {
    name: 'peer (openapi-fetch + openapi-typescript)',
    script: 'bench/peer.ts',
    json: 'peer.json',
    summarise(result) {
      const r = result as {
        bundle: Record<'sdk' | 'peer' | 'upload' | 'budget', { kB: number; gzipKB: number }>;
        cold: {
          sdkMs: number;
          peerMs: number;
          ratio: number;
          sdkPeakMiB: number;
          peerPeakMiB: number;
          met: boolean;
        };
        uploadCold: { ms: number; peakMiB: number };
        throughput: { sdkMs: number; peerMs: number; throughputRatio: number; met: boolean };
      };
      const b = r.bundle;
      return [
        `create-only handler bundle: SDK ${b.sdk.kB} kB (${b.sdk.gzipKB} gzip), peer ${b.peer.kB} kB (${b.peer.gzipKB}); budget ${b.budget.kB} (${b.budget.gzipKB}); upload handler ${b.upload.kB} kB (${b.upload.gzipKB})`,
        `cold process: SDK ${r.cold.sdkMs} ms (${r.cold.sdkPeakMiB} MiB), peer ${r.cold.peerMs} ms (${r.cold.peerPeakMiB} MiB), ratio ${r.cold.ratio}; target <= 0.6: ${r.cold.met ? 'met' : 'MISSED'}; upload handler ${r.uploadCold.ms} ms (${r.uploadCold.peakMiB} MiB)`,
        `throughput at concurrency 32: SDK ${r.throughput.sdkMs} ms, peer ${r.throughput.peerMs} ms, ${r.throughput.throughputRatio}x; target >= 3x: ${r.throughput.met ? 'met' : 'MISSED'}`,
      ];
    },
  },
  {
    name: 'upload',
    script: 'bench/upload.ts',
    json: 'upload.json',
    summarise(result) {
      const r = result as {
        fileMiB: number;
        sdk: { medianMBps: number };
        raw: { medianMBps: number };
        ratio: number;
        sdkPeakRssGrowthMiB: number;
        pass: boolean;
      };
      return [
        `attachments.upload(path) of ${r.fileMiB} MiB vs raw undici.request streaming it: ${r.sdk.medianMBps} vs ${r.raw.medianMBps} MB/s, ratio ${r.ratio}`,
        `SDK peak RSS growth ${r.sdkPeakRssGrowthMiB} MiB; targets (ratio >= 0.8, RSS < 64 MiB): ${r.pass ? 'met' : 'MISSED'}`,
      ];
    },
  },
  {
    name: 'batch',
    script: 'bench/batch.ts',
    json: 'batch.json',
    summarise(result) {
      const r = result as {
        claims: number;
        concurrency: number;
        plainRps: number;
        batchRps: number;
        ratio: number;
        journalUsPerClaim: { concurrency16: number; concurrency1: number };
        target: { ratio: number; met: boolean };
      };
      return [
        `${r.claims} claims at concurrency ${r.concurrency}: fileClaims with the journal ${r.batchRps} vs plain Promise.all pool ${r.plainRps} claims/s, ratio ${r.ratio}`,
        `journal alone (two fdatasync'd records a claim): ${r.journalUsPerClaim.concurrency16} µs/claim at concurrency 16 (group commit), ${r.journalUsPerClaim.concurrency1} µs at 1`,
        `target ratio >= ${r.target.ratio}: ${r.target.met ? 'met' : 'MISSED'}`,
      ];
    },
  },
  {
    name: 'checks',
    script: 'bench/checks.ts',
    json: 'checks.json',
    summarise(result) {
      const rows = result.rows as Array<{
        fields: number;
        values: number;
        checkOnCreateUs: number;
        oneTypoUs: number;
        pureFunctionUs: number;
        firstCheckMs: number;
      }>;
      const memory = result.memory as {
        formFields: number;
        kibPerForm: number;
        mibHeldAfter2000Forms: number;
      };
      return [
        ...rows.map(
          (r) =>
            `form of ${r.fields} field(s), ${r.values} value(s): the check adds ${r.checkOnCreateUs} µs to a cached create, ` +
            `a create refused for one typo ${r.oneTypoUs} µs; checkExtendedFields alone ${r.pureFunctionUs} µs; first check of the form ${r.firstCheckMs} ms`,
        ),
        `metadata cache: ${memory.kibPerForm} KiB per form of ${memory.formFields} fields; 2,000 forms hold ${memory.mibHeldAfter2000Forms} MiB (1,000 kept)`,
      ];
    },
  },
];

const summary: string[] = [`Benchmarks on ${machine()}`];
ensureBuilt();
for (const bench of BENCHES) {
  const script = join(ROOT, bench.script);
  if (!existsSync(script)) {
    summary.push(`\n${bench.name}: skipped (${bench.script} not present)`);
    continue;
  }
  const out = join(ROOT, '.bench-tmp', bench.json);
  rmSync(out, { force: true });
  process.stdout.write(`\n=== ${bench.name} (${bench.script}) ===\n`);
  const started = performance.now();
  const run = spawnSync('npx', ['tsx', bench.script], { cwd: ROOT, stdio: 'inherit', env: process.env });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  summary.push(`\n${bench.name} (${seconds} s):`);
  if (run.status !== 0 || !existsSync(out)) {
    summary.push(`  FAILED (exit ${run.status ?? run.signal}); see its output above`);
    continue;
  }
  const result = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
  for (const line of bench.summarise(result)) summary.push(`  ${line}`);
}
process.stdout.write(`\n=== summary ===\n${summary.join('\n')}\n`);
process.exitCode = 0;
