import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimLine } from '../batch/claims-server.js';
import { claimsHere } from './in-process.js';

// Its own file: it waits the whole default back-off (about 15 s), which a mutation run of the
// other CLI tests need not.
let dir: string;
let input: string;
let report: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'claims-unreachable-'));
  input = join(dir, 'claims.jsonl');
  report = join(dir, 'report.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${i + 1}`);
function writeBatch(lines: unknown[]): void {
  writeFileSync(input, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

describe('an unreachable API', () => {
  it('stops the batch with one line after the default back-off (6 attempts, about 15 s), keys left not_sent', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    writeBatch(keys(50).map((k) => claimLine(k)));
    const started = Date.now();
    const run = await claimsHere(
      ['import', input, '--report', report, '--concurrency', '4'],
      `http://127.0.0.1:${port}`,
    );
    expect(Date.now() - started).toBeLessThan(40_000);
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
  }, 60_000);
});
