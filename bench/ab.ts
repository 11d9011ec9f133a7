/**
 * A/B: this checkout (B) against another commit (A, `main` by default), interleaved in one run,
 * on the three things a change to the core must not slow: the first call of a fresh process,
 * steady throughput (concurrency 1 and 32, with the client CPU per call), and a streamed
 * upload (time and the client's peak RSS growth); plus the SDK's own CPU per call with no
 * network at all (a fetch answering at once; undici's MockAgent), steadier on a busy machine. Each sample is a child process on CPU 0
 * (the servers on CPU 1, when `taskset` exists) loading `dist/` of its side; rounds alternate
 * A B / B A, so load from elsewhere on the machine hits both alike. Reported: the medians of
 * each side and the median of the per-round ratios, written so that >= 1 means B is no worse
 * (throughput B/A; times and memory A/B). Then both sides in one process, slices alternating
 * (`AB_SAME_PROCESS_SLICES`, default 12): the per-call rows again, without what differs between
 * two fresh processes, which on this box moved a 5-round c=1 median from 0.87 to 1.29 between
 * two runs an hour apart.
 *
 *   npx tsx bench/ab.ts                          # A = main, 9 rounds
 *   AB_BASE=7cdc5b4 AB_ROUNDS=15 AB_SECONDS=2 AB_UPLOAD_MB=256 AB_SAME_PROCESS_SLICES=12 npx tsx bench/ab.ts
 *
 * A is checked out into .bench-tmp/ab/base (a detached git worktree, reusing this checkout's
 * node_modules) and built there; B is built here when stale. Writes `.bench-tmp/ab.json`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, symlinkSync } from 'node:fs';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

const BASE = process.env.AB_BASE ?? 'main';
const ROUNDS = Number(process.env.AB_ROUNDS ?? 9);
const SECONDS = Number(process.env.AB_SECONDS ?? 2);
const UPLOAD_MB = Number(process.env.AB_UPLOAD_MB ?? 256);
const FIRST_CALLS_PER_ROUND = 3;
const SAME_PROCESS_SLICES = Number(process.env.AB_SAME_PROCESS_SLICES ?? 12);
const WORK = join(ROOT, '.bench-tmp', 'ab');
const OUT_FILE = join(ROOT, '.bench-tmp', 'ab.json');

/** Checks out and builds A; returns its root. */
function prepareBase(): string {
  const dir = join(WORK, 'base');
  if (existsSync(dir))
    execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'ignore' });
  execFileSync('git', ['worktree', 'add', '--detach', dir, BASE], { cwd: ROOT, stdio: 'ignore' });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  process.stdout.write(`ab: building A (${BASE}) in ${dir}\n`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

const INCIDENT = {
  programmeCode: 'PRG-HOME',
  policyCountry: 'GB',
  policyTypeCode: 'HOME-STD',
  incidentDate: '2026-11-02',
  description: 'Kitchen fire, smoke damage to the ceiling and the east wall; tenant moved out.',
};

/** The children: each reads CLAIMS_AB_DIST (the side's dist/index.js URL) and CLAIMS_AB_URL. */
const CHILDREN: Record<string, string> = {
  'first.mjs': `const t0 = performance.now();
const { ClaimsClient } = await import(process.env.CLAIMS_AB_DIST);
const client = new ClaimsClient({ baseUrl: process.env.CLAIMS_AB_URL, accessToken: 'tok_bench_0123456789abcdef' });
const result = await client.incidents.create(${JSON.stringify(INCIDENT)});
if (result.incidentId !== 'INC-000123') throw new Error('unexpected answer');
process.stdout.write(JSON.stringify({ firstMs: performance.now() - t0 }));
process.exit(0);`,
  'throughput.mjs': `const { ClaimsClient } = await import(process.env.CLAIMS_AB_DIST);
const client = new ClaimsClient({ baseUrl: process.env.CLAIMS_AB_URL, accessToken: 'tok_bench_0123456789abcdef' });
const incident = ${JSON.stringify(INCIDENT)};
async function slice(concurrency, ms) {
  const deadline = performance.now() + ms;
  let calls = 0;
  const worker = async () => { while (performance.now() < deadline) { await client.incidents.create(incident); calls++; } };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  return { rps: calls / (performance.now() - started) * 1000, cpuUs: (used.user + used.system) / calls };
}
await slice(32, 1000); await slice(1, 300);
const ms = Number(process.env.CLAIMS_AB_SECONDS) * 1000;
const one = await slice(1, ms);
const many = await slice(32, ms);
process.stdout.write(JSON.stringify({ rps1: one.rps, rps32: many.rps, cpu1: one.cpuUs, cpu32: many.cpuUs }));
process.exit(0);`,
  // The SDK's own CPU per call, with no network and no server: a fetch answering at once, and
  // undici's MockAgent (the undici wire's path). Steadier than throughput on a busy machine.
  'cpu-fetch.mjs': `const { ClaimsClient } = await import(process.env.CLAIMS_AB_DIST);
const body = JSON.stringify({ incidentId: 'INC-000123', status: 'Open' });
const headers = { 'content-type': 'application/json', 'x-request-id': 'r1', 'content-length': String(body.length) };
const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'tok_bench_0123456789abcdef', fetch: async () => new Response(body, { status: 201, headers }) });
const incident = ${JSON.stringify(INCIDENT)};
for (let i = 0; i < 5000; i++) await client.incidents.create(incident);
const cpu = process.cpuUsage();
for (let i = 0; i < 20000; i++) await client.incidents.create(incident);
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ cpuFetchUs: (used.user + used.system) / 20000 }));`,
  'cpu-undici.mjs': `import { MockAgent } from 'undici';
const { ClaimsClient } = await import(process.env.CLAIMS_AB_DIST);
const agent = new MockAgent({ connections: 1 });
agent.disableNetConnect();
agent.get('http://127.0.0.1:9').intercept({ path: '/incidents', method: 'POST' })
  .reply(201, JSON.stringify({ incidentId: 'INC-000123', status: 'Open' }), { headers: { 'content-type': 'application/json' } }).persist();
const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'tok_bench_0123456789abcdef', dispatcher: agent });
const incident = ${JSON.stringify(INCIDENT)};
for (let i = 0; i < 5000; i++) await client.incidents.create(incident);
const cpu = process.cpuUsage();
for (let i = 0; i < 20000; i++) await client.incidents.create(incident);
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ cpuUndiciUs: (used.user + used.system) / 20000 }));`,
  // Both sides in ONE process, slices alternating A B / B A: what differs between two fresh
  // processes (code layout, when the JIT kicks in, a neighbour's burst) hits both alike, so the
  // per-call cost reads steadier than from separate children. Per slice: c=1 and c=32 over HTTP,
  // and the fetch answering at once.
  'same-process.mjs': `const sides = { A: await import(process.env.CLAIMS_AB_DIST_A), B: await import(process.env.CLAIMS_AB_DIST_B) };
const incident = ${JSON.stringify(INCIDENT)};
const body = JSON.stringify({ incidentId: 'INC-000123', status: 'Open' });
const headers = { 'content-type': 'application/json', 'x-request-id': 'r1', 'content-length': String(body.length) };
const make = (m, fetch) => new m.ClaimsClient({ baseUrl: fetch ? 'http://127.0.0.1:9' : process.env.CLAIMS_AB_URL, accessToken: 'tok_bench_0123456789abcdef', ...(fetch ? { fetch } : {}) });
const http = { A: make(sides.A), B: make(sides.B) };
const atOnce = { A: make(sides.A, async () => new Response(body, { status: 201, headers })), B: make(sides.B, async () => new Response(body, { status: 201, headers })) };
async function slice(client, c, ms) {
  const end = performance.now() + ms; let calls = 0; const cpu = process.cpuUsage(); const t = performance.now();
  await Promise.all(Array.from({ length: c }, async () => { while (performance.now() < end) { await client.incidents.create(incident); calls++; } }));
  const used = process.cpuUsage(cpu);
  return { rps: calls / (performance.now() - t) * 1000, cpuUs: (used.user + used.system) / calls };
}
for (const k of ['A', 'B']) { await slice(http[k], 32, 1000); await slice(http[k], 1, 500); await slice(atOnce[k], 1, 500); }
const ms = Number(process.env.CLAIMS_AB_SECONDS) * 500;
const out = { A: [], B: [] };
for (let r = 0; r < Number(process.env.CLAIMS_AB_SLICES); r++) {
  for (const k of r % 2 ? ['A', 'B'] : ['B', 'A']) {
    const one = await slice(http[k], 1, ms);
    const many = await slice(http[k], 32, ms);
    const fetchOnly = await slice(atOnce[k], 1, ms);
    out[k].push({ rps1: one.rps, cpu1: one.cpuUs, rps32: many.rps, cpu32: many.cpuUs, cpuFetchUs: fetchOnly.cpuUs });
  }
}
process.stdout.write(JSON.stringify(out));
process.exit(0);`,
  'upload.mjs': `const { ClaimsClient } = await import(process.env.CLAIMS_AB_DIST);
const client = new ClaimsClient({ baseUrl: process.env.CLAIMS_AB_URL, accessToken: 'tok_bench_0123456789abcdef' });
// A small upload first: the code an upload loads (undici, loaded on first use since #25) is
// then in both sides' baseline, so the growth measured is the streaming's own.
const { writeFileSync } = await import('node:fs');
const small = process.env.CLAIMS_AB_FILE + '.warm-up';
writeFileSync(small, 'warm-up');
await client.attachments.upload(small);
const base = process.memoryUsage().rss;
let peak = base;
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
const started = performance.now();
const result = await client.attachments.upload(process.env.CLAIMS_AB_FILE);
const ms = performance.now() - started;
clearInterval(sampler);
if (result.length !== 1) throw new Error('unexpected answer');
process.stdout.write(JSON.stringify({ uploadMs: ms, peakRssGrowthMiB: (peak - base) / 1048576 }));
process.exit(0);`,
};

/** Answers POST /attachments with one record and anything else like the API's create; drops bodies. */
const SERVER = `import { createServer } from 'node:http';
const created = Buffer.from(JSON.stringify({ incidentId: 'INC-000123', status: 'Open' }));
const uploaded = Buffer.from(JSON.stringify([{ filename: 'ab.bin', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' }]));
const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    const body = req.url.endsWith('/attachments') ? uploaded : created;
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });`;

function runChild(file: string, env: Record<string, string>): Promise<Record<string, number>> {
  const [command, args] = pinned(0, process.execPath, [join(WORK, file)]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as Record<string, number>)
        : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  await mkdir(WORK, { recursive: true });
  for (const [file, source] of Object.entries(CHILDREN)) await writeFile(join(WORK, file), source);
  await writeFile(join(WORK, 'server.mjs'), SERVER);
  const file = join(WORK, 'upload.bin');
  const handle = await open(file, 'w');
  for (let i = 0; i < UPLOAD_MB; i++) await handle.write(randomBytes(1024 * 1024));
  await handle.close();

  ensureBuilt();
  const sides = {
    A: pathToFileURL(join(prepareBase(), 'dist', 'index.js')).href,
    B: pathToFileURL(join(ROOT, 'dist', 'index.js')).href,
  };
  const server = await startServerProcess(join(WORK, 'server.mjs'), 1);
  const samples: Record<'A' | 'B', Record<string, number[]>> = { A: {}, B: {} };
  const add = (side: 'A' | 'B', values: Record<string, number>) => {
    for (const [key, value] of Object.entries(values)) {
      samples[side][key] ??= [];
      samples[side][key].push(value);
    }
  };
  const ratios: Record<string, number[]> = {};
  let sameProcess: Record<'A' | 'B', Record<string, number>[]> = { A: [], B: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
      const round_: Record<'A' | 'B', Record<string, number>> = { A: {}, B: {} };
      for (const side of order) {
        const env = {
          CLAIMS_AB_DIST: sides[side],
          CLAIMS_AB_URL: server.url,
          CLAIMS_AB_SECONDS: String(SECONDS),
          CLAIMS_AB_FILE: file,
        };
        const firsts: number[] = [];
        for (let i = 0; i < FIRST_CALLS_PER_ROUND; i++)
          firsts.push((await runChild('first.mjs', env)).firstMs as number);
        const values = {
          firstMs: median(firsts),
          ...(await runChild('throughput.mjs', env)),
          ...(await runChild('upload.mjs', env)),
          ...(await runChild('cpu-fetch.mjs', env)),
          ...(await runChild('cpu-undici.mjs', env)),
        };
        add(side, values);
        round_[side] = values;
      }
      const { A, B } = round_;
      const ratio = (key: string, value: number) => {
        ratios[key] ??= [];
        ratios[key].push(value);
      };
      // Written so that >= 1 means B is no worse than A.
      ratio('first call (A/B time)', (A.firstMs as number) / (B.firstMs as number));
      ratio('throughput c=1 (B/A)', (B.rps1 as number) / (A.rps1 as number));
      ratio('throughput c=32 (B/A)', (B.rps32 as number) / (A.rps32 as number));
      ratio('CPU per call c=1 (A/B)', (A.cpu1 as number) / (B.cpu1 as number));
      ratio('CPU per call c=32 (A/B)', (A.cpu32 as number) / (B.cpu32 as number));
      ratio(
        'SDK CPU per call, fetch answering at once (A/B)',
        (A.cpuFetchUs as number) / (B.cpuFetchUs as number),
      );
      ratio(
        'SDK CPU per call, undici MockAgent (A/B)',
        (A.cpuUndiciUs as number) / (B.cpuUndiciUs as number),
      );
      ratio('upload time (A/B)', (A.uploadMs as number) / (B.uploadMs as number));
      ratio('upload peak RSS growth (A/B)', (A.peakRssGrowthMiB as number) / (B.peakRssGrowthMiB as number));
      process.stdout.write(`ab: round ${r + 1}/${ROUNDS} done\n`);
    }
    sameProcess = (await runChild('same-process.mjs', {
      CLAIMS_AB_DIST_A: sides.A,
      CLAIMS_AB_DIST_B: sides.B,
      CLAIMS_AB_URL: server.url,
      CLAIMS_AB_SECONDS: String(SECONDS),
      CLAIMS_AB_SLICES: String(SAME_PROCESS_SLICES),
    })) as unknown as Record<'A' | 'B', Record<string, number>[]>;
  } finally {
    await stop(server.child);
    await rm(file, { force: true });
  }
  const medians = (side: 'A' | 'B') =>
    Object.fromEntries(Object.entries(samples[side]).map(([key, values]) => [key, round(median(values), 2)]));
  const sameProcessRatio = (key: string, bOverA: boolean) => {
    const values = sameProcess.A.map((a, i) => {
      const b = sameProcess.B[i] as Record<string, number>;
      return bOverA ? (b[key] as number) / (a[key] as number) : (a[key] as number) / (b[key] as number);
    });
    return { median: round(median(values), 3), rounds: values.map((v) => round(v, 3)) };
  };
  const result = {
    bench: 'ab',
    machine: machine(),
    pinned: CAN_PIN ? 'children on CPU 0, server on CPU 1 (taskset)' : 'not pinned',
    base: BASE,
    rounds: ROUNDS,
    secondsPerSlice: SECONDS,
    uploadMiB: UPLOAD_MB,
    medians: { A: medians('A'), B: medians('B') },
    ratios: Object.fromEntries(
      Object.entries(ratios).map(([key, values]) => [
        key,
        { median: round(median(values), 3), rounds: values.map((v) => round(v, 3)) },
      ]),
    ),
    sameProcess: {
      slices: SAME_PROCESS_SLICES,
      'throughput c=1 (B/A)': sameProcessRatio('rps1', true),
      'throughput c=32 (B/A)': sameProcessRatio('rps32', true),
      'CPU per call c=1 (A/B)': sameProcessRatio('cpu1', false),
      'CPU per call c=32 (A/B)': sameProcessRatio('cpu32', false),
      'SDK CPU per call, fetch answering at once (A/B)': sameProcessRatio('cpuFetchUs', false),
    },
  };
  await writeFile(OUT_FILE, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`\nA = ${BASE}, B = this checkout (${result.pinned}; ${ROUNDS} rounds)\n`);
  for (const side of ['A', 'B'] as const)
    process.stdout.write(`  ${side} medians: ${JSON.stringify(result.medians[side])}\n`);
  for (const [key, { median: value, rounds }] of Object.entries(result.ratios)) {
    process.stdout.write(`  ${key}: median ${value} (rounds ${rounds.join(', ')})\n`);
  }
  process.stdout.write(`Both sides in one process, ${SAME_PROCESS_SLICES} alternating slices of each:\n`);
  for (const [key, entry] of Object.entries(result.sameProcess)) {
    if (typeof entry === 'number') continue;
    process.stdout.write(`  ${key}: median ${entry.median} (slices ${entry.rounds.join(', ')})\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
