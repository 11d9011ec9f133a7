/**
 * The hand-written checks of `incidents.create` (src/checks/) against the zod schemas they
 * stand in for: on any input, the same verdict, and on a valid one the same output, key order
 * and object identity of `file` items included (the body is sent as parsed). When the
 * hand-written check refuses, the call asks zod: the issues are zod's, which the last tests pin.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidExtraBody } from '../../src/checks/extra-body.js';
import { parseIncidentCreate } from '../../src/checks/incident-create.js';
import { parseIncidentCreated } from '../../src/checks/incident-created.js';
import { ClaimsClient, ClaimsResponseValidationError, ClaimsValidationError } from '../../src/index.js';
import { collectIssues } from '../../src/internal/validate.js';
import {
  extraBodySchema,
  INCIDENT_CREATE_KEYS,
  IncidentCreatedSchema,
  IncidentCreateSchema,
} from '../../src/schemas/index.js';
import { incident, uuid } from '../helpers/fixtures.js';
import { json, type RecordingServer, startRecordingServer } from '../helpers/recording-server.js';
import { extraBody, incidentBody, incidentCreatedAnswer, likelyValidIncidentBody } from './arbitraries.js';

const RUNS = { numRuns: 2000 };

/**
 * A value's structure with every object's own keys in order (what `toStrictEqual` ignores),
 * non-plain values (a `file`'s bytes, a Date) by identity.
 */
function layout(value: unknown, seen = new Set<unknown>()): unknown {
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  if (Array.isArray(value)) return ['array', value.length, ...value.map((v) => layout(v, seen))];
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  seen.add(value);
  return [
    'object',
    proto,
    ...Reflect.ownKeys(value).map((k) => [k, layout((value as Record<PropertyKey, unknown>)[k], seen)]),
  ];
}

/** The two parses agree: both refuse, or both accept with the same output, laid out alike. */
function expectSameParse(hand: unknown, zod: { success: boolean; data?: unknown }): void {
  expect(hand !== undefined, 'verdict').toBe(zod.success);
  if (!zod.success) return;
  expect(layout(hand)).toStrictEqual(layout(zod.data));
  // New objects, as zod makes them: the caller's body is not the one sent.
  expect(hand).not.toBe(zod.data);
}

describe('the hand-written incidents.create checks agree with the zod schemas', () => {
  /** Runs a parse equivalence property; returns how many inputs zod accepted. */
  function acceptedWhileAgreeing(
    inputs: fc.Arbitrary<unknown>,
    zod: { safeParse(value: unknown): { success: boolean; data?: unknown } },
    hand: (value: unknown) => unknown,
  ): number {
    let accepted = 0;
    fc.assert(
      fc.property(inputs, (input) => {
        const result = zod.safeParse(input);
        if (result.success) accepted++;
        expectSameParse(hand(input), result);
      }),
      RUNS,
    );
    return accepted;
  }

  // Each arbitrary must reach both verdicts often enough, or the property proves little.
  it('body: same verdict and output on near-valid and arbitrary bodies', () => {
    const accepted = acceptedWhileAgreeing(incidentBody, IncidentCreateSchema, parseIncidentCreate);
    expect(accepted).toBeGreaterThan(RUNS.numRuns / 20);
  });

  it('body: same verdict and output on mostly valid bodies (lists, files, extra keys)', () => {
    const accepted = acceptedWhileAgreeing(
      likelyValidIncidentBody,
      IncidentCreateSchema,
      parseIncidentCreate,
    );
    expect(accepted).toBeGreaterThan(RUNS.numRuns / 2);
  });

  it('extraBody: same verdict', () => {
    const schema = extraBodySchema(INCIDENT_CREATE_KEYS);
    fc.assert(
      fc.property(extraBody, (extra) => {
        expect(isValidExtraBody(extra, INCIDENT_CREATE_KEYS)).toBe(schema.safeParse(extra).success);
      }),
      RUNS,
    );
  });

  it('answer: same verdict and output (incidentId as a string first, the rest as sent)', () => {
    const accepted = acceptedWhileAgreeing(
      incidentCreatedAnswer,
      IncidentCreatedSchema,
      parseIncidentCreated,
    );
    expect(accepted).toBeGreaterThan(RUNS.numRuns / 10);
  });

  it.each([
    ['a valid body', incident, true],
    [
      'fields in another order (output in the schema order)',
      {
        description: 'd',
        incidentDate: '2026-01-31',
        policyTypeCode: 'T',
        policyCountry: 'GB',
        programmeCode: 'P',
      },
      true,
    ],
    [
      'an inherited enumerable key (kept, as zod does)',
      Object.setPrototypeOf({ ...incident }, { kept: 1 }),
      true,
    ],
    [
      'an own __proto__ key (dropped, as zod does)',
      JSON.parse(
        `{"__proto__": {"x": 1}, "programmeCode": "P", "policyCountry": "GB", "policyTypeCode": "T", "incidentDate": "2026-01-31", "description": "d"}`,
      ),
      true,
    ],
    [
      'explicit undefined optional lists (kept as keys)',
      { ...incident, extendedFields: undefined, attachments: undefined },
      true,
    ],
    ['a near-typo key', { ...incident, extendedFeilds: [] }, false],
    ['a near-typo key inherited', Object.setPrototypeOf({ ...incident }, { Description: 'x' }), false],
    ['a far key', { ...incident, brokerReference: 'BR-1' }, true],
    [
      'an attachment with two sources',
      { ...incident, attachments: [{ url: 'https://x.example', file: './a' }] },
      false,
    ],
    [
      'an attachment source given as undefined beside one',
      { ...incident, attachments: [{ url: 'https://x.example', file: undefined }] },
      true,
    ],
    ['an empty upload item', { ...incident, attachments: [{ file: {} }] }, false],
    // A regex or URL parser would read these as their one string: zod wants a string.
    ['an attachmentId array holding a UUID', { ...incident, attachments: [{ attachmentId: [uuid] }] }, false],
    [
      'an attachmentId with a character before the UUID',
      { ...incident, attachments: [{ attachmentId: `x${uuid}` }] },
      false,
    ],
    [
      'an attachmentId with a character after the UUID',
      { ...incident, attachments: [{ attachmentId: `${uuid}0` }] },
      false,
    ],
    ['an attachmentId that is a UUID', { ...incident, attachments: [{ attachmentId: uuid }] }, true],
    ['a url array holding a URL', { ...incident, attachments: [{ url: ['https://x.example/a'] }] }, false],
    ['a sparse extendedFields array', { ...incident, extendedFields: new Array(1) }, false],
    ['a class instance as the body', Object.assign(new (class Body {})(), incident), true],
    ['a null-prototype body', Object.assign(Object.create(null), incident), true],
  ])('example: %s', (_what, body, valid) => {
    const zod = IncidentCreateSchema.safeParse(body);
    expect(zod.success).toBe(valid);
    expectSameParse(parseIncidentCreate(body), zod);
  });
});

describe('a refused call reports zod’s issues', () => {
  let server: RecordingServer;
  let client: ClaimsClient;
  beforeAll(async () => {
    server = await startRecordingServer();
    client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', maxRetries: 0 });
  });
  afterAll(() => server.close());

  it('body and extraBody: the issues of the zod schemas, paths and messages as users see them', async () => {
    const bodies = fc
      .tuple(incidentBody, extraBody)
      .filter(
        ([body, extra]) =>
          !(IncidentCreateSchema.safeParse(body).success && isValidExtraBody(extra, INCIDENT_CREATE_KEYS)),
      );
    await fc.assert(
      fc.asyncProperty(bodies, async ([body, extra]) => {
        const error = await client.incidents
          .create(body as never, { extraBody: extra as never })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ClaimsValidationError);
        const { issues } = collectIssues([
          ['', IncidentCreateSchema, body],
          ['extraBody', extraBodySchema(INCIDENT_CREATE_KEYS), extra],
        ]);
        expect((error as ClaimsValidationError).issues).toStrictEqual(issues);
      }),
      { numRuns: 300 },
    );
    // No claim was sent. A body whose form codes and extended fields are well-formed has those
    // checked too (one error with every problem: test/forms/client-snapshot.test.ts), so its
    // form's metadata may be read; nothing else may go out.
    expect(server.requests.filter((r) => !(r.method === 'GET' && r.path === '/metadata/incidents'))).toEqual(
      [],
    );
  });

  it.each([
    ['no incidentId', { id: 'INC-1' }, [{ path: 'incidentId', message: 'Invalid input' }]],
    ['an empty incidentId', { incidentId: '' }, [{ path: 'incidentId', message: 'must not be empty' }]],
    ['an array', [], [{ path: '', message: 'Invalid input: expected object, received array' }]],
  ])('answer with %s: the hand-written check refuses, zod names the issue', async (_what, answer, issues) => {
    server.handle((_req, res) => json(res, 201, answer));
    const error = await client.incidents.create(incident).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as ClaimsResponseValidationError).issues).toStrictEqual(issues);
    expect((error as ClaimsResponseValidationError).issues).toStrictEqual(
      collectIssues([['', IncidentCreatedSchema, answer]]).issues,
    );
  });
});
