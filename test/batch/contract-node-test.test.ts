import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the contract suite under node:test', () => {
  it('runs its cases with node:test when no describe/it is given and the runner has no globals', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=tap', 'test/batch/child/contract-under-node-test.ts'],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^# Subtest: JournalStore contract$/m);
    expect(run.stdout).toMatch(/^# pass 13$/m);
    expect(run.stdout).toMatch(/^# fail 0$/m);
  }, 90_000);
});
