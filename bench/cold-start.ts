/**
 * Cold start: what a serverless function pays for its FIRST call. Each sample is a fresh Node
 * process that makes one POST to a local server, timed from inside the process from its first
 * line (before any import) to the parsed answer (Node's own boot excluded, the same for all):
 *
 *   - the SDK from `dist/` (ESM `import` and CJS `require`): build a client, `incidents.create`;
 *   - the SDK bundled with esbuild into a Lambda-like handler (ESM and CJS, minified);
 *   - the SDK (ESM) kept on undici from its first call, as before the cold-start wire: the
 *     before/after in one run (not part of the target);
 *   - global `fetch` and `node:http` sending the same body: the bars to compare with.
 *
 * Rounds are interleaved (one process of each case per round, after one warm-up round for the
 * disk cache); the client runs on CPU 0 and the server on CPU 1 when `taskset` exists. The
 * machine may be shared: read the paired ratios (SDK / fetch within a round, median over
 * rounds), not the absolute times. Then one `node --cpu-prof` run of the unbundled ESM first
 * call, summed by contributor, and the bundle's size and composition from esbuild's metafile.
 *
 *   npx tsx bench/cold-start.ts
 *   COLD_START_RUNS=21 npx tsx bench/cold-start.ts
 *
 * Writes `.bench-tmp/cold-start.json`; exits 0 even when the target is missed (the JSON says so).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bundleChild,
  type ChildScript,
  fetchChild,
  nodeHttpChild,
  sdkChild,
} from './lib/cold-start-children.js';
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
import { summariseProfile } from './lib/cpu-profile.js';
import { type BundleInfo, bundleHandler } from './lib/lambda-bundle.js';

const RUNS = positiveInt('COLD_START_RUNS', 9);
/** The issue's target: the SDK's first call at most this many times `fetch`'s first POST. */
const TARGET_RATIO_TO_FETCH = 1.0;
const OUT_FILE = new URL('../.bench-tmp/cold-start.json', import.meta.url);
// Inside the package, so the bundled handler finds the SDK by its own name (self-reference).
const WORK_DIR = join(ROOT, '.bench-tmp', 'cold-start');

function positiveInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

type CaseName =
  | 'sdk esm'
  | 'sdk cjs'
  | 'bundle esm'
  | 'bundle cjs'
  | 'sdk esm undici'
  | 'fetch'
  | 'node:http';

interface Sample {
  totalMs: number;
  importMs?: number;
}

function runChild(script: string, url: string, nodeArgs: string[] = []): Sample {
  const [command, args] = pinned(0, process.execPath, [...nodeArgs, script]);
  const out = execFileSync(command, args, {
    cwd: WORK_DIR,
    encoding: 'utf8',
    env: { ...process.env, CLAIMS_BENCH_URL: url },
  });
  return JSON.parse(out) as Sample;
}

async function main(): Promise<void> {
  ensureBuilt();
  await rm(WORK_DIR, { recursive: true, force: true });
  await mkdir(WORK_DIR, { recursive: true });

  const bundles: Record<'esm' | 'cjs', BundleInfo> = {
    esm: await bundleHandler(WORK_DIR, 'esm'),
    cjs: await bundleHandler(WORK_DIR, 'cjs'),
  };
  const scripts: Record<CaseName, ChildScript> = {
    'sdk esm': sdkChild('esm', join(ROOT, 'dist', 'index.js')),
    'sdk cjs': sdkChild('cjs', join(ROOT, 'dist', 'index.cjs')),
    'bundle esm': bundleChild('esm', bundles.esm.file),
    'bundle cjs': bundleChild('cjs', bundles.cjs.file),
    'sdk esm undici': sdkChild('esm', join(ROOT, 'dist', 'index.js'), 'undici'),
    fetch: fetchChild(),
    'node:http': nodeHttpChild(),
  };
  for (const script of Object.values(scripts)) await writeFile(join(WORK_DIR, script.file), script.source);
  const names = Object.keys(scripts) as CaseName[];

  const server = await startServerProcess(fileURLToPath(new URL('./lib/api-server.mjs', import.meta.url)), 1);
  const samples = new Map<CaseName, Sample[]>(names.map((name) => [name, []]));
  const ratios = new Map<string, number[]>();
  let profile: Awaited<ReturnType<typeof summariseProfile>>;
  try {
    for (let r = 0; r <= RUNS; r++) {
      // Rotate the order each round, so no case always follows the same one.
      const order = names.map((_, i) => names[(i + r) % names.length] as CaseName);
      const thisRound: Partial<Record<CaseName, number>> = {};
      for (const name of order) {
        const sample = runChild(scripts[name].file, server.url);
        if (r === 0) continue; // round 0 warms the disk cache
        samples.get(name)?.push(sample);
        thisRound[name] = sample.totalMs;
      }
      if (r === 0) continue;
      for (const name of names) {
        if (name === 'fetch' || name === 'node:http') continue;
        const ms = thisRound[name] as number;
        push(ratios, `${name}/fetch`, ms / (thisRound.fetch as number));
        push(ratios, `${name}/node:http`, ms / (thisRound['node:http'] as number));
      }
      process.stdout.write(`cold-start: round ${r}/${RUNS} done\n`);
    }

    // One profile of the unbundled ESM first call, sampled every 0.2 ms.
    const profDir = join(WORK_DIR, 'profile');
    runChild(scripts['sdk esm'].file, server.url, [
      '--cpu-prof',
      `--cpu-prof-dir=${profDir}`,
      '--cpu-prof-interval=200',
    ]);
    const [profFile] = await readdir(profDir);
    if (!profFile) throw new Error('node --cpu-prof wrote no profile');
    profile = await summariseProfile(join(profDir, profFile), scripts['sdk esm'].file);
  } finally {
    await stop(server.child);
  }

  const medianMs = Object.fromEntries(
    names.map((name) => [name, round(median((samples.get(name) ?? []).map((s) => s.totalMs)), 1)]),
  ) as Record<CaseName, number>;
  const importMedianMs = Object.fromEntries(
    (['sdk esm', 'sdk cjs', 'bundle esm', 'bundle cjs', 'sdk esm undici'] as const).map((name) => [
      name,
      round(median((samples.get(name) ?? []).map((s) => s.importMs ?? 0)), 1),
    ]),
  );
  const ratioMedians = Object.fromEntries([...ratios].map(([key, list]) => [key, round(median(list), 2)]));
  const worstToFetch = Math.max(
    ...(['sdk esm', 'sdk cjs', 'bundle esm', 'bundle cjs'] as const).map(
      (n) => ratioMedians[`${n}/fetch`] ?? 0,
    ),
  );
  const kib = (bytes: number): number => round(bytes / 1024, 1);
  const result = {
    bench: 'cold-start',
    machine: machine(),
    pinned: CAN_PIN ? 'client on CPU 0, server on CPU 1 (taskset)' : 'not pinned (no taskset or one CPU)',
    runs: RUNS,
    measure:
      'first POST in a fresh process, from before the import to the parsed answer (ms, median); ratios paired per round',
    medianMs,
    /** Of `medianMs`, the import/require (or loading the bundle) alone. */
    importMedianMs,
    ratio: ratioMedians,
    samplesMs: Object.fromEntries(
      names.map((name) => [name, (samples.get(name) ?? []).map((s) => round(s.totalMs, 1))]),
    ),
    target: {
      ratioToFetch: TARGET_RATIO_TO_FETCH,
      measure: 'every SDK case (unbundled and bundled, ESM and CJS): first call / fetch first POST',
      worst: worstToFetch,
      met: worstToFetch <= TARGET_RATIO_TO_FETCH,
    },
    bundle: Object.fromEntries(
      (['esm', 'cjs'] as const).map((format) => [
        format,
        {
          kib: kib(bundles[format].bytes),
          byPackageKiB: bundles[format].byPackage
            .slice(0, 8)
            .map((p) => ({ name: p.name, kib: kib(p.bytes) })),
        },
      ]),
    ),
    profile: {
      of: 'sdk esm (unbundled), node --cpu-prof --cpu-prof-interval=200, one run',
      busyMs: round(profile.busyMs, 1),
      idleMs: round(profile.idleMs, 1),
      top: profile.top.map((c) => ({ what: c.what, ms: round(c.ms, 1), percent: round(c.percent, 1) })),
    },
  };
  await mkdir(new URL('.', OUT_FILE), { recursive: true });
  await writeFile(OUT_FILE, `${JSON.stringify(result, null, 2)}\n`);
  printSummary(result);
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}

interface Printed {
  pinned: string;
  runs: number;
  medianMs: Record<string, number>;
  importMedianMs: Record<string, number>;
  ratio: Record<string, number>;
  target: { ratioToFetch: number; worst: number; met: boolean };
  bundle: Record<string, { kib: number; byPackageKiB: Array<{ name: string; kib: number }> }>;
  profile: { busyMs: number; idleMs: number; top: Array<{ what: string; ms: number; percent: number }> };
}

function printSummary(r: Printed): void {
  const out: string[] = [
    '',
    `Cold start: first POST in a fresh process (${r.pinned}; median of ${r.runs})`,
    `  ${'case'.padEnd(15)} ${'ms'.padStart(7)} ${'import'.padStart(7)} ${'÷ fetch'.padStart(8)} ${'÷ http'.padStart(7)}`,
  ];
  for (const [name, ms] of Object.entries(r.medianMs)) {
    const imp = r.importMedianMs[name];
    const toFetch = r.ratio[`${name}/fetch`];
    const toHttp = r.ratio[`${name}/node:http`];
    out.push(
      `  ${name.padEnd(15)} ${String(ms).padStart(7)} ${(imp === undefined ? '' : String(imp)).padStart(7)} ` +
        `${(toFetch === undefined ? '' : `${toFetch}×`).padStart(8)} ${(toHttp === undefined ? '' : `${toHttp}×`).padStart(7)}`,
    );
  }
  out.push(
    `  target: every SDK case ≤ ${r.target.ratioToFetch}× fetch: ${r.target.met ? 'met' : 'MISSED'} (worst ${r.target.worst}×)`,
  );
  for (const [format, b] of Object.entries(r.bundle)) {
    out.push(
      `Bundle (${format}, minified): ${b.kib} KiB: ${b.byPackageKiB.map((p) => `${p.name} ${p.kib}`).join(', ')}`,
    );
  }
  out.push(
    `Profile of one first call (sdk esm): ${r.profile.busyMs} ms busy, ${r.profile.idleMs} ms idle; top self time:`,
  );
  for (const c of r.profile.top)
    out.push(`  ${String(c.ms).padStart(6)} ms ${`${c.percent}%`.padStart(6)}  ${c.what}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
