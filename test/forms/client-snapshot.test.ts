/**
 * `formSnapshot` / `formSnapshotOnly` against the sandbox, behind a proxy that counts what
 * reaches the server: a snapshot-backed client sends no metadata GET; a form not in the
 * snapshot is looked up live, or refused with `formSnapshotOnly`. And point 5: a body with a
 * malformed top-level field and a bad extended field reports both in one error, from the
 * snapshot or from live metadata.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pullForms } from '../../src/forms/pull.js';
import {
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsValidationError,
  extendedFieldsFrom,
  type FormSnapshot,
  type IncidentCreate,
  outcomeOf,
} from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { type CountingProxy, countingProxy } from './counting-proxy.js';

let sandbox: Sandbox;
let proxy: CountingProxy;
/** Motor GB only: the other forms are not in it. */
let snapshot: FormSnapshot;
const clients: ClaimsClient[] = [];

const METADATA = 'GET /metadata/incidents';
const POST = 'POST /incidents';

beforeAll(async () => {
  sandbox = await createSandbox();
  proxy = await countingProxy(sandbox.url);
  const pulling = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
  snapshot = (
    await pullForms(pulling, {
      forms: [{ programmeCode: 'PRG-MOTOR', policyTypeCode: 'MOTOR-COMP', countryCode: 'gb' }],
      source: sandbox.url,
    })
  ).snapshot;
  await pulling.close();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  proxy.seen.length = 0;
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

function client(options: Partial<ClaimsClientOptions> = {}): ClaimsClient {
  const made = new ClaimsClient({
    baseUrl: proxy.url,
    accessToken: sandbox.token,
    maxRetries: 0,
    ...options,
  });
  clients.push(made);
  return made;
}

const motor = (fields: Record<string, string>, extra: Partial<IncidentCreate> = {}): IncidentCreate => ({
  programmeCode: 'PRG-MOTOR',
  policyTypeCode: 'MOTOR-COMP',
  policyCountry: 'GB',
  incidentDate: '2026-11-02',
  description: 'Rear-ended',
  extendedFields: extendedFieldsFrom(fields),
  ...extra,
});
const goodMotor = { 'motor_claim:Vehicle_Registration': 'AB12CDE', 'motor_claim:Incident_Type': 'Theft' };
const home = (fields: Record<string, string>, extra: Partial<IncidentCreate> = {}): IncidentCreate => ({
  programmeCode: 'PRG-HOME',
  policyTypeCode: 'HOME-STD',
  policyCountry: 'GB',
  incidentDate: '2026-11-02',
  description: 'Kitchen fire',
  extendedFields: extendedFieldsFrom(fields),
  ...extra,
});

async function rejection(promise: Promise<unknown>): Promise<ClaimsValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClaimsValidationError);
  return error as ClaimsValidationError;
}

describe('formSnapshot: extended fields checked with no metadata look-up', () => {
  it('a create for a form in the snapshot sends no metadata GET, only the POST (counted by the server side)', async () => {
    const c = client({ formSnapshot: snapshot });
    const { incidentId } = await c.incidents.create(motor(goodMotor));
    await c.incidents.create(motor(goodMotor, { policyCountry: 'gb' }));
    expect(sandbox.incident(incidentId)).toBeDefined();
    expect(proxy.seen).toEqual([POST, POST]);
    // Without the snapshot the same client makes one look-up (the control).
    const live = client();
    await live.incidents.create(motor(goodMotor));
    expect(proxy.count(METADATA)).toBe(1);
  });

  it('a bad value is refused from the snapshot: nothing reaches the server', async () => {
    const c = client({ formSnapshot: snapshot });
    const error = await rejection(
      c.incidents.create(motor({ ...goodMotor, 'motor_claim:Incident_Type': 'Flood' })),
    );
    expect(error.issues).toEqual([
      {
        path: 'extendedFields[1]',
        code: 'not_in_list',
        message: expect.stringMatching(/^motor_claim:Incident_Type: "Type of incident"/),
      },
    ]);
    expect(error.message).toMatch(
      /^Invalid extendedFields for the form of programme "PRG-MOTOR", policy type "MOTOR-COMP", country "GB": /,
    );
    expect(outcomeOf(error)).toBe('not_sent');
    expect(proxy.seen).toEqual([]);
  });

  it('metadata.requiredFields reads the snapshot too', async () => {
    const c = client({ formSnapshot: snapshot });
    const required = await c.metadata.requiredFields({
      programmeCode: 'PRG-MOTOR',
      policyTypeCode: 'MOTOR-COMP',
      countryCode: 'gb',
    });
    expect(required.map((d) => d.identifier)).toEqual([
      'motor_claim:Vehicle_Registration',
      'motor_claim:Incident_Type',
    ]);
    expect(proxy.seen).toEqual([]);
  });

  it("the snapshot wins over a changed live form: the check is the snapshot's, the server still judges", async () => {
    const c = client({ formSnapshot: snapshot });
    const before = sandbox.metadata;
    const motorForm = before.forms.find((f) => f.programmeCode === 'PRG-MOTOR');
    const incidentType = motorForm?.fields.find((f) => f.identifier === 'motor_claim:Incident_Type');
    incidentType?.listSource?.splice(incidentType.listSource.indexOf('Theft'), 1);
    sandbox.seed({ forms: before.forms });
    try {
      const error = await c.incidents.create(motor(goodMotor)).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 422, outcome: 'rejected' });
      expect(proxy.seen).toEqual([POST]);
    } finally {
      sandbox.seed({
        forms: (await import('../../src/testing/core/seed.js')).defaultSandboxMetadata().forms,
      });
    }
  });

  it('a form not in the snapshot is looked up live, once, then cached', async () => {
    const c = client({ formSnapshot: snapshot });
    await c.incidents.create(home({ 'claim_form:Cause_Of_Loss': 'Fire' }));
    await c.incidents.create(home({ 'claim_form:Cause_Of_Loss': 'Storm' }));
    expect(proxy.seen).toEqual([METADATA, POST, POST]);
  });

  it('formSnapshotOnly refuses a form not in the snapshot, naming it, and sends nothing', async () => {
    const c = client({ formSnapshot: snapshot, formSnapshotOnly: true });
    const error = await rejection(c.incidents.create(home({ 'claim_form:Cause_Of_Loss': 'Fire' })));
    expect(error.issues).toEqual([
      {
        path: 'extendedFields',
        code: 'form_not_in_snapshot',
        message:
          'the form of programme "PRG-HOME", policy type "HOME-STD", country "GB" is not in formSnapshot, and formSnapshotOnly forbids looking it up; add it with `claims forms pull`',
      },
    ]);
    const required = await rejection(
      c.metadata.requiredFields({ programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', countryCode: 'GB' }),
    );
    expect(required.issues).toEqual([{ ...error.issues[0], path: 'query' }]);
    expect(required.message).toMatch(/^Cannot read the form: query: the form of programme "PRG-HOME"/);
    // A create without extendedFields needs no form: it is sent.
    const { incidentId } = await c.incidents.create({ ...home({}), extendedFields: undefined });
    expect(incidentId).toBeTruthy();
    // A form in the snapshot is still used.
    await c.incidents.create(motor(goodMotor));
    expect(proxy.seen).toEqual([POST, POST]);
  });

  it('is copied when the client is made: changing the object later changes nothing', async () => {
    const copy = structuredClone(snapshot) as unknown as {
      forms: Record<string, { descriptors: { listSource?: string[] | null }[] }>;
    };
    const c = client({ formSnapshot: copy as unknown as FormSnapshot });
    copy.forms['PRG-MOTOR/MOTOR-COMP/GB']?.descriptors[1]?.listSource?.push('Flood');
    await rejection(c.incidents.create(motor({ ...goodMotor, 'motor_claim:Incident_Type': 'Flood' })));
  });

  it('bad options are refused when the client is made, with every problem named', () => {
    const make = (options: Partial<ClaimsClientOptions>) => () =>
      new ClaimsClient({ baseUrl: 'https://claims.example', accessToken: 't', ...options });
    expect(make({ formSnapshot: { version: 1, forms: {} } })).not.toThrow();
    try {
      make({
        formSnapshot: {
          version: 1,
          forms: {
            'P/T/GB': { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'GB', descriptors: [{}] },
          },
        } as never,
        formSnapshotOnly: 'yes' as never,
      })();
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect((error as ClaimsValidationError).issues).toEqual([
        {
          path: 'formSnapshot.forms["P/T/GB"].descriptors[0].identifier',
          message: 'must be a non-empty string',
        },
        { path: 'formSnapshotOnly', message: 'must be a boolean' },
      ]);
    }
    expect(make({ formSnapshotOnly: true })).toThrow(
      'formSnapshotOnly: needs formSnapshot (the forms it may use)',
    );
    expect(make({ formSnapshotOnly: false })).not.toThrow();
    expect(make({ formSnapshot: 'claims-forms.json' as never })).toThrow(
      /formSnapshot: must be a form snapshot object/,
    );
  });
});

describe('every problem at once (a malformed top-level field and a bad extended field)', () => {
  const badDate = { incidentDate: '2026-02-30' };
  const badCause = { 'claim_form:Cause_Of_Loss': 'Fir' };

  it('from the snapshot: one ClaimsValidationError names both; nothing reaches the server', async () => {
    const c = client({ formSnapshot: snapshot });
    const error = await rejection(
      c.incidents.create(
        motor({ 'motor_claim:Incident_Type': 'Flood' }, { ...badDate, description: 3 as never }),
      ),
    );
    expect(error.issues.map((i) => [i.path, i.code])).toEqual([
      ['incidentDate', undefined],
      ['description', undefined],
      ['extendedFields[0]', 'not_in_list'],
      ['extendedFields', 'required_missing'],
    ]);
    expect(error.message).toMatch(
      /^Invalid request: incidentDate: .*; description: .*; extendedFields\[0\]: motor_claim:Incident_Type: .*; extendedFields: motor_claim:Vehicle_Registration: /,
    );
    expect(outcomeOf(error)).toBe('not_sent');
    expect(proxy.seen).toEqual([]);
  });

  it('from live metadata: one look-up, no POST, both named', async () => {
    const c = client();
    const error = await rejection(c.incidents.create(home(badCause, badDate)));
    expect(error.issues.map((i) => [i.path, i.code])).toEqual([
      ['incidentDate', undefined],
      ['extendedFields[0]', 'not_in_list'],
    ]);
    expect(proxy.seen).toEqual([METADATA]);
  });

  it("with formSnapshotOnly, a form not in the snapshot is named beside the body's problems", async () => {
    const c = client({ formSnapshot: snapshot, formSnapshotOnly: true });
    const error = await rejection(c.incidents.create(home(badCause, badDate)));
    expect(error.issues.map((i) => [i.path, i.code])).toEqual([
      ['incidentDate', undefined],
      ['extendedFields', 'form_not_in_snapshot'],
    ]);
    expect(proxy.seen).toEqual([]);
  });

  it("the body's problems alone when the extended fields cannot be checked: form codes or values malformed, check off, no problem found", async () => {
    const c = client();
    const cases: Array<[IncidentCreate, string[]]> = [
      [home(badCause, { ...badDate, policyCountry: 'GBR' }), ['policyCountry', 'incidentDate']],
      [home(badCause, { ...badDate, programmeCode: '' }), ['programmeCode', 'incidentDate']],
      [home(badCause, { ...badDate, policyTypeCode: 7 as never }), ['policyTypeCode', 'incidentDate']],
      [
        {
          ...home({}, badDate),
          extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value: 3 as never }],
        },
        ['incidentDate', 'extendedFields[0].value'],
      ],
      [
        { ...home({}, badDate), extendedFields: [{ identifier: '', value: 'x' }] },
        ['incidentDate', 'extendedFields[0].identifier'],
      ],
      [{ ...home({}, badDate), extendedFields: [null as never] }, ['incidentDate', 'extendedFields[0]']],
      [{ ...home({}, badDate), extendedFields: 'x' as never }, ['incidentDate', 'extendedFields']],
      [{ ...home({}, badDate), extendedFields: undefined }, ['incidentDate']],
      [null as never, ['']],
    ];
    for (const [body, paths] of cases) {
      const error = await rejection(c.incidents.create(body));
      expect(error.issues.map((i) => i.path)).toEqual(paths);
    }
    expect(proxy.seen).toEqual([]);
    const off = await rejection(c.incidents.create(home(badCause, badDate), { checkExtendedFields: false }));
    expect(off.issues.map((i) => i.path)).toEqual(['incidentDate']);
    expect(proxy.seen).toEqual([]);
    // Well-formed and valid extended fields: looked up, nothing to add, the body's error as it was.
    const fine = await rejection(c.incidents.create(home({ 'claim_form:Cause_Of_Loss': 'Fire' }, badDate)));
    expect(fine.issues.map((i) => i.path)).toEqual(['incidentDate']);
    expect(fine.message).toMatch(/^Invalid request: incidentDate: /);
    expect(proxy.seen).toEqual([METADATA]);
  });

  it("a failed look-up leaves the body's own error as it is (it must be fixed anyway)", async () => {
    const c = client();
    const unknownForm = await rejection(
      c.incidents.create(home(badCause, { ...badDate, programmeCode: 'PRG-NONE' })),
    );
    expect(unknownForm.issues.map((i) => i.path)).toEqual(['incidentDate']);
    const expired = await rejection(c.incidents.create(home(badCause, badDate), { deadlineMs: 0 as never }));
    expect(expired.issues.map((i) => i.path)).toEqual(['incidentDate']);
    expect(proxy.seen).toEqual([METADATA]);
  });
});
