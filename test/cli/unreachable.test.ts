import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { claimLine } from '../batch/claims-server.js';
import { captureBatchPauses } from '../helpers/pauses.js';
import { claimsHere } from './in-process.js';

// The batch's pauses are captured and not waited (the default back-off would take about 15 s).
let dir: string;
let input: string;
let report: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'claims-unreachable-'));
  input = join(dir, 'claims.jsonl');
  report = join(dir, 'report.json');
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${i + 1}`);
function writeBatch(lines: unknown[]): void {
  writeFileSync(input, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

describe('an unreachable API', () => {
  it('stops the batch with one line after the default back-off (6 attempts, pauses of 0.5 s to 8 s), keys left not_sent', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    writeBatch(keys(50).map((k) => claimLine(k)));
    const pauses = captureBatchPauses();
    const run = await claimsHere(
      ['import', input, '--report', report, '--concurrency', '4'],
      `http://127.0.0.1:${port}`,
    );
    // The default back-off, each pause 0.5 s × 2ⁿ less up to 25%, up to the fifth (8 s), of the
    // claims in flight (4 at most), and nothing longer: not 50 claims' worth.
    const steps = [500, 1_000, 2_000, 4_000, 8_000];
    const step = (ms: number) => steps.findIndex((full) => ms > full * 0.75 - 1e-9 && ms <= full);
    for (const ms of pauses) expect(step(ms), `${ms} ms`).toBeGreaterThanOrEqual(0);
    expect(pauses.filter((ms) => step(ms) === 4).length).toBeGreaterThanOrEqual(1);
    expect(pauses.length).toBeLessThanOrEqual(5 * 4);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /\nclaims: stopped: The API could not be reached: 6 attempt\(s\) to send key "K\d" failed to connect \(.*\), and no claim got an answer from the API meanwhile\n$/,
    );
    expect(run.stdout).toMatch(/^claims: 50 claim\(s\): filed 0, rejected 0, unknown 0, not sent 50\n/);
    expect(run.stdout).toContain(
      'claim(s) not sent because the batch stopped: run the same command again to continue',
    );
    expect(run.stdout.split('\n').length).toBeLessThan(10);
    const entries = JSON.parse(readFileSync(report, 'utf8')) as { state: string }[];
    expect(entries).toHaveLength(50);
    expect(entries.every((e) => e.state === 'not_sent')).toBe(true);
  });
});
