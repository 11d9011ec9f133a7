// Workers: several `claims import` processes on one input and one PostgreSQL journal, against a
// local server that records every POST. The full size, 20,000 claims (about 18 s here;
// CLAIMS_PG_WORKERS_CLAIMS=800 for a quick run).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from '../batch/claims-server.js';
import { type CliRun, startClaims, until } from '../cli/run-claims.js';
import { usePostgres } from './use-postgres.js';
import { withClient } from './with-client.js';

const db = await usePostgres();
const CLAIMS = Number(process.env.CLAIMS_PG_WORKERS_CLAIMS ?? 20_000);

let server: ClaimsServer;
let dir: string;
let input: string;
let table = '';
let tables = 0;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
beforeEach(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'claims-workers-'));
  dirs.push(dir);
  input = join(dir, 'claims.jsonl');
  table = `workers_${process.pid}_${++tables}`;
});
afterEach(() => server.close());

const keys = (n: number) => Array.from({ length: n }, (_, i) => `W${String(i + 1).padStart(5, '0')}`);

type Entry = { key: string; state: string; note: string; incidentId?: string; error?: string };

function worker(n: number, extra: string[] = [], env: Record<string, string> = {}): CliRun {
  return startClaims(
    [
      'import',
      input,
      '--journal',
      (db as { url: string }).url,
      '--journal-table',
      table,
      '--report',
      join(dir, `report-${n}.json`),
      '--concurrency',
      '4',
      ...extra,
    ],
    server.url,
    env,
  );
}
const report = (n: number): Entry[] =>
  JSON.parse(readFileSync(join(dir, `report-${n}.json`), 'utf8')) as Entry[];

async function rows(): Promise<{ key: string; state: string; worker: string }[]> {
  return withClient(
    (db as { url: string }).url,
    async (client) => (await client.query(`SELECT key, state, worker FROM "${table}"`)).rows,
  );
}

function expectNoKeyTwice(): void {
  const seen = new Set<string>();
  const twice = server.received.filter((k) => seen.has(k) || !seen.add(k));
  expect(twice).toEqual([]);
}

describe.skipIf(!db)('workers sharing one PostgreSQL journal (claims import --journal postgres://…)', () => {
  it(`4 workers on ${CLAIMS} claims, one SIGKILLed mid-batch, then re-run: no claim twice, unknown exactly the killed worker's in flight`, async () => {
    const all = keys(CLAIMS);
    writeFileSync(input, `${all.map((k) => JSON.stringify(claimLine(k))).join('\n')}\n`);
    server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 5 });
    // Started at the same instant on the same keys.
    const runs = [0, 1, 2, 3].map((n) => worker(n, ['--journal-lease', '1']));
    await until(() => server.received.length >= CLAIMS / 4, 120_000);
    const victim = runs[0] as CliRun;
    victim.child.kill('SIGKILL');
    const killed = await victim.done;
    expect(killed.signal).toBe('SIGKILL');
    const survivors = await Promise.all(runs.slice(1).map((r) => r.done));
    for (const s of survivors) {
      expect(s.stderr).not.toContain('Error');
      expect(s.stdout + s.stderr).not.toContain((db as { password: string }).password);
    }
    expectNoKeyTwice();
    // What the killed worker left `sending`: its claims in flight and, per slot, the claim
    // before whose final record was still being written (a slot sends its next claim only once
    // that record is durable): at most twice its concurrency.
    const left = (await rows()).filter((r) => r.state === 'sending');
    // Killed mid-batch: it had claims in flight (else the checks below would hold vacuously).
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThanOrEqual(2 * 4);
    expect(new Set(left.map((r) => r.worker.split('/')[1]))).toEqual(new Set([String(victim.child.pid)]));
    // The re-run (two workers at once) once the dead worker's lease ran out.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const again = await Promise.all([worker(10).done, worker(11).done]);
    expectNoKeyTwice();
    // Every key but those left for review reached the server (exactly once: above).
    const received = new Set(server.received);
    const leftKeys = new Set(left.map((r) => r.key));
    expect(all.filter((k) => !received.has(k) && !leftKeys.has(k))).toEqual([]);
    for (const n of [10, 11]) {
      const entries = report(n);
      // Every key reported once, in input order.
      expect(entries.map((e) => e.key)).toEqual(all);
      const unknown = entries.filter((e) => e.state === 'unknown');
      expect(unknown.map((e) => e.key).sort()).toEqual(left.map((r) => r.key).sort());
      expect(unknown.every((e) => e.note === 'needs_review')).toBe(true);
      expect(entries.filter((e) => e.state !== 'unknown').every((e) => e.state === 'filed')).toBe(true);
    }
    for (const run of again) expect(run.code).toBe(1);
    // Every key filed reached the server exactly once: the journal's filed keys are the server's.
    const filed = (await rows()).filter((r) => r.state === 'filed').map((r) => r.key);
    expect(filed.filter((k) => !received.has(k))).toEqual([]);
    expect(filed.length).toBe(CLAIMS - left.length);
  }, 300_000);

  it("a worker's summary counts the keys other live workers are sending in one line, not a line each", async () => {
    const all = keys(5);
    writeFileSync(
      input,
      `${all
        .slice(0, 3)
        .map((k) => JSON.stringify(claimLine(k)))
        .join('\n')}\n`,
    );
    expect((await worker(1).done).code).toBe(0);
    // W00002 and W00003 now read as another worker's, in flight, its lease an hour away.
    await withClient((db as { url: string }).url, async (client) => {
      for (const key of ['W00002', 'W00003']) {
        const { record } = (await client.query(`SELECT record FROM "${table}" WHERE key = $1`, [key]))
          .rows[0] as { record: string };
        const { incidentId: _, ...sending } = { ...JSON.parse(record), state: 'sending' };
        await client.query(
          `UPDATE "${table}" SET state = 'sending', record = $2, incident_id = NULL, version = version + 1,
             worker = 'elsewhere/1/abcdef', lease_until = now() + interval '1 hour' WHERE key = $1`,
          [key, JSON.stringify(sending)],
        );
      }
    });
    writeFileSync(input, `${all.map((k) => JSON.stringify(claimLine(k))).join('\n')}\n`);
    const run = await worker(2).done;
    expect(report(2).map((e) => `${e.key} ${e.state} ${e.note}`)).toEqual([
      'W00001 filed already_filed',
      'W00002 unknown taken_elsewhere',
      'W00003 unknown taken_elsewhere',
      'W00004 filed sent',
      'W00005 filed sent',
    ]);
    // Not all filed by this worker: not done, as far as it knows.
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toContain((db as { password: string }).password);
    expect(run.stdout).toBe(
      'claims: 5 claim(s): filed 3, rejected 0, unknown 2, not sent 0\n' +
        `  2 claim(s) taken by other workers sharing the journal (taken_elsewhere): once every worker has finished, claims journal status --journal ${(db as { url: string }).url.replace(/:[^:@/]*@/, '@')} --journal-table ${table} shows the whole batch\n`,
    );
  }, 60_000);
});
