import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/batch/journal.js';
import { encodeRecord } from '../../src/batch/record.js';
import { type ClaimsServer, claimLine, startClaimsServer } from '../batch/claims-server.js';
import { claimsHere } from './in-process.js';

let server: ClaimsServer;
let dir: string;
let input: string;
let journal: string;
let report: string;
beforeEach(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'claims-safety-'));
  input = join(dir, 'claims.jsonl');
  journal = `${input}.journal`;
  report = join(dir, 'report.json');
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${i + 1}`);
function writeBatch(lines: unknown[], path = input): void {
  writeFileSync(path, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
}
const claims = (args: string[], env: Record<string, string | undefined> = {}) =>
  claimsHere(args, server.url, env);
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must never reach a terminal
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('claims import never destroys a file', () => {
  it('refuses --journal naming the input (by name, symlink or hard link), exit 2, nothing sent, the input unchanged', async () => {
    writeBatch(keys(3).map((k) => claimLine(k)));
    const content = readFileSync(input, 'utf8');
    symlinkSync(input, join(dir, 'link.journal'));
    linkSync(input, join(dir, 'hard.journal'));
    for (const [name, expected] of [
      [
        input,
        /^claims: the input file ".*claims\.jsonl" and --journal ".*claims\.jsonl" are the same file; give each its own\n$/,
      ],
      [
        join(dir, 'link.journal'),
        /^claims: the journal ".*link\.journal" is a symbolic link; give --journal the file itself\n$/,
      ],
      [
        join(dir, 'hard.journal'),
        /^claims: the input file .* and --journal .*hard\.journal" are the same file; give each its own\n$/,
      ],
    ] as const) {
      const run = await claims(['import', input, '--journal', name]);
      expect(run.code, name).toBe(2);
      expect(run.stderr).toMatch(expected);
    }
    expect(readFileSync(input, 'utf8')).toBe(content);
    expect(server.received).toEqual([]);
    expect(server.metadataLookups).toBe(0);
  });

  it('refuses --report naming the journal or the input, or a place it cannot write, before anything is sent', async () => {
    writeBatch(keys(2).map((k) => claimLine(k)));
    expect((await claims(['import', input])).code).toBe(0);
    const journalBytes = readFileSync(journal);
    for (const [path, expected] of [
      [journal, /--journal .* and --report .* are the same file/],
      [input, /the input file .* and --report .* are the same file/],
      [dir, /^claims: cannot write --report ".*" \(EISDIR\)\n$/],
      [join(dir, 'missing', 'report.json'), /^claims: cannot write --report ".*report\.json" \(ENOENT\)\n$/],
    ] as const) {
      const run = await claims(['import', input, '--report', path]);
      expect(run.code, path).toBe(2);
      expect(run.stderr).toMatch(expected);
    }
    expect(readFileSync(journal)).toEqual(journalBytes);
    expect(server.received).toHaveLength(2);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('refuses a --journal that holds no journal record (a report, another input), changing nothing', async () => {
    writeBatch(keys(2).map((k) => claimLine(k)));
    const other = join(dir, 'other.jsonl');
    writeBatch([claimLine('Z')], other);
    const content = readFileSync(other, 'utf8');
    const run = await claims(['import', input, '--journal', other]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /is damaged at line 1: it does not start with `<length> <checksum> `\. Nothing in it was changed/,
    );
    expect(readFileSync(other, 'utf8')).toBe(content);
    expect(server.received).toEqual([]);
  });

  it("a run refused on a bad line writes its problems as the report (not the last run's), and opens no journal", async () => {
    writeFileSync(report, 'the last report');
    writeBatch([claimLine('K1'), claimLine('K2', { incidentDate: 'yesterday' })]);
    const run = await claims(['import', input, '--report', report]);
    expect(run.code).toBe(2);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({
      lines: 2,
      problems: [{ line: 2, key: 'K2', path: 'incident.incidentDate' }],
    });
    expect(existsSync(`${input}.journal`)).toBe(false);
  });
});

describe('claims journal list never writes', () => {
  it('a missing journal is an error (exit 2), and no file is created', async () => {
    const run = await claims(['journal', 'list', '--journal', join(dir, 'typo.journal')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^claims: there is no journal at ".*typo\.journal"; check --journal\n$/);
    expect(run.stdout).toBe('');
    expect(existsSync(join(dir, 'typo.journal'))).toBe(false);
    const resolve = await claims([
      'journal',
      'resolve',
      'K1',
      '--journal',
      join(dir, 'typo.journal'),
      '--not-filed',
    ]);
    expect(resolve.code).toBe(2);
    expect(existsSync(join(dir, 'typo.journal'))).toBe(false);
  });

  it('lists while an import holds the journal, leaves a torn last line and a hand-appended one alone, exits 1 when a key needs review', async () => {
    const run = await Journal.open(journal);
    await run.write({ key: 'A', state: 'sending', bodyHash: 'h', at: '2026-11-26T10:00:00.000Z' });
    await run.write({
      key: 'B',
      state: 'filed',
      bodyHash: 'h',
      at: '2026-11-26T10:00:00.000Z',
      incidentId: 'INC-B',
    });
    appendFileSync(
      journal,
      encodeRecord({ key: 'C', state: 'filed', bodyHash: 'h', at: 'x', incidentId: 'I' }).subarray(0, 30),
    );
    const before = readFileSync(journal);
    const listed = await claims(['journal', 'list', '--journal', journal]);
    expect(listed.code).toBe(1);
    expect(listed.stdout).toBe(
      'A\tunknown\t2026-11-26T10:00:00.000Z\tits run stopped while it was being sent (needs_review)\n',
    );
    const all = await claims(['journal', 'list', '--journal', journal, '--all', '--json']);
    expect(all.code).toBe(1);
    expect((JSON.parse(all.stdout) as { key: string }[]).map((r) => r.key)).toEqual(['A', 'B']);
    expect(readFileSync(journal)).toEqual(before);
    await run.close();
    appendFileSync(journal, 'a note I added by hand\n');
    const handEdited = readFileSync(journal);
    const refused = await claims(['journal', 'list', '--journal', journal]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is damaged at line 3/);
    expect(readFileSync(journal)).toEqual(handEdited);
  });

  it('exits 0 when no key needs review', async () => {
    writeBatch([claimLine('K1')]);
    expect((await claims(['import', input])).code).toBe(0);
    const listed = await claims(['journal', 'list', '--journal', journal]);
    expect([listed.code, listed.stdout]).toEqual([0, 'claims: no key needs review\n']);
  });
});

describe("{ file } attachments stay in the input file's folder", () => {
  it('refuses /etc/passwd and ../.. in --dry-run and in a real run alike (exit 2, nothing uploaded), and --files-root names another folder', async () => {
    const inbox = join(dir, 'inbox');
    mkdirSync(inbox);
    writeFileSync(join(dir, 'shared.pdf'), 'pdf');
    const batch = join(inbox, 'claims.jsonl');
    writeBatch(
      [
        claimLine('K1', { attachments: [{ file: '/etc/passwd' }] }),
        claimLine('K2', { attachments: [{ file: '../shared.pdf' }] }),
      ],
      batch,
    );
    for (const args of [['--dry-run'], []]) {
      const run = await claims(['import', batch, ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        'line 1 (key "K1") incident.attachments[0].file: "/etc/passwd" is outside the folder files are read from',
      );
      expect(run.stderr).toContain(
        'line 2 (key "K2") incident.attachments[0].file: "../shared.pdf" is outside the folder',
      );
    }
    expect(server.uploads).toBe(0);
    writeBatch([claimLine('K2', { attachments: [{ file: '../shared.pdf' }] })], batch);
    const allowed = await claims(['import', batch, '--files-root', dir]);
    expect(allowed.code).toBe(0);
    expect(server.uploadNames).toEqual([['shared.pdf']]);
  });

  it("reads a relative path from the input file's folder, wherever the command runs", async () => {
    const inbox = join(dir, 'inbox');
    mkdirSync(inbox);
    writeFileSync(join(inbox, 'photo.jpg'), 'jpeg');
    const batch = join(inbox, 'claims.jsonl');
    writeBatch([claimLine('K1', { attachments: [{ file: 'photo.jpg' }] })], batch);
    expect(process.cwd()).not.toBe(inbox);
    const run = await claims(['import', batch]);
    expect(run.code).toBe(0);
    expect(server.uploadNames).toEqual([['photo.jpg']]);
  });
});

describe('nothing from the input or the server reaches the terminal raw', () => {
  const evil = 'K1\u001b]0;owned\u0007\u001b[2J\r\n\tX\u009b31m\u202e';

  it('escapes control characters in the summary, the problems and journal list; --json stays exact', async () => {
    server.answer = () => ({ status: 422, body: { message: `refused \u001b[31mred\u001b[0m\u0007` } });
    writeBatch([claimLine(evil)]);
    const run = await claims(['import', input, '--report', report]);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stdout).toContain('"K1\\u001b]0;owned\\u0007\\u001b[2J\\r\\n\\tX\\u009b31m\\u202e": rejected');
    expect(run.stdout).toContain('refused \\u001b[31mred\\u001b[0m\\u0007');
    // The report is JSON: the key as it is.
    expect((JSON.parse(readFileSync(report, 'utf8')) as { key: string }[])[0]?.key).toBe(evil);
    const json = await claims(['import', input, '--json']);
    expect((JSON.parse(json.stdout) as { key: string }[])[0]?.key).toBe(evil);

    server.answer = () => ({ status: 503, body: { message: 'down' } });
    writeBatch([claimLine('K2\nK3\tunknown\tforged row')]);
    await claims(['import', input]);
    const listed = await claims(['journal', 'list', '--journal', journal]);
    expect(listed.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(listed.stdout).toMatch(/^"K2\\nK3\\tunknown\\tforged row"\tunknown\t/);
  });

  it("escapes them in an operation's human output, which stays indented JSON", async () => {
    server.answer = () => ({ status: 201, body: { incidentId: 'INC-\u009b31m-\u001b[2J' } });
    const run = await claims(['incidents', 'create', JSON.stringify(claimLine('OP').incident)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      'claims: filed incident INC-\\u009b31m-\\u001b[2J\n{\n  "incidentId": "INC-\\u009b31m-\\u001b[2J"\n}\n',
    );
    const json = await claims(['incidents', 'create', JSON.stringify(claimLine('OP2').incident), '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ incidentId: 'INC-\u009b31m-\u001b[2J' });
  });

  it("escapes them in a bad line's problem, and bounds a 5 MB key", async () => {
    writeBatch([claimLine(`${evil}${'k'.repeat(5_000_000)}`, { incidentDate: 'yesterday' })]);
    const run = await claims(['import', input, '--dry-run']);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stderr.length).toBeLessThan(2_000);
  });
});

describe('small ones', () => {
  it('strips a byte-order mark before the first JSON line, as for CSV', async () => {
    writeFileSync(input, `\uFEFF${JSON.stringify(claimLine('K1'))}\n`);
    const run = await claims(['import', input]);
    expect(run.code).toBe(0);
    expect(server.received).toEqual(['K1']);
  });

  it('refuses a CSV header naming a column twice (exit 2)', async () => {
    const csv = join(dir, 'claims.csv');
    writeFileSync(csv, 'key,description,description\nC1,a,b\n');
    const run = await claims(['import', csv, '--dry-run']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('claims: the CSV header names the column "description" twice\n');
  });

  it('counts the line a problem is on', async () => {
    writeBatch(['{ not json']);
    const run = await claims(['import', input]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^claims: 1 problem\(s\) in 1 line\(s\); nothing was sent:\n {2}line 1: not valid JSON/,
    );
  });
});
