/**
 * The one-call commands (`claims incidents create`, `attachments upload`, `metadata fields`), run
 * in this process: what they print, send and exit with.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from '../batch/claims-server.js';
import { claimsHere } from './in-process.js';

let server: ClaimsServer;
let dir: string;
beforeAll(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'claims-ops-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('claims <operation>', () => {
  it('incidents create --json prints the answer as JSON; a body from @file works too', async () => {
    const inline = await claimsHere(
      ['incidents', 'create', JSON.stringify(claimLine('OP-1').incident), '--json'],
      server.url,
    );
    expect(inline.code).toBe(0);
    expect(JSON.parse(inline.stdout)).toEqual({ incidentId: 'INC-OP-1' });
    const file = join(dir, 'incident.json');
    writeFileSync(file, JSON.stringify(claimLine('OP-2').incident));
    const fromFile = await claimsHere(['incidents', 'create', `@${file}`], server.url);
    expect(fromFile.stdout).toContain('filed incident INC-OP-2');
    expect(server.received).toEqual(['OP-1', 'OP-2']);
  });

  it('exits 2 for an invalid body (nothing sent) and 1 for a refusal, saying why', async () => {
    const before = server.received.length;
    const invalid = await claimsHere(['incidents', 'create', '{"programmeCode":"P"}'], server.url);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('policyCountry');
    expect(server.received.length).toBe(before);
    server.answer = () => ({ status: 422, body: { message: 'incidentDate in the future' } });
    const refused = await claimsHere(
      ['incidents', 'create', JSON.stringify(claimLine('OP-3').incident)],
      server.url,
    );
    server.answer = defaultAnswer;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('incidentDate in the future');
    expect(refused.stderr).not.toContain('cli-token');
  });

  it('attachments upload --json uploads the files in one request', async () => {
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    writeFileSync(a, 'aaa');
    writeFileSync(b, 'bbb');
    const result = await claimsHere(['attachments', 'upload', a, b, '--json'], server.url);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ filename: string }>).map((r) => r.filename)).toEqual([
      'a.txt',
      'b.txt',
    ]);
    expect(server.uploads).toBe(1);
  });

  it('metadata fields --json asks for the form named by its options', async () => {
    const result = await claimsHere(
      ['metadata', 'fields', '--programme', 'PRG', '--policy-type', 'T1', '--country', 'GB', '--json'],
      server.url,
    );
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ identifier: string }>)[0]?.identifier).toBe(
      'claim_form:Cause_Of_Loss',
    );
  });
});
