import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from '../batch/claims-server.js';
import { runClaims, startClaims, until } from './run-claims.js';

let server: ClaimsServer;
let dir: string;
let input: string;
let journal: string;
let report: string;
beforeEach(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'claims-cli-'));
  input = join(dir, 'claims.jsonl');
  journal = `${input}.journal`;
  report = join(dir, 'report.json');
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${String(i + 1).padStart(3, '0')}`);
function writeBatch(lines: unknown[]): void {
  writeFileSync(input, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
}
type ReportEntry = {
  key: string;
  line: number;
  state: string;
  note: string;
  incidentId?: string;
  error?: string;
};
const readReport = (): ReportEntry[] => JSON.parse(readFileSync(report, 'utf8')) as ReportEntry[];

describe('claims import', () => {
  it('files every line, writes the report, exits 0; run again it sends nothing', async () => {
    writeBatch(keys(8).map((k) => claimLine(k)));
    const first = await runClaims(['import', input, '--report', report, '--concurrency', '3'], server.url);
    expect(first.stderr).not.toContain('Error');
    expect(first.code).toBe(0);
    expect(readReport().map((e) => [e.line, e.key, e.state, e.incidentId])).toEqual(
      keys(8).map((k, i) => [i + 1, k, 'filed', `INC-${k}`]),
    );
    const second = await runClaims(['import', input, '--report', report], server.url);
    expect(second.code).toBe(0);
    expect(server.received).toHaveLength(8);
    expect(readReport().every((e) => e.note === 'already_filed')).toBe(true);
  });

  it('killed with SIGKILL mid-batch and run again: no claim twice, every key reported, unknown only if in flight', async () => {
    const all = keys(60);
    writeBatch(all.map((k) => claimLine(k)));
    server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 40 });
    const run = startClaims(['import', input, '--concurrency', '4'], server.url);
    await until(() => server.received.length >= 20);
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');
    // Requests the killed process wrote may still be arriving: wait until none has for 300 ms.
    for (let seen = -1, until = Date.now() + 5_000; seen !== server.received.length && Date.now() < until; ) {
      seen = server.received.length;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const sentBeforeKill = new Set(server.received);
    server.answer = defaultAnswer;

    const again = await runClaims(['import', input, '--report', report, '--concurrency', '4'], server.url);
    const entries = readReport();
    expect(entries.map((e) => e.key)).toEqual(all);
    expect(new Set(server.received).size).toBe(server.received.length);
    const unknown = entries.filter((e) => e.state === 'unknown').map((e) => e.key);
    // An unknown key was in flight: its sending record is durable before its request leaves, so
    // the kill may have come before the request reached the server (CI once saw that). Either
    // way the re-run must not send it: it waits for review.
    const sentByRerun = server.received.slice(sentBeforeKill.size);
    for (const key of unknown) expect(sentByRerun).not.toContain(key);
    // In flight at the kill: at most `concurrency` claims; the others are filed.
    expect(unknown.length).toBeLessThanOrEqual(4);
    expect(unknown.length).toBeGreaterThan(0);
    expect(entries.filter((e) => e.state !== 'unknown').every((e) => e.state === 'filed')).toBe(true);
    expect(again.code).toBe(unknown.length === 0 ? 0 : 1);

    // The operator looks them up and settles them; the next run files what was not filed.
    const listed = await runClaims(['journal', 'list', '--journal', journal, '--json'], server.url);
    expect((JSON.parse(listed.stdout) as Array<{ key: string }>).map((r) => r.key).sort()).toEqual(
      [...unknown].sort(),
    );
    for (const [i, key] of unknown.entries()) {
      const args = i % 2 === 0 ? ['--not-filed'] : ['--filed', `INC-${key}`];
      expect(
        (await runClaims(['journal', 'resolve', key, '--journal', journal, ...args], server.url)).code,
      ).toBe(0);
    }
    const last = await runClaims(['import', input, '--report', report], server.url);
    expect(last.code).toBe(0);
    expect(readReport().every((e) => e.state === 'filed')).toBe(true);
    const resent = unknown.filter((_, i) => i % 2 === 0);
    for (const key of all) {
      // An unknown key reached the server before the kill, or not (see above); a key resolved
      // as not filed was sent once more by the last run; every other key was sent exactly once.
      const expected = unknown.includes(key)
        ? Number(sentBeforeKill.has(key)) + Number(resent.includes(key))
        : 1;
      expect(server.received.filter((k) => k === key).length, key).toBe(expected);
    }
  }, 60_000);

  it('recovers a journal whose last entry is torn', async () => {
    writeBatch(keys(3).map((k) => claimLine(k)));
    expect((await runClaims(['import', input], server.url)).code).toBe(0);
    appendFileSync(journal, '87 0badc0de {"key":"K9","sta');
    const again = await runClaims(['import', input, '--report', report], server.url);
    expect(again.code).toBe(0);
    expect(readReport().map((e) => e.note)).toEqual(['already_filed', 'already_filed', 'already_filed']);
    expect(server.received).toHaveLength(3);
  });

  it('refuses a second run on the same journal while the first holds it', async () => {
    writeBatch(keys(10).map((k) => claimLine(k)));
    // The first run's POSTs are held until the second run has been refused.
    let release = () => {};
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.answer = (key) => ({ ...defaultAnswer(key), hold });
    const first = startClaims(['import', input, '--concurrency', '2'], server.url);
    await until(() => server.received.length >= 1);
    const second = await runClaims(['import', input], server.url);
    release();
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/journal is in use by process \d+/);
    expect((await first.done).code).toBe(0);
    expect([...server.received].sort()).toEqual(keys(10));
  }, 30_000);

  it('--dry-run names every bad line (number, key, field) and sends no POST', async () => {
    const ext = (value: string) => ({ extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value }] });
    writeBatch([
      claimLine('K1', ext('Fire')),
      claimLine('K2', { policyCountry: 'Britain' }),
      '{ not json',
      claimLine('K4', ext('Lava')),
      claimLine('K1'),
      { incident: claimLine('x').incident },
    ]);
    const result = await runClaims(['import', input, '--dry-run'], server.url);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 2 (key "K2") incident.policyCountry');
    expect(result.stderr).toContain('line 3: not valid JSON');
    expect(result.stderr).toMatch(
      /line 4 \(key "K4"\) incident\.extendedFields\[0\]: claim_form:Cause_Of_Loss/,
    );
    expect(result.stderr).toContain('line 5 (key "K1") key: the same key is on line 1');
    expect(result.stderr).toContain('line 6 key: needs a non-empty string key');
    expect(server.received).toEqual([]);
    expect(server.metadataLookups).toBe(1);

    writeBatch([claimLine('K1', ext('Fire'))]);
    const clean = await runClaims(['import', input, '--dry-run'], server.url);
    expect(clean.code).toBe(0);
    expect(server.received).toEqual([]);
  });

  it('refuses a batch with a bad line without --dry-run too: exit 2, nothing sent', async () => {
    writeBatch([claimLine('K1'), claimLine('K2', { incidentDate: 'yesterday' })]);
    const result = await runClaims(['import', input], server.url);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 2 (key "K2") incident.incidentDate');
    expect(server.received).toEqual([]);
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} stops cleanly (exit ${code}): claims in flight are recorded, queued ones not_sent, counted not listed`, async () => {
      writeBatch(keys(40).map((k) => claimLine(k)));
      server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 300 });
      const run = startClaims(['import', input, '--concurrency', '4', '--report', report], server.url);
      await until(() => server.received.length >= 4);
      run.child.kill(signal);
      const result = await run.done;
      expect(result.code).toBe(code);
      const entries = readReport();
      expect(entries).toHaveLength(40);
      const sent = new Set(server.received);
      for (const entry of entries) {
        if (sent.has(entry.key)) expect(entry.state, entry.key).toBe('filed');
        else expect([entry.state, entry.note], entry.key).toEqual(['not_sent', 'aborted']);
      }
      expect(result.stdout).toMatch(
        /^claims: 40 claim\(s\): filed \d+, rejected 0, unknown 0, not sent \d+\n {2}\d+ claim\(s\) not sent because the batch was stopped: run the same command again to continue\n$/,
      );
      // The progress never counts the claims left unsent as done.
      const filed = entries.filter((e) => e.state === 'filed').length;
      const last = [
        ...result.stderr.matchAll(/^claims: (\d+)\/40 done.*\(filed (\d+), .* not sent (\d+)\)$/gm),
      ].at(-1);
      expect(last?.slice(1)).toEqual([String(filed), String(filed), '0']);
      const listed = await runClaims(['journal', 'list', '--journal', journal, '--json'], server.url);
      expect(JSON.parse(listed.stdout)).toEqual([]);
      expect(listed.code).toBe(0);
    }, 30_000);
  }

  it('a second Ctrl-C quits at once (exit 130), claims in flight left sending for review', async () => {
    writeBatch(keys(20).map((k) => claimLine(k)));
    let release = () => {};
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.answer = (key) => ({ ...defaultAnswer(key), hold });
    const run = startClaims(['import', input, '--concurrency', '2'], server.url);
    await until(() => server.received.length >= 2);
    run.child.kill('SIGINT');
    await until(() => run.stderr().includes('stopping'));
    run.child.kill('SIGINT');
    const result = await run.done;
    release();
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(
      'claims: stopped at once; claims in flight stay `sending` in the journal, for review',
    );
    const listed = await runClaims(['journal', 'list', '--journal', journal, '--json'], server.url);
    expect(listed.code).toBe(1);
    expect((JSON.parse(listed.stdout) as { key: string }[]).map((r) => r.key).sort()).toEqual(
      [...server.received].sort(),
    );
  }, 30_000);

  it('a journal that hits the file size limit (EFBIG): says why, prints the summary, writes the report, lists what to resolve', async () => {
    // 80 claims: about 22 KiB of journal, past the 16 KiB limit; the report (about 14 KiB) fits under it.
    writeBatch(keys(80).map((k) => claimLine(k)));
    const run = await startClaims(
      ['import', input, '--concurrency', '4', '--report', report],
      server.url,
      {},
      16,
    ).done;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /\nclaims: stopped: The journal could not be written: Writing the journal .* failed: EFBIG \(file too large\)\n/,
    );
    expect(run.stdout).toMatch(/^claims: 80 claim\(s\): filed \d+, rejected 0, unknown 0, not sent \d+\n/);
    const first = readReport();
    expect(first).toHaveLength(80);
    expect(first.filter((e) => e.state === 'filed').length).toBeGreaterThan(20);
    const resolves = [
      ...run.stderr.matchAll(/claims journal resolve --journal \S+ (K\d+) (--filed INC-K\d+|--not-filed)/g),
    ];
    // Re-run with the limit gone: nothing twice; exactly the keys listed need review, and resolving them as printed finishes the batch.
    const again = await runClaims(['import', input, '--report', report], server.url);
    expect(new Set(server.received).size).toBe(server.received.length);
    const review = readReport()
      .filter((e) => e.note === 'needs_review')
      .map((e) => e.key);
    expect(review.sort()).toEqual(resolves.map((m) => m[1]).sort());
    expect(again.code).toBe(review.length === 0 ? 0 : 1);
    for (const [, key, how] of resolves) {
      const args = (how as string).split(' ');
      expect(
        (await runClaims(['journal', 'resolve', key as string, '--journal', journal, ...args], server.url))
          .code,
      ).toBe(0);
    }
    const last = await runClaims(['import', input, '--report', report], server.url);
    expect(last.code).toBe(0);
    expect(new Set(server.received).size).toBe(server.received.length);
    expect(readReport().every((e) => e.state === 'filed')).toBe(true);
  }, 60_000);

  it('reads a CSV batch: incident fields as columns, extended fields by identifier, lines named from the file', async () => {
    const csv = join(dir, 'claims.csv');
    writeFileSync(
      csv,
      [
        'key,programmeCode,policyCountry,policyTypeCode,incidentDate,description,claim_form:Cause_Of_Loss',
        'C1,PRG,GB,T1,2026-01-31,C1,Fire',
        'C2,PRG,GB,T1,2026-01-31,C2,Lava',
      ].join('\n'),
    );
    const dry = await runClaims(['import', csv, '--dry-run'], server.url);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toMatch(/line 3 \(key "C2"\) incident\.extendedFields\[0\]: claim_form:Cause_Of_Loss/);
    writeFileSync(csv, readFileSync(csv, 'utf8').replace('Lava', 'Flood'));
    const filed = await runClaims(['import', csv, '--json'], server.url);
    expect(filed.code).toBe(0);
    expect((JSON.parse(filed.stdout) as ReportEntry[]).map((e) => [e.key, e.state])).toEqual([
      ['C1', 'filed'],
      ['C2', 'filed'],
    ]);
    expect(server.received.sort()).toEqual(['C1', 'C2']);
  });

  it('exits 2 for bad usage: no token in the environment, an unknown option', async () => {
    writeBatch([claimLine('K1')]);
    const noToken = await runClaims(['import', input], server.url, { CLAIMS_TOKEN: undefined });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('CLAIMS_TOKEN');
    expect((await runClaims(['import', input, '--bogus'], server.url)).code).toBe(2);
    expect(server.received).toEqual([]);
  });
});
