/**
 * The cold-start wire, as shipped: a fresh Node process importing the built SDK (ESM and CJS)
 * sends its calls over `node:http` without loading undici, until it is busy (64 calls within a
 * second): then it loads undici and sends the next calls through it. Which client sent a
 * request is read from the diagnostics channels each publishes (`http.client.request.start`, `undici:request:create`);
 * whether undici was loaded, from the module cache (undici is CommonJS, so even an ESM import
 * of it lands in `require.cache`).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incident } from '../helpers/fixtures.js';
import { type BuiltEntry, builtEntry } from '../packaging/built-entry.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside the package, so the child scripts resolve the SDK's dependencies from its node_modules.
const SCRATCH_PARENT = join(ROOT, '.bench-tmp');

let entry: BuiltEntry | undefined;
let distDir: string;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  entry = await builtEntry();
  distDir = entry.dir;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"incidentId":"INC-1"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  entry?.remove();
});

interface Report {
  /** Which client sent each request, in order. */
  sent: string[];
  undiciAfterFirst: boolean;
  /** Whether undici was loaded after 10 calls with pauses, then after 64 quick ones. */
  undiciAfterSlow: boolean;
  undiciAfterBusy: boolean;
  answers: unknown[];
}

/**
 * A fresh process: one call, then 10 calls 1.1 s apart (a quiet client), then 64 in a row (a
 * busy one), then, once undici had time to load, two more. The wire's busy window reads
 * `performance.now()`, which the child moves itself: the quiet calls are seconds apart and the
 * busy ones within one instant, however loaded the machine is (it used to take the wall clock,
 * and 64 calls could take more than a second under load).
 */
function childSource(moduleSystem: 'esm' | 'cjs'): string {
  const entry = join(distDir, moduleSystem === 'esm' ? 'index.js' : 'index.cjs');
  const load =
    moduleSystem === 'esm'
      ? `const { createRequire } = await import('node:module');
const require = createRequire(import.meta.url);
const { ClaimsClient } = await import(${JSON.stringify(pathToFileURL(entry).href)});`
      : `const { ClaimsClient } = require(${JSON.stringify(entry)});`;
  const body = `${load}
const dc = require('node:diagnostics_channel');
const sent = [];
dc.subscribe('http.client.request.start', () => sent.push('node:http'));
dc.subscribe('undici:request:create', () => sent.push('undici'));
const undiciLoaded = () => Object.keys(require.cache).some((file) => /[\\\\/]node_modules[\\\\/]undici[\\\\/]/.test(file));
const client = new ClaimsClient({ baseUrl: process.env.CLAIMS_URL, accessToken: 'tok' });
const incident = ${JSON.stringify(incident)};
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const realNow = performance.now.bind(performance);
let skipped = 0;
let frozenAt;
performance.now = () => frozenAt ?? realNow() + skipped;
const answers = [await client.incidents.create(incident)];
const undiciAfterFirst = undiciLoaded();
for (let i = 0; i < 10; i++) {
  skipped += 1_100;
  answers.push(await client.incidents.create(incident));
}
const undiciAfterSlow = undiciLoaded();
frozenAt = performance.now();
for (let i = 0; i < 64; i++) answers.push(await client.incidents.create(incident));
frozenAt = undefined;
// undici's index loads in ~0.1 s on a quiet machine; a loaded one may take seconds.
for (let i = 0; i < 1_000 && !undiciLoaded(); i++) await pause(10);
await pause(20);
const undiciAfterBusy = undiciLoaded();
answers.push(await client.incidents.create(incident), await client.incidents.create(incident));
await client.close();
process.stdout.write(JSON.stringify({ sent, undiciAfterFirst, undiciAfterSlow, undiciAfterBusy, answers }));`;
  return moduleSystem === 'esm' ? body : `(async () => {\n${body}\n})();`;
}

async function runChild(moduleSystem: 'esm' | 'cjs'): Promise<Report> {
  const dir = mkdtempSync(join(SCRATCH_PARENT, 'cold-start-child-'));
  try {
    const file = join(dir, moduleSystem === 'esm' ? 'child.mjs' : 'child.cjs');
    writeFileSync(file, childSource(moduleSystem));
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      env: { ...process.env, CLAIMS_URL: baseUrl },
      timeout: 20_000,
    });
    return JSON.parse(stdout) as Report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(['esm', 'cjs'] as const)('a fresh process (%s build)', (moduleSystem) => {
  it('sends its calls over node:http without loading undici until busy, then through undici', async () => {
    mkdirSync(SCRATCH_PARENT, { recursive: true });
    const report = await runChild(moduleSystem);
    expect(report.answers).toEqual(Array(1 + 10 + 64 + 2).fill({ incidentId: 'INC-1' }));
    expect(report.undiciAfterFirst).toBe(false);
    expect(report.undiciAfterSlow).toBe(false);
    expect(report.undiciAfterBusy).toBe(true);
    // One switch: node:http for the quiet calls and the first busy ones, undici after.
    const switched = report.sent.indexOf('undici');
    expect(switched).toBeGreaterThan(11);
    expect(report.sent.slice(0, switched)).toEqual(Array(switched).fill('node:http'));
    expect(report.sent.slice(switched)).toEqual(Array(77 - switched).fill('undici'));
  }, 30_000);
});
