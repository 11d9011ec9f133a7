import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateClaims } from '../../src/batch/validate-claims.js';
import type { ClaimsClientBase } from '../../src/client.js';
import { ClaimsApiError } from '../../src/errors.js';
import { causeOfLoss, policeReference } from '../helpers/fixtures.js';
import { claimLine } from './claims-server.js';

// validateClaims in-process, with a client whose only call (the form's metadata) is faked.
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'validate-claims-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Lookup = (query: unknown) => Promise<unknown>;
function clientWith(lookup: Lookup = async () => [causeOfLoss]): ClaimsClientBase {
  return { metadata: { incidentFields: lookup } } as unknown as ClaimsClientBase;
}
const ext = (value: string) => ({ extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value }] });

describe('validateClaims: what each line must be', () => {
  it('a line with no usable key, a key used before, no incident object: each named, with its line', async () => {
    const { claims, problems } = await validateClaims(clientWith(), [
      claimLine('K1'),
      { incident: claimLine('x').incident },
      { key: '', incident: claimLine('x').incident },
      { key: 7, incident: claimLine('x').incident },
      claimLine('K1'),
      { key: 'K5', incident: null },
      { key: 'K6', incident: 'text' },
      'not a line',
      null,
    ]);
    expect(claims.map((c) => [c.key, c.line])).toEqual([['K1', 1]]);
    const needsKey = 'needs a non-empty string key (your own reference of the claim)';
    expect(problems).toEqual([
      { line: 2, key: undefined, path: 'key', message: needsKey },
      { line: 3, key: undefined, path: 'key', message: needsKey },
      { line: 4, key: undefined, path: 'key', message: needsKey },
      { line: 5, key: 'K1', path: 'key', message: 'the same key is on line 1' },
      { line: 6, key: 'K5', path: 'incident', message: 'needs an incident object' },
      { line: 7, key: 'K6', path: 'incident', message: 'needs an incident object' },
      { line: 8, key: undefined, path: 'key', message: needsKey },
      { line: 8, key: undefined, path: 'incident', message: 'needs an incident object' },
      { line: 9, key: undefined, path: 'key', message: needsKey },
      { line: 9, key: undefined, path: 'incident', message: 'needs an incident object' },
    ]);
  });

  it('takes the line a claim gives (a CLI reading a file), else its position; problems sorted by line', async () => {
    const { claims, problems } = await validateClaims(clientWith(), [
      { ...claimLine('K1'), line: 40 },
      { ...claimLine('K2', { policyCountry: 'Britain' }), line: 7 },
      claimLine('K3'),
      { ...claimLine('K4'), line: '9' },
    ]);
    expect(claims.map((c) => [c.key, c.line])).toEqual([
      ['K1', 40],
      ['K3', 3],
      ['K4', 4],
    ]);
    expect(problems.map((p) => [p.line, p.key, p.path])).toEqual([[7, 'K2', 'incident.policyCountry']]);
    expect(problems[0]).not.toHaveProperty('code');
  });

  it('a key whose first line is bad still counts as used: its second line names the first', async () => {
    const { claims, problems } = await validateClaims(clientWith(), [
      claimLine('K1', { policyCountry: 'Britain' }),
      claimLine('K1'),
    ]);
    expect(claims).toEqual([]);
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [1, expect.any(String)],
      [2, 'the same key is on line 1'],
    ]);
  });
});

describe('validateClaims: extended fields, one look-up per form', () => {
  it("looks each form up once, at most 4 at once; a bad field is its line's problem, with its code", async () => {
    let inFlight = 0;
    let most = 0;
    const queries: unknown[] = [];
    const lookup: Lookup = async (query) => {
      queries.push(query);
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return [causeOfLoss];
    };
    const lines = Array.from({ length: 6 }, (_, i) =>
      claimLine(`K${i}`, { programmeCode: `P${i}`, ...ext('Fire') }),
    );
    lines.push(claimLine('K6', { programmeCode: 'P0', ...ext('Lava') }));
    lines.push(claimLine('K7'));
    const { claims, problems } = await validateClaims(clientWith(lookup), lines);
    expect(queries).toHaveLength(6);
    expect(queries[0]).toEqual({ programmeCode: 'P0', policyTypeCode: 'T1', countryCode: 'GB' });
    expect(most).toBe(4);
    expect(claims.map((c) => c.key)).toEqual(['K0', 'K1', 'K2', 'K3', 'K4', 'K5', 'K7']);
    expect(problems).toEqual([
      {
        line: 7,
        key: 'K6',
        path: 'incident.extendedFields[0]',
        message:
          'claim_form:Cause_Of_Loss: "Cause of loss" (section "Incident details") must be one of: Fire, Flood, Theft; got "Lava"',
        code: 'not_in_list',
      },
    ]);
  });

  it('a form the server refuses to give is a problem of each line naming it; any other failure is thrown', async () => {
    const refusal = new ClaimsApiError({
      status: 404,
      body: { message: 'no such form' },
      headers: {},
      method: 'GET',
      url: 'https://api.example.com/metadata/incidents',
    });
    const { claims, problems } = await validateClaims(
      clientWith(async () => {
        throw refusal;
      }),
      [claimLine('K1', ext('Fire')), claimLine('K2', ext('Flood'))],
    );
    expect(claims).toEqual([]);
    const message = `the form of programme "PRG", policy type "T1", country "GB" could not be looked up: ${refusal.message}`;
    expect(problems).toEqual([
      { line: 1, key: 'K1', path: 'incident', message },
      { line: 2, key: 'K2', path: 'incident', message },
    ]);
    const down = new ClaimsApiError({ status: 503, body: '', headers: {}, method: 'GET', url: 'https://x/' });
    await expect(
      validateClaims(
        clientWith(async () => {
          throw down;
        }),
        [claimLine('K1', ext('Fire'))],
      ),
    ).rejects.toBe(down);
  });
});

describe('validateClaims: { file } attachments', () => {
  it("without a files root: a readable file passes as given; a folder or a missing file is its line's problem", async () => {
    const folder = join(dir, 'plain');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.txt'), 'a');
    const { claims, problems } = await validateClaims(clientWith(), [
      claimLine('K1', {
        attachments: [
          { attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b00' },
          { file: join(folder, 'a.txt') },
        ],
      }),
      claimLine('K2', { attachments: [{ file: folder }] }),
      claimLine('K3', { attachments: [{ file: { path: join(folder, 'gone.txt') } }] }),
    ]);
    expect(claims.map((c) => c.key)).toEqual(['K1']);
    expect(claims[0]).not.toHaveProperty('filesResolved');
    expect(problems).toEqual([
      { line: 2, key: 'K2', path: 'incident.attachments[0].file', message: `"${folder}" is not a file` },
      {
        line: 3,
        key: 'K3',
        path: 'incident.attachments[0].file',
        message: `"${join(folder, 'gone.txt')}" cannot be read (ENOENT)`,
      },
    ]);
  });

  it('with a files root: each path resolved (its name kept, other fields kept); the root itself and folders refused', async () => {
    const root = join(dir, 'root');
    mkdirSync(join(root, 'sub'), { recursive: true });
    mkdirSync(join(root, '..hidden'));
    writeFileSync(join(root, 'sub', 'photo.jpg'), 'jpeg');
    writeFileSync(join(root, '..hidden', 'x.txt'), 'x');
    const { claims, problems } = await validateClaims(
      clientWith(),
      [
        claimLine('K1', {
          attachments: [
            { file: 'photo.jpg', description: 'from the sub-folder' },
            { file: { path: '../..hidden/x.txt', contentType: 'text/plain' } },
          ],
        }),
        claimLine('K2', { attachments: [{ file: '.' }] }),
        claimLine('K3', { attachments: [{ file: '..' }] }),
        claimLine('K4', { attachments: [{ file: '../sub' }] }),
      ],
      { filesRoot: root, filesRelativeTo: join(root, 'sub') },
    );
    expect(claims.map((c) => c.key)).toEqual(['K1']);
    const [claim] = claims;
    expect(claim?.incident.attachments).toEqual([
      { file: 'photo.jpg', description: 'from the sub-folder' },
      { file: { path: '../..hidden/x.txt', contentType: 'text/plain' } },
    ]);
    expect(claim?.filesResolved?.attachments).toEqual([
      {
        file: { filename: 'photo.jpg', path: join(root, 'sub', 'photo.jpg') },
        description: 'from the sub-folder',
      },
      { file: { filename: 'x.txt', path: join(root, '..hidden', 'x.txt'), contentType: 'text/plain' } },
    ]);
    expect(claim?.filesResolved?.description).toBe('K1');
    const outside = (given: string) =>
      `"${given}" is outside the folder files are read from ("${root}"); name another with --files-root`;
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [2, `"." is not a file`],
      [3, outside('..')],
      [4, '"../sub" is not a file'],
    ]);
  });

  it('a files root that does not exist: every path is unreadable (never the working directory)', async () => {
    const { claims, problems } = await validateClaims(
      clientWith(),
      [claimLine('K1', { attachments: [{ file: 'package.json' }] })],
      { filesRoot: join(dir, 'nowhere') },
    );
    expect(claims).toEqual([]);
    expect(problems.map((p) => p.message)).toEqual(['"package.json" cannot be read (ENOENT)']);
  });

  it('a symlinked files root: paths inside it compare with the root as the file system names it', async () => {
    const real = join(dir, 'real-root');
    mkdirSync(real);
    writeFileSync(join(real, 'a.txt'), 'a');
    symlinkSync(real, join(dir, 'link-root'));
    const { claims, problems } = await validateClaims(
      clientWith(),
      [claimLine('K1', { attachments: [{ file: 'a.txt' }] })],
      { filesRoot: join(dir, 'link-root') },
    );
    expect(problems).toEqual([]);
    expect(claims[0]?.filesResolved?.attachments).toEqual([
      { file: { filename: 'a.txt', path: join(real, 'a.txt') } },
    ]);
  });
});

describe('validateClaims: what a bad line does not cause', () => {
  it('a line with a problem, or no key, is not looked up: its form is not asked for', async () => {
    const queries: unknown[] = [];
    const { claims, problems } = await validateClaims(
      clientWith(async (query) => {
        queries.push(query);
        return [causeOfLoss];
      }),
      [
        claimLine('K1', { programmeCode: 'P1', policyCountry: 'Britain', ...ext('Fire') }),
        { incident: claimLine('x', { programmeCode: 'P2', ...ext('Fire') }).incident },
        claimLine('K3', { programmeCode: 'P3', attachments: [null] }),
      ],
    );
    expect(queries).toEqual([]);
    expect(claims).toEqual([]);
    expect(problems.map((p) => [p.line, p.path])).toEqual([
      [1, 'incident.policyCountry'],
      [2, 'key'],
      [3, expect.stringMatching(/^incident\.attachments/)],
    ]);
  });

  it("problems in line order, the form's among the others; a required field missing is the list's problem", async () => {
    const { problems } = await validateClaims(
      clientWith(async () => [causeOfLoss, policeReference]),
      [
        claimLine('K1', ext('Lava')),
        claimLine('K2', { policyCountry: 'Britain' }),
        claimLine('K3', { extendedFields: [{ identifier: 'claim_form:Police_Ref', value: 'AB12' }] }),
      ],
    );
    expect(problems.map((p) => [p.line, p.path])).toEqual([
      [1, 'incident.extendedFields[0]'],
      [2, 'incident.policyCountry'],
      [3, 'incident.extendedFields'],
    ]);
  });
});

describe('validateClaims: the files root, at its edges', () => {
  it("the root's parent and a path up and out of it are outside; other attachments are kept as they are", async () => {
    const root = join(dir, 'edges');
    mkdirSync(root);
    writeFileSync(join(dir, 'beside.txt'), 'x');
    writeFileSync(join(root, 'in.txt'), 'x');
    const id = { attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b00' };
    const { claims, problems } = await validateClaims(
      clientWith(),
      [
        claimLine('K1', { attachments: [{ file: '..' }] }),
        claimLine('K2', { attachments: [{ file: '../beside.txt' }] }),
        claimLine('K3', { attachments: [id, { file: 'in.txt' }] }),
      ],
      { filesRoot: root },
    );
    const outside = (given: string) =>
      `"${given}" is outside the folder files are read from ("${root}"); name another with --files-root`;
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [1, outside('..')],
      [2, outside('../beside.txt')],
    ]);
    expect(claims[0]?.filesResolved?.attachments).toEqual([
      id,
      { file: { filename: 'in.txt', path: join(root, 'in.txt') } },
    ]);
  });

  it('a files root that does not exist: a path elsewhere is outside it, named as given', async () => {
    writeFileSync(join(dir, 'elsewhere.txt'), 'x');
    const { problems } = await validateClaims(
      clientWith(),
      [claimLine('K1', { attachments: [{ file: join(dir, 'elsewhere.txt') }] })],
      { filesRoot: join(dir, 'not-there') },
    );
    expect(problems.map((p) => p.message)).toEqual([
      `"${join(dir, 'elsewhere.txt')}" is outside the folder files are read from ("${join(dir, 'not-there')}"); name another with --files-root`,
    ]);
  });
});

describe('validateClaims with checkProgrammes: each line against the programmes metadata', () => {
  const programmes = [
    {
      programmeCode: 'PRG',
      policyTypes: [
        { policyTypeCode: 'T1', countries: ['GB', 'IE'] },
        { policyTypeCode: 'T2', countries: ['FR'] },
        { policyTypeCode: 'T1', countries: ['NL'] },
      ],
    },
    { programmeCode: 'OTHER', policyTypes: [{ policyTypeCode: 'T9', countryCodes: ['DE'] }] },
  ];
  function clientListing(answer: () => Promise<unknown>) {
    const asked = { programmes: 0, forms: 0 };
    const client = {
      metadata: {
        programmes: () => {
          asked.programmes++;
          return answer();
        },
        incidentFields: async () => {
          asked.forms++;
          return [causeOfLoss];
        },
      },
    } as unknown as ClaimsClientBase;
    return { client, asked };
  }

  it('a programme, policy type or country it does not list is a problem of the line, naming what it has; listed lines pass', async () => {
    const { client, asked } = clientListing(async () => programmes);
    const { claims, problems } = await validateClaims(
      client,
      [
        claimLine('K1'),
        claimLine('K2', { programmeCode: 'PRG-NOPE' }),
        claimLine('K3', { policyTypeCode: 'T7' }),
        claimLine('K4', { policyCountry: 'ES' }),
        claimLine('K5', { policyCountry: 'NL' }),
        claimLine('K6', {
          programmeCode: 'OTHER',
          policyTypeCode: 'T9',
          policyCountry: 'DE',
          ...ext('Fire'),
        }),
      ],
      { checkProgrammes: true },
    );
    expect(asked.programmes).toBe(1);
    expect(claims.map((c) => c.key)).toEqual(['K1', 'K5', 'K6']);
    expect(problems).toEqual([
      {
        line: 2,
        key: 'K2',
        path: 'incident.programmeCode',
        message: '"PRG-NOPE" is not a programme the programmes metadata lists',
        code: 'unknown_programme',
      },
      {
        line: 3,
        key: 'K3',
        path: 'incident.policyTypeCode',
        message: '"T7" is not a policy type of programme "PRG" (it has "T1", "T2")',
        code: 'unknown_policy_type',
      },
      {
        line: 4,
        key: 'K4',
        path: 'incident.policyCountry',
        message: '"ES" is not a country of policy type "T1" of programme "PRG" (it has "GB", "IE", "NL")',
        code: 'unknown_country',
      },
    ]);
  });

  it('a line the programmes metadata refuses is not looked up for its form', async () => {
    const { client, asked } = clientListing(async () => programmes);
    const { problems } = await validateClaims(
      client,
      [claimLine('K1', { programmeCode: 'PRG-NOPE', ...ext('Fire') })],
      { checkProgrammes: true },
    );
    expect(problems.map((p) => p.code)).toEqual(['unknown_programme']);
    expect(asked.forms).toBe(0);
  });

  it('not asked without checkProgrammes, nor when no line is valid; a look-up that fails or an unreadable answer skips the check', async () => {
    const listing = clientListing(async () => programmes);
    const off = await validateClaims(listing.client, [claimLine('K1', { programmeCode: 'PRG-NOPE' })]);
    expect(off.problems).toEqual([]);
    const none = await validateClaims(listing.client, [{ key: 'K1', incident: null }], {
      checkProgrammes: true,
    });
    expect(none.problems.map((p) => p.message)).toEqual(['needs an incident object']);
    expect(listing.asked.programmes).toBe(0);
    for (const answer of [
      async () => {
        throw new ClaimsApiError({
          status: 404,
          body: '',
          headers: {},
          method: 'GET',
          url: 'https://x/metadata/programmes',
        });
      },
      async () => ({ unexpected: true }),
    ]) {
      const failing = clientListing(answer);
      const { claims, problems } = await validateClaims(
        failing.client,
        [claimLine('K1', { programmeCode: 'PRG-NOPE' })],
        { checkProgrammes: true },
      );
      expect(failing.asked.programmes).toBe(1);
      expect(problems).toEqual([]);
      expect(claims.map((c) => c.key)).toEqual(['K1']);
    }
  });
});
