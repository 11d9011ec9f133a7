/**
 * `checkForms` against the sandbox after its metadata was changed through its own seeding API:
 * each kind of change found and classed; no change, no finding. A failure to read (401, a
 * server gone) is an error, never "no change".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pullForms } from '../../src/forms/pull.js';
import {
  ClaimsClient,
  ClaimsValidationError,
  checkForms,
  type FormChange,
  type FormSnapshot,
} from '../../src/index.js';
import type { SandboxField, SandboxForm, SandboxProgramme } from '../../src/testing/core/metadata-types.js';
import { defaultSandboxMetadata } from '../../src/testing/core/seed.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { type CountingProxy, countingProxy } from './counting-proxy.js';

let sandbox: Sandbox;
let proxy: CountingProxy;
let client: ClaimsClient;
/** Every form, pulled with --all. */
let all: FormSnapshot;
/** Motor GB and Travel GB, named. */
let named: FormSnapshot;

const MOTOR = 'PRG-MOTOR/MOTOR-COMP/GB';
const TRAVEL = 'PRG-TRAVEL/TRAVEL-SINGLE/GB';

beforeAll(async () => {
  sandbox = await createSandbox();
  proxy = await countingProxy(sandbox.url);
  client = new ClaimsClient({ baseUrl: proxy.url, accessToken: sandbox.token, maxRetries: 0 });
  all = (await pullForms(client, { all: true, source: sandbox.url })).snapshot;
  named = (
    await pullForms(client, {
      forms: [
        { programmeCode: 'PRG-MOTOR', policyTypeCode: 'MOTOR-COMP', countryCode: 'GB' },
        { programmeCode: 'PRG-TRAVEL', policyTypeCode: 'TRAVEL-SINGLE', countryCode: 'GB' },
      ],
      source: sandbox.url,
    })
  ).snapshot;
  proxy.seen.length = 0;
});
afterEach(() => {
  sandbox.seed(defaultSandboxMetadata());
  proxy.seen.length = 0;
});
afterAll(async () => {
  await client.close();
  await proxy.close();
  await sandbox.close();
});

/** Changes the fields of the motor form (every country) through the sandbox's seeding API. */
function changeMotor(change: (fields: SandboxField[]) => SandboxField[]): void {
  const forms = sandbox.metadata.forms.map((f: SandboxForm) =>
    f.programmeCode === 'PRG-MOTOR' ? { ...f, fields: change(structuredClone(f.fields)) } : f,
  );
  sandbox.seed({ forms });
}
const field = (fields: SandboxField[], identifier: string) =>
  fields.find((f) => f.identifier === identifier) as SandboxField;
const motorOnly = (changes: FormChange[]) => changes.filter((c) => c.form === MOTOR);

describe('checkForms against the sandbox', () => {
  it('no change: [] for a named snapshot and for an --all one, reading each form once (and the programmes for --all)', async () => {
    expect(await checkForms(client, named)).toEqual([]);
    expect(proxy.seen).toEqual(['GET /metadata/incidents', 'GET /metadata/incidents']);
    proxy.seen.length = 0;
    expect(await checkForms(client, all)).toEqual([]);
    expect(proxy.count('GET /metadata/programmes')).toBe(1);
    expect(proxy.count('GET /metadata/incidents')).toBe(10);
  });

  it('reads the live form even when the client holds it in formSnapshot or in its cache', async () => {
    const cached = new ClaimsClient({ baseUrl: proxy.url, accessToken: sandbox.token, formSnapshot: named });
    await cached.metadata.requiredFields({
      programmeCode: 'PRG-HOME',
      policyTypeCode: 'HOME-STD',
      countryCode: 'GB',
    });
    changeMotor((fields) => fields.slice(1));
    expect((await checkForms(cached, named)).map((c) => c.kind)).toEqual(['field_removed']);
    await cached.close();
  });

  const cases: Array<[string, (fields: SandboxField[]) => SandboxField[], Array<Partial<FormChange>>]> = [
    [
      'an optional field added: compatible',
      (fields) => [
        ...fields,
        { ...field(fields, 'motor_claim:Driver_Name'), identifier: 'motor_claim:Colour', name: 'Colour' },
      ],
      [{ kind: 'field_added', identifier: 'motor_claim:Colour', breaking: false }],
    ],
    [
      'a required field added: breaking',
      (fields) => [
        ...fields,
        {
          ...field(fields, 'motor_claim:Driver_Name'),
          identifier: 'motor_claim:Mileage',
          name: 'Mileage',
          isRequired: true,
        },
      ],
      [{ kind: 'field_added', identifier: 'motor_claim:Mileage', breaking: true }],
    ],
    [
      'a field removed: breaking',
      (fields) => fields.filter((f) => f.identifier !== 'motor_claim:Third_Party_Involved'),
      [{ kind: 'field_removed', identifier: 'motor_claim:Third_Party_Involved', breaking: true }],
    ],
    [
      'a field renamed (same name and section): breaking',
      (fields) =>
        fields.map((f) =>
          f.identifier === 'motor_claim:Driver_Name'
            ? { ...f, identifier: 'motor_claim:Driver_Full_Name' }
            : f,
        ),
      [
        {
          kind: 'field_renamed',
          identifier: 'motor_claim:Driver_Name',
          before: 'motor_claim:Driver_Name',
          after: 'motor_claim:Driver_Full_Name',
          breaking: true,
        },
      ],
    ],
    [
      'a field made required: breaking; made optional: compatible',
      (fields) =>
        fields.map((f) =>
          f.identifier === 'motor_claim:Driver_Name'
            ? { ...f, isRequired: true }
            : f.identifier === 'motor_claim:Incident_Type'
              ? { ...f, isRequired: false }
              : f,
        ),
      [
        {
          kind: 'required_changed',
          identifier: 'motor_claim:Incident_Type',
          before: true,
          after: false,
          breaking: false,
        },
        {
          kind: 'required_changed',
          identifier: 'motor_claim:Driver_Name',
          before: false,
          after: true,
          breaking: true,
        },
      ],
    ],
    [
      'a list value added (compatible) and one removed (breaking)',
      (fields) =>
        fields.map((f) =>
          f.identifier === 'motor_claim:Incident_Type'
            ? { ...f, listSource: ['Collision', 'Theft', 'Fire', 'Windscreen', 'Flood'] }
            : f,
        ),
      [
        {
          kind: 'list_value_removed',
          identifier: 'motor_claim:Incident_Type',
          before: 'Vandalism',
          breaking: true,
        },
        {
          kind: 'list_value_added',
          identifier: 'motor_claim:Incident_Type',
          after: 'Flood',
          breaking: false,
        },
      ],
    ],
    [
      'maxLength tightened (breaking) and loosened (compatible)',
      (fields) =>
        fields.map((f) =>
          f.identifier === 'motor_claim:Vehicle_Registration'
            ? { ...f, maxLength: 8 }
            : f.identifier === 'motor_claim:Driver_Name'
              ? { ...f, maxLength: null }
              : f,
        ),
      [
        {
          kind: 'max_length_changed',
          identifier: 'motor_claim:Vehicle_Registration',
          before: 10,
          after: 8,
          breaking: true,
        },
        {
          kind: 'max_length_changed',
          identifier: 'motor_claim:Driver_Name',
          before: 100,
          after: null,
          breaking: false,
        },
      ],
    ],
    [
      'a type changed (dataType, free text to list): breaking',
      (fields) =>
        fields.map((f) =>
          f.identifier === 'motor_claim:Driver_Name'
            ? { ...f, listSource: ['A', 'B'] }
            : f.identifier === 'motor_claim:Vehicle_Registration'
              ? { ...f, dataType: 'registration' }
              : f,
        ),
      [
        {
          kind: 'type_changed',
          identifier: 'motor_claim:Vehicle_Registration',
          before: { dataType: 'string' },
          after: { dataType: 'registration' },
          breaking: true,
        },
        {
          kind: 'type_changed',
          identifier: 'motor_claim:Driver_Name',
          before: { listSource: null },
          after: { listSource: ['A', 'B'] },
          breaking: true,
        },
      ],
    ],
  ];
  for (const [name, change, expected] of cases) {
    it(name, async () => {
      changeMotor(change);
      const changes = await checkForms(client, named);
      expect(changes).toEqual(expected.map((e) => expect.objectContaining({ form: MOTOR, ...e })));
      // The --all snapshot sees the same change in each motor form (DE, FR, GB).
      expect((await checkForms(client, all)).filter((c) => c.form.startsWith('PRG-MOTOR/'))).toHaveLength(
        3 * expected.length,
      );
    });
  }

  it('a form removed (the look-up answers 404): breaking', async () => {
    const programmes = sandbox.metadata.programmes.filter(
      (p: SandboxProgramme) => p.programmeCode !== 'PRG-TRAVEL',
    );
    sandbox.seed({ programmes });
    expect(await checkForms(client, named)).toEqual([
      {
        form: TRAVEL,
        identifier: '',
        kind: 'form_removed',
        breaking: true,
        before: named.forms[TRAVEL]?.descriptors,
      },
    ]);
    expect((await checkForms(client, all)).map((c) => [c.form, c.kind])).toEqual([
      ['PRG-TRAVEL/TRAVEL-SINGLE/DE', 'form_removed'],
      ['PRG-TRAVEL/TRAVEL-SINGLE/ES', 'form_removed'],
      ['PRG-TRAVEL/TRAVEL-SINGLE/FR', 'form_removed'],
      [TRAVEL, 'form_removed'],
    ]);
  });

  it('a form added (listed by the programmes operation): compatible, seen by an --all snapshot only', async () => {
    const programmes = sandbox.metadata.programmes.map((p: SandboxProgramme) =>
      p.programmeCode === 'PRG-MOTOR'
        ? { ...p, policyTypes: p.policyTypes.map((t) => ({ ...t, countries: [...t.countries, 'IT'] })) }
        : p,
    );
    sandbox.seed({ programmes });
    expect(await checkForms(client, all)).toEqual([
      {
        form: 'PRG-MOTOR/MOTOR-COMP/IT',
        identifier: '',
        kind: 'form_added',
        breaking: false,
        after: all.forms[MOTOR]?.descriptors,
      },
    ]);
    expect(await checkForms(client, named)).toEqual([]);
  });

  it('several forms and kinds at once, in key order', async () => {
    changeMotor((fields) => fields.filter((f) => f.identifier !== 'motor_claim:Driver_Name'));
    const forms = sandbox.metadata.forms.map((f: SandboxForm) =>
      f.programmeCode === 'PRG-TRAVEL'
        ? { ...f, fields: f.fields.map((x) => ({ ...x, maxLength: 500 })) }
        : f,
    );
    sandbox.seed({ forms });
    expect(motorOnly(await checkForms(client, named)).map((c) => c.kind)).toEqual(['field_removed']);
    expect((await checkForms(client, named)).map((c) => [c.form, c.kind, c.breaking])).toEqual([
      [MOTOR, 'field_removed', true],
      // Claim_Type had no maximum: any maximum is tighter. Destination's 56 grew.
      [TRAVEL, 'max_length_changed', true],
      [TRAVEL, 'max_length_changed', false],
    ]);
  });

  it('cannot compare: a 401, a server gone, an unreadable programmes answer are errors, never []', async () => {
    const wrong = new ClaimsClient({ baseUrl: sandbox.url, accessToken: 'wrong-token', maxRetries: 0 });
    await expect(checkForms(wrong, named)).rejects.toMatchObject({ status: 401 });
    await wrong.close();
    const gone = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 't', maxRetries: 0 });
    await expect(checkForms(gone, named)).rejects.toMatchObject({ name: 'ClaimsConnectionError' });
    await gone.close();
    sandbox.seed({ programmes: [{ programmeCode: 'PRG-X', name: 'x', policyTypes: [] }] });
    // The sandbox answers a list the SDK reads; an answer of another shape:
    const odd = new ClaimsClient({
      baseUrl: sandbox.url,
      accessToken: sandbox.token,
      fetch: async (url, init) =>
        String(url).includes('/metadata/programmes')
          ? new Response('{"items":[]}', { headers: { 'content-type': 'application/json' } })
          : fetch(url, init),
    });
    await expect(checkForms(odd, all)).rejects.toThrow(
      /^Cannot list the forms from GET \/metadata\/programmes: the answer is neither/,
    );
  });

  it('refuses something that is not a snapshot, sending nothing', async () => {
    const error = await checkForms(client, { version: 1, forms: { x: {} } } as never).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as Error).message).toMatch(
      /^Invalid form snapshot: snapshot\.forms\["x"\]\.programmeCode: must be a non-empty string/,
    );
    expect(proxy.seen).toEqual([]);
  });

  it('stops starting look-ups after the first failure', async () => {
    let calls = 0;
    const failing = new ClaimsClient({
      baseUrl: sandbox.url,
      accessToken: sandbox.token,
      maxRetries: 0,
      fetch: async () => {
        calls++;
        return new Response('{"message":"down"}', {
          status: 503,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    await expect(checkForms(failing, all)).rejects.toMatchObject({ status: 503 });
    // --all: the programmes call, then at most the 4 look-ups running at once.
    expect(calls).toBeLessThanOrEqual(5);
  });
});
