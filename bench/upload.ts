/**
 * Upload benchmark: `client.attachments.upload(path)` against a raw `undici.request` that
 * streams the same file (`fs.createReadStream` as the body), to a local server in another
 * process that discards the bytes. Interleaved rounds, medians, and the client's peak RSS
 * growth during the SDK upload.
 *
 *   npx tsx bench/upload.ts                     # 1 GiB, 3 rounds each
 *   UPLOAD_BENCH_MB=256 UPLOAD_BENCH_ROUNDS=5 npx tsx bench/upload.ts
 *
 * Prints a result block and writes `.bench-tmp/upload.json`. Exits 0 even when a target is
 * missed (the JSON says so); exits 1 only when the benchmark itself fails.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { ClaimsClient } from '../src/index.js';

const MIB = 1024 * 1024;
const SIZE_MB = readPositiveInt('UPLOAD_BENCH_MB', 1024);
const ROUNDS = readPositiveInt('UPLOAD_BENCH_ROUNDS', 3);
const RATIO_TARGET = 0.8;
const RSS_TARGET_MIB = 64;
const RSS_SAMPLE_MS = 20;
const OUT_FILE = new URL('../.bench-tmp/upload.json', import.meta.url);

function readPositiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

// The server: plain JS run by `node -e` in its own process (and on its own CPU when pinned),
// so its parsing work does not compete with the client being measured. It counts the bytes,
// drops them, and answers like the API: one record per upload.
const SERVER_SOURCE = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  let bytes = 0;
  req.on('data', (chunk) => { bytes += chunk.length; });
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-received-bytes', String(bytes));
    res.end(JSON.stringify([{ filename: 'bench.bin', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' }]));
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
process.on('SIGTERM', () => process.exit(0));
// Dies with the client: its stdin is our pipe, which closes when the client exits, even if killed.
process.stdin.on('end', () => process.exit(0)).resume();
`;

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function startServer(pin: boolean): Promise<{ child: ChildProcess; url: string }> {
  const command = pin ? 'taskset' : process.execPath;
  const args = pin ? ['-c', '1', process.execPath, '-e', SERVER_SOURCE] : ['-e', SERVER_SOURCE];
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('bench server did not start within 10 s')), 10_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited early (code ${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(out.trim());
      }
    });
  });
  child.removeAllListeners('exit');
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Writes `sizeMb` MiB quickly: one random 1 MiB chunk, repeated (the server does not care). */
async function makeFile(path: string, sizeMb: number): Promise<void> {
  const chunk = randomBytes(MIB);
  const handle = await open(path, 'w');
  try {
    for (let i = 0; i < sizeMb; i++) await handle.write(chunk, 0, MIB, i * MIB);
  } finally {
    await handle.close();
  }
}

interface Run {
  seconds: number;
  mbPerSecond: number;
  rssGrowthMiB: number;
  receivedBytes: number;
}

/** Runs one upload while sampling RSS every ~20 ms; growth is peak minus the value just before. */
async function measure(bytes: number, upload: () => Promise<number>): Promise<Run> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, RSS_SAMPLE_MS);
  const start = process.hrtime.bigint();
  let receivedBytes: number;
  try {
    receivedBytes = await upload();
  } finally {
    clearInterval(sampler);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    seconds,
    mbPerSecond: bytes / 1e6 / seconds,
    rssGrowthMiB: (peak - before) / MIB,
    receivedBytes,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function main(): Promise<void> {
  const pin = hasTaskset();
  if (pin) {
    // -a: every thread of this process (libuv's pool too), so the client stays on CPU 0.
    execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  }
  const dir = await mkdtemp(join(tmpdir(), 'claims-upload-bench-'));
  const file = join(dir, 'bench.bin');
  const bytes = SIZE_MB * MIB;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    process.stdout.write(`upload bench: writing ${SIZE_MB} MiB to ${file} ...\n`);
    await makeFile(file, SIZE_MB);
    server = await startServer(pin);
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'bench-token', maxRetries: 0 });
    const url = `${server.url}/attachments`;

    const sdk = async (): Promise<number> => {
      const [record] = await client.attachments.upload(file);
      if (record?.attachmentId === undefined) throw new Error('SDK upload returned no record');
      return -1; // the SDK does not expose response headers; bytes are checked on the raw side
    };
    const raw = async (): Promise<number> => {
      const res = await request(url, {
        method: 'POST',
        headers: {
          authorization: 'Bearer bench-token',
          'content-type': 'application/octet-stream',
          'content-length': String(bytes),
        },
        // Same read size as the SDK uses for paths, so the ratio measures the SDK's own cost.
        body: createReadStream(file, { highWaterMark: 256 * 1024 }),
      });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`raw upload answered ${res.statusCode}`);
      return Number(res.headers['x-received-bytes']);
    };

    // Warm-up (not measured): JIT, the dynamic imports, the keep-alive connection.
    const warm = Math.min(bytes, 64 * MIB);
    await measure(warm, sdk);
    await measure(warm, raw);

    const runs: { sdk: Run[]; raw: Run[] } = { sdk: [], raw: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so neither always gets the warmer page cache or CPU.
      const order = round % 2 === 0 ? (['sdk', 'raw'] as const) : (['raw', 'sdk'] as const);
      for (const which of order) {
        const run = await measure(bytes, which === 'sdk' ? sdk : raw);
        runs[which].push(run);
        process.stdout.write(
          `  round ${round + 1} ${which.padEnd(3)}  ${run.mbPerSecond.toFixed(0).padStart(5)} MB/s` +
            `  ${run.seconds.toFixed(2)} s  rss +${run.rssGrowthMiB.toFixed(1)} MiB\n`,
        );
      }
    }
    const rawReceived = runs.raw[0]?.receivedBytes;
    if (rawReceived !== bytes) throw new Error(`server received ${rawReceived} bytes, expected ${bytes}`);

    const sdkMedian = median(runs.sdk.map((r) => r.mbPerSecond));
    const rawMedian = median(runs.raw.map((r) => r.mbPerSecond));
    const ratio = sdkMedian / rawMedian;
    // Each round's SDK run against the raw run next to it: steadier than the ratio of medians
    // when the machine's speed drifts during the run (a shared host).
    const pairedRatio = median(runs.sdk.map((r, i) => r.mbPerSecond / (runs.raw[i] as Run).mbPerSecond));
    const sdkRss = Math.max(...runs.sdk.map((r) => r.rssGrowthMiB));
    const rawRss = Math.max(...runs.raw.map((r) => r.rssGrowthMiB));
    const result = {
      benchmark: 'upload',
      fileMiB: SIZE_MB,
      rounds: ROUNDS,
      pinned: pin,
      node: process.version,
      unit: 'MB/s (10^6 bytes per second)',
      sdk: { medianMBps: round1(sdkMedian), runsMBps: runs.sdk.map((r) => round1(r.mbPerSecond)) },
      raw: { medianMBps: round1(rawMedian), runsMBps: runs.raw.map((r) => round1(r.mbPerSecond)) },
      ratio: Math.round(ratio * 1000) / 1000,
      pairedRatioMedian: Math.round(pairedRatio * 1000) / 1000,
      ratioTarget: RATIO_TARGET,
      sdkPeakRssGrowthMiB: round1(sdkRss),
      rawPeakRssGrowthMiB: round1(rawRss),
      rssTargetMiB: RSS_TARGET_MIB,
      pass: ratio >= RATIO_TARGET && sdkRss < RSS_TARGET_MIB,
    };
    await mkdir(new URL('.', OUT_FILE), { recursive: true });
    await writeFile(OUT_FILE, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      [
        '',
        '=== upload benchmark ===',
        `file            ${SIZE_MB} MiB, ${ROUNDS} interleaved rounds each${pin ? ', client CPU 0 / server CPU 1' : ' (not pinned: no taskset)'}`,
        `SDK upload      ${result.sdk.medianMBps} MB/s median  (${result.sdk.runsMBps.join(', ')})`,
        `raw undici      ${result.raw.medianMBps} MB/s median  (${result.raw.runsMBps.join(', ')})`,
        `ratio SDK/raw   ${result.ratio}  (target >= ${RATIO_TARGET}); per-round median ${result.pairedRatioMedian}`,
        `SDK peak RSS    +${result.sdkPeakRssGrowthMiB} MiB  (target < ${RSS_TARGET_MIB} MiB; raw +${result.rawPeakRssGrowthMiB} MiB)`,
        `result          ${result.pass ? 'PASS' : 'MISS'}  -> ${OUT_FILE.pathname}`,
        '',
      ].join('\n'),
    );
  } finally {
    server?.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`upload bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
