// Issue #20 point 5: an operator's run, tried as a new one would. In-process (claimsInProcess).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ClaimsServer, claimLine, startClaimsServer } from '../batch/claims-server.js';
import { claimsInProcess } from './in-process.js';

let server: ClaimsServer;
let dir: string;
let input: string;
let report: string;
beforeEach(async () => {
  server = await startClaimsServer();
  server.programmes = [
    { programmeCode: 'PRG', policyTypes: [{ policyTypeCode: 'T1', countries: ['GB', 'IE'] }] },
    { programmeCode: 'PRG-HOME', policyTypes: [{ policyTypeCode: 'H1', countries: ['FR'] }] },
  ];
  dir = mkdtempSync(join(tmpdir(), 'claims-operator-'));
  input = join(dir, 'claims.jsonl');
  report = join(dir, 'report.json');
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ CLAIMS_BASE_URL: server.url, CLAIMS_TOKEN: 'tok' });
const run = (...args: string[]) => claimsInProcess(['import', input, ...args], env());

/** A 500-line batch with one problem of each kind, spread out. */
function badBatch(): string {
  const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify(claimLine(`K${i + 1}`)));
  lines[9] = '{"key": "K10", "incident": {'; // a JSON syntax error
  lines[99] = JSON.stringify(claimLine('K100', { incidentDate: 'yesterday' }));
  lines[199] = JSON.stringify(claimLine('K200', { programmeCode: 'PRG-NOPE' }));
  lines[299] = JSON.stringify(claimLine('K300', { policyTypeCode: 'H1' }));
  lines[399] = JSON.stringify(claimLine('K400', { policyCountry: 'FR' }));
  return `${lines.join('\n')}\n`;
}

describe('claims import: every problem at once, in a real run as in a dry run', () => {
  it('the same problems, with their lines and the right count; a refused run opens no journal and reports the problems', async () => {
    writeFileSync(input, badBatch());
    const dry = await run('--dry-run');
    const real = await run('--report', report);
    expect(dry.code).toBe(2);
    expect(real.code).toBe(2);
    expect(real.stderr).toBe(dry.stderr);
    const lines = real.stderr.trim().split('\n');
    expect(lines[0]).toBe('claims: 5 problem(s) in 500 line(s); nothing was sent:');
    expect(lines.slice(1).map((l) => l.trim().replace(/:.*/, ''))).toEqual([
      'line 10',
      'line 100 (key "K100") incident.incidentDate',
      'line 200 (key "K200") incident.programmeCode',
      'line 300 (key "K300") incident.policyTypeCode',
      'line 400 (key "K400") incident.policyCountry',
    ]);
    expect(real.stderr).toContain(
      'line 200 (key "K200") incident.programmeCode: "PRG-NOPE" is not a programme the programmes metadata lists',
    );
    expect(real.stderr).toContain(
      'line 300 (key "K300") incident.policyTypeCode: "H1" is not a policy type of programme "PRG" (it has "T1")',
    );
    expect(real.stderr).toContain(
      'line 400 (key "K400") incident.policyCountry: "FR" is not a country of policy type "T1" of programme "PRG" (it has "GB", "IE")',
    );
    expect(server.received).toEqual([]);
    expect(existsSync(`${input}.journal`)).toBe(false);
    const written = JSON.parse(readFileSync(report, 'utf8')) as {
      lines: number;
      problems: { line: number; code?: string }[];
    };
    expect(written.lines).toBe(500);
    expect(written.problems.map((p) => [p.line, p.code])).toEqual([
      [10, undefined],
      [100, undefined],
      [200, 'unknown_programme'],
      [300, 'unknown_policy_type'],
      [400, 'unknown_country'],
    ]);
    // --json says the same as one JSON value.
    const json = await run('--json');
    expect(JSON.parse(json.stdout)).toEqual(written);
  });

  it('an API without the programmes operation (404): the check is skipped, the batch filed', async () => {
    server.programmes = undefined;
    writeFileSync(input, `${JSON.stringify(claimLine('A', { programmeCode: 'PRG-ANY' }))}\n`);
    const out = await run();
    expect(out.code).toBe(0);
    expect(server.received).toEqual(['A']);
  });
});

describe('claims import: a CSV saved with ; (a spreadsheet in a comma-decimal locale)', () => {
  const header = 'key;programmeCode;policyCountry;policyTypeCode;incidentDate;description';
  it('is read as ;-separated when its header names the key column so', async () => {
    input = join(dir, 'claims.csv');
    writeFileSync(input, `${header}\nA;PRG;GB;T1;2026-01-31;A\n"B";PRG;IE;T1;2026-01-31;B, with a comma\n`);
    const out = await run('--report', report);
    expect(out.code).toBe(0);
    expect(server.received.sort()).toEqual(['A', 'B, with a comma'].sort());
  });

  it('a header with no key column is named as the problem, before anything is read further', async () => {
    input = join(dir, 'claims.csv');
    writeFileSync(input, 'reference|programmeCode\nA|PRG\n');
    const out = await run();
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'claims: the CSV header has no "key" column (it names 1 column(s): "reference|programmeCode"); the first row must name the columns, separated by , or ;\n',
    );
    expect(existsSync(`${input}.journal`)).toBe(false);
  });
});

describe('claims journal list: the state as the report names it', () => {
  it('a key left sending reads unknown (needs_review), exit 1', async () => {
    const journal = join(dir, 'j.journal');
    const { Journal } = await import('../../src/batch/journal.js');
    const open = await Journal.open(journal);
    await open.write({ key: 'A', state: 'sending', bodyHash: 'h', at: '2026-11-26T10:00:00.000Z' });
    // Listed while the run still holds the journal: read-only, no lock.
    const listed = await claimsInProcess(['journal', 'list', '--journal', journal], env());
    await open.close();
    expect(listed.code).toBe(1);
    expect(listed.stdout).toBe(
      'A\tunknown\t2026-11-26T10:00:00.000Z\tits run stopped while it was being sent (needs_review)\n',
    );
  });
});
