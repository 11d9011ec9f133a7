import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pullToFiles, readSnapshotFile, writeIfChanged } from '../../src/forms/files.js';
import { generateFormsModule } from '../../src/forms/generate.js';
import { JSON_SCHEMA_MARK } from '../../src/forms/json-schema.js';
import { formsOfProgrammes } from '../../src/forms/programmes.js';
import { pullForms, sourceOf } from '../../src/forms/pull.js';
import { serializeSnapshot } from '../../src/forms/snapshot-file.js';
import {
  ClaimsClient,
  ClaimsError,
  ClaimsValidationError,
  type FormSnapshot,
  NotFoundError,
  outcomeOf,
} from '../../src/index.js';
import { defaultSandboxMetadata } from '../../src/testing/core/seed.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { type CountingProxy, countingProxy } from './counting-proxy.js';

let sandbox: Sandbox;
let proxy: CountingProxy;
let client: ClaimsClient;
let dir: string;
const T1 = new Date('2026-11-26T01:00:00.000Z');
const T2 = new Date('2026-11-27T01:00:00.000Z');

beforeAll(async () => {
  sandbox = await createSandbox();
  proxy = await countingProxy(sandbox.url);
  client = new ClaimsClient({ baseUrl: proxy.url, accessToken: sandbox.token, maxRetries: 0 });
  dir = mkdtempSync(join(tmpdir(), 'claims-forms-pull-'));
});
afterEach(() => {
  sandbox.seed(defaultSandboxMetadata());
  proxy.seen.length = 0;
});
afterAll(async () => {
  await client.close();
  await proxy.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const MOTOR_GB = { programmeCode: 'PRG-MOTOR', policyTypeCode: 'MOTOR-COMP', countryCode: 'GB' };
const HOME_GB = { programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', countryCode: 'gb' };

describe('pullForms', () => {
  it('named forms: each read once, keyed and sorted, the country upper-cased, with when and from where', async () => {
    const result = await pullForms(client, {
      forms: [MOTOR_GB, HOME_GB, { ...HOME_GB, countryCode: 'GB' }],
      source: 'https://api',
      now: T1,
    });
    expect(Object.keys(result.snapshot.forms)).toEqual(['PRG-HOME/HOME-STD/GB', 'PRG-MOTOR/MOTOR-COMP/GB']);
    expect(result.snapshot).toEqual({
      version: 1,
      forms: {
        'PRG-HOME/HOME-STD/GB': {
          programmeCode: 'PRG-HOME',
          policyTypeCode: 'HOME-STD',
          countryCode: 'GB',
          pulledAt: '2026-11-26T01:00:00.000Z',
          source: 'https://api',
          descriptors: await client.metadata.incidentFields(HOME_GB),
        },
        'PRG-MOTOR/MOTOR-COMP/GB': expect.objectContaining({
          countryCode: 'GB',
          descriptors: await client.metadata.incidentFields(MOTOR_GB),
        }),
      },
    });
    expect(result).toMatchObject({
      changed: ['PRG-HOME/HOME-STD/GB', 'PRG-MOTOR/MOTOR-COMP/GB'],
      unchanged: [],
      dropped: [],
    });
    expect(proxy.count('GET /metadata/incidents')).toBe(4);
    expect(proxy.count('GET /metadata/programmes')).toBe(0);
  });

  it('all: every combination the programmes operation lists; a refresh of such a snapshot reads them all again', async () => {
    const { snapshot } = await pullForms(client, { all: true, source: 's', now: T1 });
    expect(snapshot.all).toBe(true);
    expect(Object.keys(snapshot.forms)).toHaveLength(10);
    const motorTypes = sandbox.metadata.programmes.find((p) => p.programmeCode === 'PRG-MOTOR')?.policyTypes;
    motorTypes?.[0]?.countries.push('ES');
    sandbox.seed({
      programmes: sandbox.metadata.programmes.map((p) =>
        p.programmeCode === 'PRG-MOTOR' ? { ...p, policyTypes: motorTypes ?? [] } : p,
      ),
    });
    const again = await pullForms(client, { previous: snapshot, source: 's', now: T2 });
    expect(again.snapshot.all).toBe(true);
    expect(again.changed).toEqual(['PRG-MOTOR/MOTOR-COMP/ES']);
    expect(again.unchanged).toHaveLength(10);
    // Unchanged forms keep their entry, date included.
    expect(again.snapshot.forms['PRG-HOME/HOME-STD/GB']).toBe(snapshot.forms['PRG-HOME/HOME-STD/GB']);
    expect(again.snapshot.forms['PRG-MOTOR/MOTOR-COMP/ES']?.pulledAt).toBe(T2.toISOString());
  });

  it('a refresh of named forms pulls the same forms; a changed form gets a new date, a form no longer named is dropped', async () => {
    const first = await pullForms(client, { forms: [MOTOR_GB, HOME_GB], source: 's', now: T1 });
    const forms = defaultSandboxMetadata().forms;
    forms[0]?.fields.push({ identifier: 'claim_form:New', name: 'New', section: 'S' });
    sandbox.seed({ forms });
    const refreshed = await pullForms(client, { previous: first.snapshot, source: 's', now: T2 });
    expect(refreshed.snapshot.all).toBeUndefined();
    expect(refreshed).toMatchObject({
      changed: ['PRG-HOME/HOME-STD/GB'],
      unchanged: ['PRG-MOTOR/MOTOR-COMP/GB'],
      dropped: [],
    });
    expect(refreshed.snapshot.forms['PRG-HOME/HOME-STD/GB']?.pulledAt).toBe(T2.toISOString());
    expect(refreshed.snapshot.forms['PRG-MOTOR/MOTOR-COMP/GB']?.pulledAt).toBe(T1.toISOString());
    const narrower = await pullForms(client, {
      forms: [MOTOR_GB],
      previous: refreshed.snapshot,
      source: 's',
      now: T2,
    });
    expect(narrower).toMatchObject({
      changed: [],
      unchanged: ['PRG-MOTOR/MOTOR-COMP/GB'],
      dropped: ['PRG-HOME/HOME-STD/GB'],
    });
    // Another source is a change, even with the same descriptors.
    const moved = await pullForms(client, {
      forms: [MOTOR_GB],
      previous: narrower.snapshot,
      source: 'other',
      now: T2,
    });
    expect(moved.changed).toEqual(['PRG-MOTOR/MOTOR-COMP/GB']);
    expect(moved.snapshot.forms['PRG-MOTOR/MOTOR-COMP/GB']?.source).toBe('other');
  });

  it('refuses what it cannot do, before or without writing anything', async () => {
    const refused = async (request: Parameters<typeof pullForms>[1]) => {
      const error = await pullForms(client, request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsValidationError);
      return (error as ClaimsValidationError).message;
    };
    expect(await refused({ source: 's' })).toBe(
      'Cannot pull the forms: forms: name the forms to pull (programme, policy type, country), or ask for all of them',
    );
    expect(await refused({ source: 's', all: true, forms: [MOTOR_GB] })).toBe(
      'Cannot pull the forms: forms: name forms or ask for all of them, not both',
    );
    expect(
      await refused({
        source: 's',
        forms: [
          { programmeCode: 'A/B', policyTypeCode: 'C', countryCode: 'GB' },
          { programmeCode: 'A', policyTypeCode: 'B/C', countryCode: 'GB' },
        ],
      }),
    ).toBe(
      'Cannot pull the forms: forms: programme "A/B" with policy type "C", and programme "A" with policy type "B/C", both make the key "A/B/C/GB"; a snapshot cannot hold both',
    );
    expect(proxy.seen).toEqual([]);
  });

  it('a form the server does not know (404): named, the 404 its cause', async () => {
    const error = await pullForms(client, {
      forms: [MOTOR_GB, { ...MOTOR_GB, countryCode: 'ES' }],
      source: 's',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect(error).not.toBeInstanceOf(ClaimsValidationError);
    expect((error as Error).message).toBe(
      'Cannot pull the forms: there is no form for programme "PRG-MOTOR", policy type "MOTOR-COMP", country "ES" (the metadata look-up answered 404); nothing was written',
    );
    expect((error as Error).cause).toBeInstanceOf(NotFoundError);
    expect(outcomeOf(error)).toBe('rejected');
  });

  it("another failure (a 401) is the look-up's own error", async () => {
    const wrong = new ClaimsClient({ baseUrl: sandbox.url, accessToken: 'wrong', maxRetries: 0 });
    await expect(pullForms(wrong, { forms: [MOTOR_GB], source: 's' })).rejects.toMatchObject({ status: 401 });
    await wrong.close();
  });
});

describe('formsOfProgrammes: what the SDK reads of the undocumented programmes answer', () => {
  it('an array, or an object holding it as programmes; countries or countryCodes; other fields ignored', () => {
    const programmes = [
      {
        programmeCode: 'P',
        name: 'x',
        policyTypes: [
          { policyTypeCode: 'A', countries: ['GB', 'fr'] },
          { policyTypeCode: 'B', countryCodes: ['DE'] },
        ],
      },
      { programmeCode: 'Q', policyTypes: [] },
    ];
    const expected = [
      { programmeCode: 'P', policyTypeCode: 'A', countryCode: 'GB' },
      { programmeCode: 'P', policyTypeCode: 'A', countryCode: 'fr' },
      { programmeCode: 'P', policyTypeCode: 'B', countryCode: 'DE' },
    ];
    expect(formsOfProgrammes(programmes)).toEqual(expected);
    expect(formsOfProgrammes({ programmes, total: 2 })).toEqual(expected);
    expect(formsOfProgrammes([])).toEqual([]);
    expect(
      formsOfProgrammes([
        { programmeCode: 'P', policyTypes: [{ policyTypeCode: 'A', countries: null, countryCodes: ['GB'] }] },
      ]),
    ).toEqual([{ programmeCode: 'P', policyTypeCode: 'A', countryCode: 'GB' }]);
    expect(
      formsOfProgrammes([
        { programmeCode: 'P', policyTypes: [{ policyTypeCode: 'A', countries: [], countryCodes: ['GB'] }] },
      ]),
    ).toEqual([]);
  });

  it('fails with a clear message naming what does not fit, and what to do instead', () => {
    const cases: Array<[unknown, string]> = [
      [
        null,
        'the answer is neither an array of programmes nor an object with a "programmes" array (got null)',
      ],
      [
        { items: [] },
        'the answer is neither an array of programmes nor an object with a "programmes" array (got {"items":[]})',
      ],
      [
        'text',
        'the answer is neither an array of programmes nor an object with a "programmes" array (got "text")',
      ],
      [[{ code: 'P' }], 'programme [0] has no "programmeCode" string (got {"code":"P"})'],
      [[{ programmeCode: '' }], 'programme [0] has no "programmeCode" string (got {"programmeCode":""})'],
      [[null], 'programme [0] has no "programmeCode" string (got null)'],
      [
        [{ programmeCode: 'P', policyTypes: [null] }],
        'a policy type of programme "P" has no "policyTypeCode" string (got null)',
      ],
      [
        [{ programmeCode: 'P', policyTypes: {} }],
        'programme "P" has no "policyTypes" array (got {"programmeCode":"P","policyTypes":{}})',
      ],
      [
        [{ programmeCode: 'P', policyTypes: ['A'] }],
        'a policy type of programme "P" has no "policyTypeCode" string (got "A")',
      ],
      [
        [{ programmeCode: 'P', policyTypes: [{ policyTypeCode: '' }] }],
        'a policy type of programme "P" has no "policyTypeCode" string (got {"policyTypeCode":""})',
      ],
      [
        [{ programmeCode: 'P', policyTypes: [{ policyTypeCode: 'A' }] }],
        'policy type "A" of programme "P" has no "countries" array of country codes (got {"policyTypeCode":"A"})',
      ],
      [
        [{ programmeCode: 'P', policyTypes: [{ policyTypeCode: 'A', countries: ['GB', 1] }] }],
        'policy type "A" of programme "P" has no "countries" array of country codes (got {"policyTypeCode":"A","countries":["GB",1]})',
      ],
    ];
    for (const [answer, why] of cases) {
      let error: unknown;
      try {
        formsOfProgrammes(answer);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ClaimsError);
      expect(outcomeOf(error)).toBe('processed');
      expect((error as Error).message).toBe(
        `Cannot list the forms from GET /metadata/programmes: ${why}. The spec does not describe this answer; the SDK reads [{ programmeCode, policyTypes: [{ policyTypeCode, countries: [...] }] }]. Name the forms instead: --programme P --policy-type T --country C.`,
      );
    }
  });
});

describe('sourceOf', () => {
  it('keeps scheme, host, port and path; drops credentials, query, fragment and a trailing slash', () => {
    expect(sourceOf('https://user:s3cret@claims.example:8443/api/?token=abc#x')).toBe(
      'https://claims.example:8443/api',
    );
    expect(sourceOf('http://127.0.0.1:4010/')).toBe('http://127.0.0.1:4010');
    expect(sourceOf('https://claims.example/a//')).toBe('https://claims.example/a');
  });
});

describe('pullToFiles: the files of `claims forms pull`', () => {
  it('writes the snapshot, the module and one schema per form; an idle pull rewrites nothing', async () => {
    const at = join(dir, 'idle');
    const request = {
      forms: [MOTOR_GB, HOME_GB],
      snapshotFile: join(at, 'claims-forms.json'),
      out: join(at, 'src', 'claims-forms.ts'),
      jsonSchemaDir: join(at, 'schemas'),
      source: 'https://api',
      now: T1,
    };
    const first = await pullToFiles(client, request);
    expect(first).toMatchObject({
      snapshotFile: 'written',
      module: 'written',
      schemas: {
        written: ['PRG-HOME.HOME-STD.GB.json', 'PRG-MOTOR.MOTOR-COMP.GB.json'],
        unchanged: [],
        removed: [],
      },
    });
    const snapshotText = readFileSync(request.snapshotFile, 'utf8');
    expect(snapshotText).toBe(serializeSnapshot(first.snapshot));
    expect(readFileSync(request.out, 'utf8')).toBe(generateFormsModule(first.snapshot));
    const mtimes = [request.snapshotFile, request.out].map((f) => statSync(f).mtimeMs);
    const second = await pullToFiles(client, { ...request, forms: undefined, now: T2 });
    expect(second).toMatchObject({
      snapshotFile: 'unchanged',
      module: 'unchanged',
      changed: [],
      schemas: {
        written: [],
        unchanged: ['PRG-HOME.HOME-STD.GB.json', 'PRG-MOTOR.MOTOR-COMP.GB.json'],
        removed: [],
      },
    });
    expect(readFileSync(request.snapshotFile, 'utf8')).toBe(snapshotText);
    expect([request.snapshotFile, request.out].map((f) => statSync(f).mtimeMs)).toEqual(mtimes);
    expect(readdirSync(at).sort()).toEqual(['claims-forms.json', 'schemas', 'src']);
  });

  it('removes the schema of a form no longer pulled, only files it wrote itself', async () => {
    const at = join(dir, 'schemas-removed');
    const request = {
      forms: [MOTOR_GB, HOME_GB],
      snapshotFile: join(at, 'f.json'),
      jsonSchemaDir: join(at, 's'),
      source: 's',
    };
    await pullToFiles(client, request);
    writeFileSync(join(at, 's', 'mine.json'), '{"mine":true}');
    writeFileSync(join(at, 's', 'notes.txt'), JSON_SCHEMA_MARK);
    // The mark in another field, or in a file that is not JSON, is not ours.
    writeFileSync(join(at, 's', 'quoted.json'), JSON.stringify({ note: JSON_SCHEMA_MARK }));
    writeFileSync(join(at, 's', 'broken.json'), `{ "$comment": "${JSON_SCHEMA_MARK}"`);
    writeFileSync(
      join(at, 's', 'older.json'),
      JSON.stringify({ $comment: `${JSON_SCHEMA_MARK}; descriptors sha256 0` }),
    );
    const narrower = await pullToFiles(client, { ...request, forms: [MOTOR_GB] });
    expect(narrower.schemas).toEqual({
      written: [],
      unchanged: ['PRG-MOTOR.MOTOR-COMP.GB.json'],
      removed: ['PRG-HOME.HOME-STD.GB.json', 'older.json'],
    });
    expect(narrower.dropped).toEqual(['PRG-HOME/HOME-STD/GB']);
    expect(readdirSync(join(at, 's')).sort()).toEqual([
      'PRG-MOTOR.MOTOR-COMP.GB.json',
      'broken.json',
      'mine.json',
      'notes.txt',
      'quoted.json',
    ]);
  });

  it('writes nothing when a form cannot be read; refuses a broken snapshot file, naming it', async () => {
    const at = join(dir, 'nothing');
    const request = {
      forms: [{ ...MOTOR_GB, countryCode: 'ES' }],
      snapshotFile: join(at, 'f.json'),
      out: join(at, 'f.ts'),
      source: 's',
    };
    await expect(pullToFiles(client, request)).rejects.toThrow(/no form for programme "PRG-MOTOR"/);
    expect(() => readdirSync(at)).toThrow();
    await writeIfChanged(join(at, 'f.json'), '{"version":1,"forms":{"x":1}}');
    await expect(pullToFiles(client, { ...request, forms: [MOTOR_GB] })).rejects.toThrow(
      `Invalid form snapshot: ${join(at, 'f.json')}.forms["x"]: must be an object with programmeCode, policyTypeCode, countryCode and descriptors`,
    );
  });

  it('readSnapshotFile: undefined when absent, the error of another failure', async () => {
    expect(await readSnapshotFile(join(dir, 'absent.json'))).toBeUndefined();
    await expect(readSnapshotFile(dir)).rejects.toMatchObject({ code: 'EISDIR' });
    const snapshot: FormSnapshot = { version: 1, forms: {} };
    writeFileSync(join(dir, 'empty.json'), serializeSnapshot(snapshot));
    expect(await readSnapshotFile(join(dir, 'empty.json'))).toEqual(snapshot);
  });

  it('writeIfChanged leaves no temporary file, and reports what it did', async () => {
    const file = join(dir, 'w', 'x.txt');
    expect(await writeIfChanged(file, 'a')).toBe('written');
    expect(await writeIfChanged(file, 'a')).toBe('unchanged');
    expect(await writeIfChanged(file, 'b')).toBe('written');
    expect(readFileSync(file, 'utf8')).toBe('b');
    expect(readdirSync(join(dir, 'w'))).toEqual(['x.txt']);
    await expect(writeIfChanged(join(dir, 'w'), 'c')).rejects.toMatchObject({
      code: expect.stringMatching(/^E/),
    });
    expect(readdirSync(join(dir, 'w'))).toEqual(['x.txt']);
  });
});
