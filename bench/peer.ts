/**
 * The SDK beside what a team would otherwise write from the spec (issue #25): `openapi-fetch`
 * with types from `openapi-typescript`, generated from bench/peer/claims-api.yaml (both dev
 * dependencies). One `incidents.create` body, one local server (bench/lib/api-server.mjs).
 *
 * - bundle: each side's create-only handler, `esbuild --bundle --platform=node --format=esm
 *   --minify` (the SDK from the built package, by its name); the SDK's upload handler too;
 * - cold process: a fresh `node` running the bundled handler once (start, one create, exit),
 *   timed from spawn to exit, and its peak RSS; the SDK's upload handler (create, upload, create
 *   with `{ file }`) measured the same way;
 * - throughput: a fresh process making CREATES creates at concurrency 32 through the installed
 *   package (not bundled), timed from spawn to exit, and its peak RSS.
 *
 * The client runs on CPU 0 and the server on CPU 1 (taskset, when present); rounds interleave
 * the sides (A B, then B A), ratios are taken per round, and medians are reported. Knobs:
 * PEER_COLD_ROUNDS (15), PEER_THROUGHPUT_ROUNDS (7), PEER_CREATES (6000). Writes
 * `.bench-tmp/peer.json`.
 */
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { INCIDENT, TOKEN } from './lib/cold-start-children.js';
import { ensureBuilt, machine, median, pinned, ROOT, round, startServerProcess, stop } from './lib/common.js';
import { BUDGET, CREATE_HANDLER, esbuildHandler, UPLOAD_HANDLER } from './lib/handlers.js';

const COLD_ROUNDS = Number(process.env.PEER_COLD_ROUNDS ?? 15);
const THROUGHPUT_ROUNDS = Number(process.env.PEER_THROUGHPUT_ROUNDS ?? 7);
const CREATES = Number(process.env.PEER_CREATES ?? 6000);
const CONCURRENCY = 32;

ensureBuilt();
// Inside the package: `claims-notification-sdk` resolves to dist/ by self-reference.
const dir = join(ROOT, '.bench-tmp', 'peer');
mkdirSync(dir, { recursive: true });

// The peer's types, generated as its users generate them.
const require = createRequire(import.meta.url);
execFileSync(
  process.execPath,
  [
    join(require.resolve('openapi-typescript/package.json'), '..', 'bin', 'cli.js'),
    join(ROOT, 'bench/peer/claims-api.yaml'),
    '-o',
    join(dir, 'claims-api.d.ts'),
  ],
  { stdio: 'ignore' },
);
copyFileSync(join(ROOT, 'bench/peer/handler.ts'), join(dir, 'handler-peer.ts'));
writeFileSync(join(dir, 'handler-sdk.mjs'), CREATE_HANDLER);
writeFileSync(join(dir, 'handler-upload.mjs'), UPLOAD_HANDLER);

const bundles = {
  sdk: await esbuildHandler(join(dir, 'handler-sdk.mjs'), join(dir, 'sdk.bundle.mjs'), 'esm'),
  peer: await esbuildHandler(join(dir, 'handler-peer.ts'), join(dir, 'peer.bundle.mjs'), 'esm'),
  upload: await esbuildHandler(join(dir, 'handler-upload.mjs'), join(dir, 'upload.bundle.mjs'), 'esm'),
};

// One child script for every run: it imports its target and prints its peak RSS at exit.
writeFileSync(
  join(dir, 'cold.mjs'),
  `const { handler } = await import(process.argv[2]);
const incident = JSON.parse(process.env.PEER_INCIDENT);
const result = await handler({ incident, text: 'claim photo' });
if (!result?.incidentId) throw new Error('unexpected answer: ' + JSON.stringify(result));
process.stdout.write(JSON.stringify({ rssKiB: process.resourceUsage().maxRSS }));
process.exit(0);
`,
);
writeFileSync(
  join(dir, 'throughput.mjs'),
  `const side = process.argv[2];
const incident = JSON.parse(process.env.PEER_INCIDENT);
const baseUrl = process.env.CLAIMS_URL;
let create;
if (side === 'sdk') {
  const { ClaimsClient } = await import('claims-notification-sdk');
  const client = new ClaimsClient({ baseUrl, accessToken: process.env.CLAIMS_TOKEN });
  create = () => client.incidents.create(incident);
} else {
  const { default: createClient } = await import('openapi-fetch');
  const client = createClient({ baseUrl, headers: { authorization: 'Bearer ' + process.env.CLAIMS_TOKEN } });
  create = async () => {
    const { data } = await client.POST('/incidents', { body: incident });
    if (!data) throw new Error('create failed');
    return data;
  };
}
let left = ${CREATES};
const worker = async () => { while (left-- > 0) await create(); };
await Promise.all(Array.from({ length: ${CONCURRENCY} }, worker));
process.stdout.write(JSON.stringify({ rssKiB: process.resourceUsage().maxRSS }));
process.exit(0);
`,
);

const server = await startServerProcess(join(ROOT, 'bench/lib/api-server.mjs'), 1);
const env = {
  ...process.env,
  CLAIMS_URL: server.url,
  CLAIMS_TOKEN: TOKEN,
  PEER_INCIDENT: JSON.stringify(INCIDENT),
};

/** Runs `node <args>` pinned to CPU 0; wall time from spawn to exit, and the child's peak RSS. */
async function run(args: string[]): Promise<{ ms: number; rssMiB: number }> {
  const [command, argv] = pinned(0, process.execPath, args);
  const started = performance.now();
  const { stdout } = await promisify(execFile)(command, argv, { cwd: dir, env, timeout: 120_000 });
  const ms = performance.now() - started;
  return { ms, rssMiB: (JSON.parse(stdout) as { rssKiB: number }).rssKiB / 1024 };
}

interface Paired {
  sdk: Array<{ ms: number; rssMiB: number }>;
  peer: Array<{ ms: number; rssMiB: number }>;
  ratios: number[];
}

async function paired(rounds: number, sdkArgs: string[], peerArgs: string[]): Promise<Paired> {
  const out: Paired = { sdk: [], peer: [], ratios: [] };
  for (let i = 0; i < rounds; i++) {
    // A B, then B A: neither side always runs on a machine the other just warmed.
    const [a, b] = i % 2 === 0 ? [sdkArgs, peerArgs] : [peerArgs, sdkArgs];
    const first = await run(a);
    const second = await run(b);
    const [sdk, peer] = i % 2 === 0 ? [first, second] : [second, first];
    out.sdk.push(sdk);
    out.peer.push(peer);
    out.ratios.push(sdk.ms / peer.ms);
  }
  return out;
}

const summary = (p: Paired) => ({
  sdkMs: round(median(p.sdk.map((r) => r.ms))),
  peerMs: round(median(p.peer.map((r) => r.ms))),
  ratio: round(median(p.ratios), 2),
  ratioRange: [round(Math.min(...p.ratios), 2), round(Math.max(...p.ratios), 2)],
  sdkPeakMiB: round(median(p.sdk.map((r) => r.rssMiB))),
  peerPeakMiB: round(median(p.peer.map((r) => r.rssMiB))),
});

try {
  // One warm-up of each (disk cache), not counted.
  await run(['cold.mjs', './sdk.bundle.mjs']);
  await run(['cold.mjs', './peer.bundle.mjs']);
  const cold = summary(
    await paired(COLD_ROUNDS, ['cold.mjs', './sdk.bundle.mjs'], ['cold.mjs', './peer.bundle.mjs']),
  );
  const uploadRuns: number[] = [];
  const uploadRss: number[] = [];
  for (let i = 0; i < COLD_ROUNDS; i++) {
    const r = await run(['cold.mjs', './upload.bundle.mjs']);
    uploadRuns.push(r.ms);
    uploadRss.push(r.rssMiB);
  }
  const throughput = summary(
    await paired(THROUGHPUT_ROUNDS, ['throughput.mjs', 'sdk'], ['throughput.mjs', 'peer']),
  );
  const kb = (bytes: number) => round(bytes / 1000, 1);
  const result = {
    machine: machine(),
    date: new Date().toISOString().slice(0, 10),
    bundle: {
      sdk: { kB: kb(bundles.sdk.bytes), gzipKB: kb(bundles.sdk.gzipBytes), byPackage: bundles.sdk.byPackage },
      peer: {
        kB: kb(bundles.peer.bytes),
        gzipKB: kb(bundles.peer.gzipBytes),
        byPackage: bundles.peer.byPackage,
      },
      upload: { kB: kb(bundles.upload.bytes), gzipKB: kb(bundles.upload.gzipBytes) },
      budget: { kB: kb(BUDGET.bytes), gzipKB: kb(BUDGET.gzipBytes) },
    },
    cold: { rounds: COLD_ROUNDS, ...cold, target: 0.6, met: cold.ratio <= 0.6 },
    uploadCold: { runs: COLD_ROUNDS, ms: round(median(uploadRuns)), peakMiB: round(median(uploadRss)) },
    throughput: {
      rounds: THROUGHPUT_ROUNDS,
      creates: CREATES,
      concurrency: CONCURRENCY,
      ...throughput,
      throughputRatio: round(1 / throughput.ratio, 2),
      target: 3,
      met: 1 / throughput.ratio >= 3,
    },
  };
  writeFileSync(join(ROOT, '.bench-tmp', 'peer.json'), `${JSON.stringify(result, null, 2)}\n`);
  const b = result.bundle;
  console.log(`peer bench (${result.machine})`);
  console.log(
    `bundle, create-only: SDK ${b.sdk.kB} kB (${b.sdk.gzipKB} gzip), peer ${b.peer.kB} kB (${b.peer.gzipKB}); budget ${b.budget.kB} (${b.budget.gzipKB}); upload handler ${b.upload.kB} kB (${b.upload.gzipKB})`,
  );
  console.log(
    `cold process (median of ${COLD_ROUNDS}, paired): SDK ${cold.sdkMs} ms, peak ${cold.sdkPeakMiB} MiB; peer ${cold.peerMs} ms, ${cold.peerPeakMiB} MiB; ratio ${cold.ratio} (${cold.ratioRange.join('–')}); target ≤ 0.6: ${result.cold.met ? 'met' : 'MISSED'}`,
  );
  console.log(
    `upload handler cold process: ${result.uploadCold.ms} ms, peak ${result.uploadCold.peakMiB} MiB`,
  );
  console.log(
    `${CREATES} creates at concurrency ${CONCURRENCY} (median of ${THROUGHPUT_ROUNDS}, paired): SDK ${throughput.sdkMs} ms, peak ${throughput.sdkPeakMiB} MiB; peer ${throughput.peerMs} ms, ${throughput.peerPeakMiB} MiB; time ratio ${throughput.ratio} (${throughput.ratioRange.join('–')}), throughput ${result.throughput.throughputRatio}×; target ≥ 3×: ${result.throughput.met ? 'met' : 'MISSED'}`,
  );
} finally {
  await stop(server.child);
}
