/**
 * Cold start: how long `import`/`require` of the BUILT package takes in a fresh Node process,
 * next to undici alone, ESM and CommonJS, runs interleaved, median of 15 each; then the
 * published size from `npm pack --dry-run --json`. The SDK loads undici and zod on its first
 * call, so `sdk+deps` (import, then both) shows what the first default-wire call adds.
 *
 *   npx tsx bench/cold-start.ts
 *   COLD_START_RUNS=31 npx tsx bench/cold-start.ts
 *
 * The time is taken inside the child, around the import alone (Node's own boot excluded), so
 * it is what a serverless function pays on top of starting Node. Writes
 * `.bench-tmp/cold-start.json`; exits 0 even when the target is missed (the JSON says so).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CAN_PIN, ensureBuilt, machine, median, pinned, ROOT, round } from './lib/common.js';

const RUNS = Number(process.env.COLD_START_RUNS ?? 15);
const TARGET_MS = 80;
const OUT_FILE = new URL('../.bench-tmp/cold-start.json', import.meta.url);

const require = createRequire(join(ROOT, 'package.json'));
const undiciCjs = require.resolve('undici');
const sdkEsm = join(ROOT, 'dist', 'index.js');
const sdkCjs = join(ROOT, 'dist', 'index.cjs');

/** What each child runs: one import, timed from inside. */
const CASES: Record<string, { type: 'module' | 'commonjs'; code: string }> = {
  'sdk esm': { type: 'module', code: `await import(${JSON.stringify(pathToFileURL(sdkEsm).href)});` },
  'sdk cjs': { type: 'commonjs', code: `require(${JSON.stringify(sdkCjs)});` },
  'undici esm': { type: 'module', code: `await import(${JSON.stringify(pathToFileURL(undiciCjs).href)});` },
  'undici cjs': { type: 'commonjs', code: `require(${JSON.stringify(undiciCjs)});` },
  'sdk+deps esm': {
    type: 'module',
    code: `await import(${JSON.stringify(pathToFileURL(sdkEsm).href)}); await import('undici'); await import('zod');`,
  },
};

function timeOnce(name: string): number {
  const c = CASES[name] as { type: 'module' | 'commonjs'; code: string };
  const script = `const t = performance.now(); ${c.code} process.stdout.write(String(performance.now() - t));`;
  const [command, args] = pinned(0, process.execPath, [`--input-type=${c.type}`, '-e', script]);
  return Number(execFileSync(command, args, { cwd: ROOT, encoding: 'utf8' }));
}

interface PackInfo {
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: Array<{ path: string; size: number }>;
}

function packInfo(): PackInfo {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [info] = JSON.parse(out) as PackInfo[];
  if (!info) throw new Error('npm pack --dry-run printed nothing');
  return info;
}

async function main(): Promise<void> {
  ensureBuilt();
  const samples: Record<string, number[]> = {};
  // Interleaved: one run of each case per pass, so drift on the machine touches all alike.
  for (let i = 0; i < RUNS + 1; i++) {
    for (const name of Object.keys(CASES)) {
      const ms = timeOnce(name);
      if (i === 0) continue; // pass 0 warms the disk cache
      const list = samples[name] ?? [];
      list.push(ms);
      samples[name] = list;
    }
  }
  const medians = Object.fromEntries(
    Object.entries(samples).map(([name, list]) => [name, round(median(list), 1)]),
  );
  const pack = packInfo();
  const result = {
    bench: 'cold-start',
    machine: machine(),
    pinned: CAN_PIN ? 'CPU 0 (taskset)' : 'not pinned',
    runs: RUNS,
    medianMs: medians,
    // undici and zod are loaded on the first call, so the import itself is held to the target.
    target: {
      ms: TARGET_MS,
      measure: 'SDK import, ESM and CJS',
      met: (medians['sdk esm'] ?? Infinity) < TARGET_MS && (medians['sdk cjs'] ?? Infinity) < TARGET_MS,
    },
    package: {
      packedBytes: pack.size,
      unpackedBytes: pack.unpackedSize,
      files: pack.entryCount,
      list: pack.files.map((f) => `${f.path} (${f.size} B)`),
    },
  };
  await mkdir(new URL('.', OUT_FILE), { recursive: true });
  await writeFile(OUT_FILE, `${JSON.stringify(result, null, 2)}\n`);

  process.stdout.write(`\nCold start (import only, fresh process, ${result.pinned}, median of ${RUNS})\n`);
  for (const [name, ms] of Object.entries(medians)) process.stdout.write(`  ${name.padEnd(14)} ${ms} ms\n`);
  process.stdout.write(`  target: SDK import < ${TARGET_MS} ms: ${result.target.met ? 'met' : 'MISSED'}\n`);
  process.stdout.write(
    `Package: ${(pack.size / 1024).toFixed(1)} KiB packed, ${(pack.unpackedSize / 1024).toFixed(1)} KiB unpacked, ${pack.entryCount} files\n`,
  );
}

await main();
