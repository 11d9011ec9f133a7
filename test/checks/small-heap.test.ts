/**
 * The checks' memory does not grow with their input (#27.1): in a process with a 48 MB heap,
 * a 1 MB identifier (which once needed a table of a million rows and killed a 128 MB heap),
 * 10,000 unknown entries, a form of 100,000 fields and a 1 MB top-level key are all checked.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SCRIPT = `
import { checkExtendedFields } from './src/extended-fields.ts';
import { parseIncidentCreate } from './src/checks/incident-create.ts';
const MB = 1 << 20;
const form = Array.from({ length: 50 }, (_, i) => ({ identifier: 'claim_form:Field_' + i }));
for (let n = 0; n < 4; n++) {
  const [p] = checkExtendedFields(form, [{ identifier: 'claim_form:' + String(n).repeat(MB), value: 'v' }]);
  if (p.code !== 'unknown_identifier') throw new Error('no problem found');
}
const unknown = Array.from({ length: 10000 }, (_, i) => ({ identifier: 'claim_form:Feld_' + i, value: 'v' }));
if (checkExtendedFields(form, unknown).length !== 10000) throw new Error('problems lost');
const big = Array.from({ length: 100000 }, (_, i) => ({ identifier: 'claim_form:Field_' + i }));
checkExtendedFields(big, [{ identifier: 'claim_form:Feld_5', value: 'v' }]);
const body = { programmeCode: 'P', policyCountry: 'GB', policyTypeCode: 'T', incidentDate: '2026-01-02', description: 'd' };
body['k'.repeat(MB)] = 1;
if (!parseIncidentCreate(body)) throw new Error('body refused');
console.log('ok ' + Math.round(process.memoryUsage().heapUsed / MB));
`;

describe('the checks in a 48 MB heap', () => {
  it('a 1 MB identifier, 10,000 unknown entries, 100,000 fields and a 1 MB key all pass', () => {
    const run = spawnSync(
      process.execPath,
      ['--max-old-space-size=48', '--import', 'tsx', '--input-type=module', '-e', SCRIPT],
      { cwd: process.cwd(), encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.stderr).not.toMatch(/heap out of memory/i);
    expect(run.stdout).toMatch(/^ok \d+\n$/);
    expect(run.status).toBe(0);
  }, 130_000);
});
