// `claims journal list|status|resolve` and `claims import` on a PostgreSQL journal, run in
// this process (so coverage and mutation testing see the CLI); the password in no output.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresJournalStore } from '../../src/batch/postgres/index.js';
import type { JournalRecord } from '../../src/batch/record.js';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from '../batch/claims-server.js';
import { type CliOutput, claimsHere, claimsInProcess } from '../cli/in-process.js';
import { rec } from '../helpers/journal-records.js';
import { usePostgres } from './use-postgres.js';
import { withClient } from './with-client.js';

const db = await usePostgres();
const url = db?.url as string;
const password = db?.password as string;
let server: ClaimsServer;
const dir = mkdtempSync(join(tmpdir(), 'claims-pg-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(async () => {
  server = await startClaimsServer();
});
afterEach(() => server.close());
let tables = 0;
const fresh = () => `cli_${process.pid}_${++tables}`;

function noSecret(out: CliOutput): CliOutput {
  expect(out.stdout + out.stderr).not.toContain(password);
  return out;
}

/** A journal with a filed key, an unknown one, and one a dead run left sending. */
async function journalWithReview(table: string): Promise<void> {
  const store = new PostgresJournalStore({ connectionString: url, table, leaseMs: 100, worker: 'night' });
  await store.open();
  await store.claim(rec('F', 'sending'), undefined);
  await store.append(rec('F', 'filed', { incidentId: 'INC-F' }));
  await store.append(rec('U', 'unknown', { status: 503, error: 'no usable answer' }));
  await store.claim(rec('S', 'sending'), undefined);
  await store.close();
}

describe.skipIf(!db)('claims on a postgres:// journal', () => {
  it('journal list: the keys needing review (exit 1), --all, --json; from CLAIMS_JOURNAL too', async () => {
    const table = fresh();
    await journalWithReview(table);
    const list = noSecret(
      await claimsHere(['journal', 'list', '--journal', url, '--journal-table', table], server.url),
    );
    expect(list.code).toBe(1);
    expect(list.stdout.split('\n').map((l) => l.split('\t').slice(0, 2).join(' '))).toEqual([
      'U unknown',
      'S unknown',
      '',
    ]);
    const all = noSecret(
      await claimsHere(['journal', 'list', '--all', '--json', '--journal-table', table], server.url, {
        CLAIMS_JOURNAL: url,
      }),
    );
    expect((JSON.parse(all.stdout) as JournalRecord[]).map((r) => [r.key, r.state])).toEqual([
      ['F', 'filed'],
      ['U', 'unknown'],
      ['S', 'sending'],
    ]);
  });

  it('journal status: every worker and the totals; --json', async () => {
    const table = fresh();
    await journalWithReview(table);
    const text = noSecret(
      await claimsHere(['journal', 'status', '--journal', url, '--journal-table', table], server.url),
    );
    expect(text.code).toBe(1);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toBe('worker\tfiled\trejected\tunknown\tnot_sent\tsending\tin_flight');
    expect(lines[1]).toMatch(/^night\/[0-9a-f]{6}\t1\t0\t1\t0\t1\t0$/);
    expect(lines[2]).toBe('total\t1\t0\t1\t0\t1\t0');
    expect(lines[3]).toBe('claims: 2 key(s) need review: claims journal list');
    const json = noSecret(
      await claimsHere(
        ['journal', 'status', '--json', '--journal', url, '--journal-table', table],
        server.url,
      ),
    );
    const parsed = JSON.parse(json.stdout) as {
      workers: { worker: string }[];
      totals: unknown;
      needingReview: number;
    };
    expect(parsed.totals).toEqual({
      counts: { sending: 1, filed: 1, rejected: 0, unknown: 1, not_sent: 0 },
      inFlight: 0,
    });
    expect(parsed.needingReview).toBe(2);
    expect(parsed.workers).toHaveLength(1);
  });

  it('journal status on a file journal: the file is its one worker', async () => {
    const file = join(dir, 'status.journal');
    writeFileSync(join(dir, 'in.jsonl'), `${JSON.stringify(claimLine('A'))}\n`);
    expect((await claimsHere(['import', join(dir, 'in.jsonl'), '--journal', file], server.url)).code).toBe(0);
    const out = await claimsHere(['journal', 'status', '--journal', file], server.url);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(
      `worker\tfiled\trejected\tunknown\tnot_sent\tsending\tin_flight\n${file}\t1\t0\t0\t0\t0\t0\ntotal\t1\t0\t0\t0\t0\t0\nclaims: no key needs review\n`,
    );
  });

  it("journal resolve: a dead run's key, filed or not; a table that is not there is refused, not created", async () => {
    const table = fresh();
    await journalWithReview(table);
    await new Promise((r) => setTimeout(r, 150));
    const filed = noSecret(
      await claimsHere(
        ['journal', 'resolve', 'S', '--filed', 'INC-S', '--journal', url, '--journal-table', table],
        server.url,
      ),
    );
    expect(filed.code).toBe(0);
    expect(filed.stdout).toMatch(/^claims: "S" resolved as filed \("INC-S"\); it will not be sent again\n\{/);
    const notFiled = await claimsHere(
      ['journal', 'resolve', 'U', '--not-filed', '--journal', url, '--journal-table', table],
      server.url,
    );
    expect(notFiled.code).toBe(0);
    const list = await claimsHere(
      ['journal', 'list', '--journal', url, '--journal-table', table],
      server.url,
    );
    expect([list.code, list.stdout]).toEqual([0, 'claims: no key needs review\n']);

    for (const command of [['list'], ['status'], ['resolve', 'S', '--not-filed']]) {
      const missing = noSecret(
        await claimsHere(
          ['journal', ...command, '--journal', url, '--journal-table', 'no_such_journal'],
          server.url,
        ),
      );
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe(
        'claims: JournalError: There is no journal table no_such_journal in this database\n',
      );
    }
  });

  it('bad usage, exit 2, nothing printed of the password: a table name, --journal-table or --journal-lease on a file, no journal named', async () => {
    const cases: [string[], string][] = [
      [
        ['journal', 'list', '--journal', url, '--journal-table', 'x;drop'],
        'claims: The journal table must be a name of letters, digits and _ (at most 40 characters), optionally schema.name ("x;drop")\n',
      ],
      [
        ['journal', 'list', '--journal', 'f.journal', '--journal-table', 't'],
        'claims: --journal-table is for a postgres:// journal\n',
      ],
      [['journal', 'list'], 'claims: name the journal: --journal <path or postgres://…> or CLAIMS_JOURNAL\n'],
      [
        ['journal', 'list', '--journal', 'postgres://u:pw@[bad/db'],
        'claims: --journal is not a URL postgres://user[:password]@host[:port]/database\n',
      ],
    ];
    for (const [args, stderr] of cases) {
      const out = noSecret(await claimsHere(args, server.url));
      expect([out.code, out.stderr]).toEqual([2, stderr]);
    }
    writeFileSync(join(dir, 'one.jsonl'), `${JSON.stringify(claimLine('A'))}\n`);
    for (const lease of ['0.05', 'x', '86401']) {
      const out = await claimsHere(
        ['import', join(dir, 'one.jsonl'), '--journal', url, '--journal-lease', lease],
        server.url,
      );
      expect([out.code, out.stderr]).toEqual([
        2,
        'claims: --journal-lease must be a number of seconds from 0.1 to 86400\n',
      ]);
    }
    const onFile = await claimsHere(['import', join(dir, 'one.jsonl'), '--journal-lease', '5'], server.url);
    expect([onFile.code, onFile.stderr]).toEqual([
      2,
      'claims: --journal-lease is for a postgres:// journal\n',
    ]);
    expect(server.received).toEqual([]);
    const help = await claimsHere(['import', '--help'], server.url, { CLAIMS_JOURNAL: url });
    expect(help.stdout).toContain('--journal-lease <seconds>');
    noSecret(help);
  });

  it('import: the summary names the journal without its password; a wrong password fails with exit 1, unshown', async () => {
    const table = fresh();
    const input = join(dir, 'import.jsonl');
    writeFileSync(input, ['A', 'B', 'C'].map((k) => JSON.stringify(claimLine(k))).join('\n'));
    server.answer = (key) => (key === 'B' ? { status: 503, body: { message: 'busy' } } : defaultAnswer(key));
    const out = noSecret(
      await claimsHere(['import', input, '--journal', url, '--journal-table', table], server.url),
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      `then run: claims journal resolve --journal ${url.replace(`:${password}@`, '@')} --journal-table ${table} <key> --filed <incidentId> | --not-filed`,
    );
    const wrong = url.replace(password, 'Wrong-Secret-9');
    const refused = await claimsHere(
      ['import', input, '--journal', wrong, '--journal-table', table],
      server.url,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^claims: JournalError: The PostgreSQL journal could not be opened: password authentication failed for user "claims" \(28P01\)\n$/,
    );
    expect(refused.stdout + refused.stderr).not.toContain('Wrong-Secret-9');
  });

  it('import: a password given in the query (?password=, as pg also reads it) is in no output either', async () => {
    const table = fresh();
    const input = join(dir, 'import-query.jsonl');
    writeFileSync(input, ['A', 'B'].map((k) => JSON.stringify(claimLine(k))).join('\n'));
    server.answer = (key) => (key === 'B' ? { status: 503, body: { message: 'busy' } } : defaultAnswer(key));
    const bare = url.replace(`:${password}@`, '@');
    const inQuery = `${bare}?sslmode=disable&password=${encodeURIComponent(password)}`;
    const out = noSecret(
      await claimsHere(['import', input, '--journal', inQuery, '--journal-table', table], server.url),
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      // Quoted for the shell: `?` is a glob character.
      `then run: claims journal resolve --journal '${bare}?sslmode=disable' --journal-table ${table} <key>`,
    );
    const wrong = `${bare}?password=Wrong-Secret-9`;
    const refused = await claimsHere(
      ['import', input, '--journal', wrong, '--journal-table', table],
      server.url,
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).not.toContain('Wrong-Secret-9');
  });
  it('no secret in the report files or in the journal either: the database password, the client secret (echoed by the token endpoint), the token (echoed by the API)', async () => {
    const clientSecret = 'client-Secret/55';
    const token = 'tok-Secret-77-abcdef';
    let tokenAnswer: { status: number; body: unknown } = {
      status: 400,
      body: { error: 'invalid_client', error_description: `unknown secret ${clientSecret}` },
    };
    const tokens = createServer((_req, res) => {
      res.writeHead(tokenAnswer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(tokenAnswer.body));
    });
    await new Promise<void>((resolve) => tokens.listen(0, '127.0.0.1', resolve));
    const table = fresh();
    const input = join(dir, 'secrets.jsonl');
    writeFileSync(input, ['A', 'B'].map((k) => JSON.stringify(claimLine(k))).join('\n'));
    server.answer = (key) =>
      key === 'B'
        ? { status: 422, body: { message: `claim refused for Bearer ${token}` } }
        : defaultAnswer(key);
    const run = (report: string) =>
      claimsInProcess(['import', input, '--journal', url, '--journal-table', table, '--report', report], {
        CLAIMS_BASE_URL: server.url,
        CLAIMS_TOKEN: undefined,
        CLAIMS_TOKEN_URL: `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/token`,
        CLAIMS_CLIENT_ID: 'cli-client',
        CLAIMS_CLIENT_SECRET: clientSecret,
      });
    const reports = [join(dir, 'secrets-1.json'), join(dir, 'secrets-2.json')];
    /** Every column of the journal's two tables, as text: read after each run (run 2 rewrites run 1's rows). */
    const journalNow = () =>
      withClient(url, async (client) => {
        const keys = await client.query(`SELECT * FROM "${table}" ORDER BY key`);
        const meta = await client.query(`SELECT * FROM "${table}_meta"`);
        return JSON.stringify([keys.rows, meta.rows]);
      });
    const outs: CliOutput[] = [];
    const journals: string[] = [];
    try {
      // First the token endpoint refuses the credentials, echoing the secret; then a token.
      outs.push(await run(reports[0] as string));
      journals.push(await journalNow());
      tokenAnswer = { status: 200, body: { access_token: token, expires_in: 3600 } };
      outs.push(await run(reports[1] as string));
      journals.push(await journalNow());
    } finally {
      await new Promise((resolve) => tokens.close(resolve));
    }
    expect(outs.map((o) => o.code)).toEqual([1, 1]);
    const written = reports.map((r) => readFileSync(r, 'utf8'));
    // What was written is there, the secrets' places redacted.
    expect(JSON.parse(written[0] as string)).toMatchObject([
      { key: 'A', state: 'not_sent', note: 'caller_refused' },
      { key: 'B', state: 'not_sent' },
    ]);
    expect(written[0]).toContain('invalid_client');
    expect(JSON.parse(written[1] as string)).toMatchObject([
      { key: 'A', state: 'filed', incidentId: 'INC-A' },
      { key: 'B', state: 'rejected', note: 'refused' },
    ]);
    expect(journals[0]).toContain('invalid_client');
    expect(journals[1]).toContain('INC-A');
    expect(journals[1]).toContain('claim refused for Bearer [REDACTED]');
    for (const secret of [password, clientSecret, token]) {
      for (const out of outs) expect(out.stdout + out.stderr).not.toContain(secret);
      for (const report of written) expect(report).not.toContain(secret);
      for (const journal of journals) expect(journal).not.toContain(secret);
    }
  });
});
