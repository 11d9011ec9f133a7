/**
 * The `claims` and `claims-sandbox` commands as users' scripts see them: every help text, the
 * exit codes, what a wrong call prints. A change to any of them shows in review as a change to
 * api/cli.md; this test fails until that file is refreshed with `npm run api:update`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the CLI surface (api/cli.md)', () => {
  it('is what the commands print now: run `npm run api:update` after changing them', () => {
    const printed = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/cli-surface.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(printed.stderr).toBe('');
    expect(printed.status).toBe(0);
    const committed = readFileSync(join(ROOT, 'api/cli.md'), 'utf8');
    expect(
      printed.stdout,
      'api/cli.md differs from what the commands print: run `npm run api:update` and commit api/cli.md',
    ).toBe(committed);
    // The snapshot covers every command and the exit codes, so the comparison means something.
    for (const heading of [
      '`claims --help`',
      '`claims import --help`',
      '`claims-sandbox --help`',
      '| `usage` | 2 |',
    ])
      expect(committed).toContain(heading);
  }, 60_000);
});
