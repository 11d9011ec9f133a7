/**
 * Bodies and answers for the equivalence tests of the hand-written checks against zod: mostly
 * near the edge of validity (one field wrong, a key missing, a near-typo, an odd object), so
 * both verdicts come up often, and a share of arbitrary values.
 */
import fc from 'fast-check';
import { uuid } from '../helpers/fixtures.js';

/** An arbitrary JavaScript value, odd objects included. */
const oddValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.anything({ withNullPrototype: true, withMap: true, withSet: true, withDate: true, withBigInt: true }),
    fc.constantFrom(undefined, null, Number.NaN, Number.POSITIVE_INFINITY, -0, [], {}, new Date(0)),
  );

/** A value for a field: mostly a valid one, else one of its kind near the edge, or anything. */
const field = (own: fc.Arbitrary<unknown>, valid?: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: valid ? 12 : 0, arbitrary: valid ?? own },
    { weight: 3, arbitrary: own },
    { weight: 1, arbitrary: oddValue() },
    // An array of one good value: a regex or `new URL` would read it as that string.
    { weight: 1, arbitrary: (valid ?? own).map((value) => [value]) },
  );

const dates = fc.oneof(
  fc.constantFrom('2026-11-02', '2024-02-29', '2023-02-29', '2026-02-30', '2026-13-01', '2026-00-10'),
  fc.constantFrom('2026-04-31', '0000-01-01', '2026-1-1', '02/11/2026', '2026-11-02T10:00:00Z', ''),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
    )
    .map(
      ([y, m, d]) =>
        `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
    ),
  fc.string({ maxLength: 12 }),
);

const countries = fc.oneof(
  fc.constantFrom('GB', 'gb', 'Gb', 'G', 'GBR', 'G1', ' GB', 'ÉU', ''),
  fc.string({ maxLength: 3 }),
);

const nonEmptyish = fc.oneof(fc.constantFrom('PRG-HOME', 'x', '', ' '), fc.string({ maxLength: 8 }));

const urls = fc.oneof(
  fc.constantFrom(
    'https://files.example.com/a.jpg',
    'http://x.example',
    'ftp://x.example/a',
    'http://user:pw@x.example/',
    'http://user@x.example/',
    ' http://x.example',
    'http://x.example/a b',
    'http://a.example\\@b.example',
    'not a url',
    'mailto:a@b.example',
    'https://ünï.example/',
    '',
  ),
  fc.webUrl(),
  fc.string({ maxLength: 10 }),
);

const uuids = fc.oneof(
  fc.constantFrom(uuid, uuid.toUpperCase(), `${uuid}0`, uuid.slice(1), '', 'not-a-uuid'),
  fc.uuid(),
  fc.string({ maxLength: 8 }),
);

const files = fc.oneof(
  fc.constantFrom(
    './report.pdf',
    '',
    { path: './a.txt' },
    { path: '' },
    { path: 5 },
    { path: './a.txt', data: new Uint8Array(1) },
    { data: new Uint8Array([1, 2]), filename: 'a.bin' },
    { data: new Uint8Array([1, 2]) },
    { data: 'text', filename: 'a.txt' },
    { data: new Uint8Array(1), filename: 'a\nb.txt' },
    { data: new Uint8Array(1), filename: 'a.txt', contentType: 'image/jpeg' },
    { data: new Uint8Array(1), filename: 'a.txt', contentType: 'not a type' },
    {},
    null,
    5,
  ),
  fc.string({ maxLength: 6 }),
);

/** Keys a body may carry besides its documented ones: near-typos, others, odd names. */
const extraKeys = fc.oneof(
  fc.constantFrom(
    'extendedFeilds',
    'programeCode',
    'Description',
    'attachment',
    'policyCountryCode',
    'brokerReference',
    'constructor',
    'toString',
    'hasOwnProperty',
    'incidentId',
    '__proto__',
  ),
  fc.string({ maxLength: 14 }),
);

/** An object of the given entries, in the given order; `__proto__` as an own key (as JSON gives it). */
function objectOf(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * An object from a model: each key present or not, in a shuffled order, with extra keys, and
 * sometimes inheriting an enumerable key from its prototype (zod's `for...in` sees those).
 */
function looseObject(model: Record<string, fc.Arbitrary<unknown>>, required: string[]) {
  return fc
    .tuple(
      fc.record(model, { requiredKeys: required }),
      fc.array(fc.tuple(extraKeys, oddValue()), { maxLength: 2 }),
      fc.boolean(),
      fc.option(fc.dictionary(extraKeys, fc.string({ maxLength: 3 }), { maxKeys: 2 }), { freq: 8 }),
    )
    .chain(([record, extra, shuffle, inherited]) => {
      const entries = [...Object.entries(record), ...extra];
      const ordered = shuffle
        ? fc.shuffledSubarray(entries, { minLength: entries.length })
        : fc.constant(entries);
      return ordered.map((list) => {
        const own = objectOf(list);
        return inherited === null ? own : Object.setPrototypeOf(own, inherited);
      });
    });
}

const extendedFieldValue = fc.oneof(
  {
    weight: 5,
    arbitrary: looseObject({ identifier: field(nonEmptyish), value: field(fc.string({ maxLength: 4 })) }, [
      'identifier',
      'value',
    ]),
  },
  { weight: 1, arbitrary: looseObject({ identifier: field(nonEmptyish), value: field(fc.string()) }, []) },
  { weight: 1, arbitrary: oddValue() },
);

const attachmentRef = fc.oneof(
  {
    weight: 2,
    arbitrary: looseObject({ attachmentId: field(uuids), description: field(fc.string({ maxLength: 4 })) }, [
      'attachmentId',
    ]),
  },
  {
    weight: 2,
    arbitrary: looseObject({ url: field(urls), description: field(fc.string({ maxLength: 4 })) }, ['url']),
  },
  {
    weight: 2,
    arbitrary: looseObject({ file: field(files), description: field(fc.string({ maxLength: 4 })) }, ['file']),
  },
  {
    weight: 2,
    arbitrary: looseObject(
      { attachmentId: field(uuids), url: field(urls), file: field(files), description: field(fc.string()) },
      [],
    ),
  },
  { weight: 1, arbitrary: oddValue() },
);

const incidentModel = {
  programmeCode: field(nonEmptyish, fc.constantFrom('PRG-HOME', 'P')),
  policyCountry: field(countries, fc.constantFrom('GB', 'fr')),
  policyTypeCode: field(nonEmptyish, fc.constantFrom('HOME-STD', 'T')),
  incidentDate: field(dates, fc.constantFrom('2026-11-02', '2024-02-29')),
  description: field(fc.string({ maxLength: 8 })),
  extendedFields: field(fc.array(extendedFieldValue, { maxLength: 3 }), fc.constant([])),
  attachments: field(fc.array(attachmentRef, { maxLength: 3 }), fc.constant([])),
};

/** An `incidents.create` body, valid or not, or any other value. */
export const incidentBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: looseObject(incidentModel, Object.keys(incidentModel).slice(0, 5)) },
  { weight: 2, arbitrary: looseObject(incidentModel, []) },
  { weight: 1, arbitrary: oddValue() },
);

/** The same, but with every field drawn from its own kind: mostly valid bodies. */
export const likelyValidIncidentBody: fc.Arbitrary<unknown> = looseObject(
  {
    programmeCode: fc.constantFrom('PRG-HOME', 'P'),
    policyCountry: fc.constantFrom('GB', 'fr'),
    policyTypeCode: fc.constantFrom('HOME-STD', 'T'),
    incidentDate: fc.constantFrom('2026-11-02', '2024-02-29'),
    description: fc.string({ maxLength: 8 }),
    extendedFields: fc.array(
      fc.record({ identifier: fc.constantFrom('f:A', 'f:B'), value: fc.string({ maxLength: 3 }) }),
      { maxLength: 2 },
    ),
    attachments: fc.array(
      fc.oneof(
        fc.record({ attachmentId: fc.uuid() }),
        fc.record({ url: fc.webUrl(), description: fc.string({ maxLength: 3 }) }, { requiredKeys: ['url'] }),
        fc.record({ file: fc.constantFrom('./a.pdf', { data: new Uint8Array(1), filename: 'a.bin' }) }),
      ),
      { maxLength: 2 },
    ),
  },
  ['programmeCode', 'policyCountry', 'policyTypeCode', 'incidentDate', 'description'],
);

/** An `extraBody` option, valid or not. */
export const extraBody: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(extraKeys, oddValue(), { maxKeys: 3 }),
  fc.dictionary(fc.constantFrom('description', 'attachments', 'brokerReference'), fc.string(), {
    maxKeys: 2,
  }),
  fc.constantFrom(
    Object.create(null),
    Object.assign(Object.create(null), { a: 1 }),
    { [Symbol('s')]: 1 },
    Object.defineProperty({}, Symbol('hidden'), { value: 1, enumerable: false }),
    Object.defineProperty({}, 'description', { value: 1, enumerable: false }),
    Object.create({ description: 'inherited' }),
    new Date(0),
    new Map(),
    [],
    null,
    'x',
    { constructor: 5 },
    { constructor: { prototype: null } },
  ),
  oddValue(),
);

/** A 2xx answer of `incidents.create`, as the lossless JSON parser gives it, or anything. */
export const incidentCreatedAnswer: fc.Arbitrary<unknown> = fc.oneof(
  looseObject(
    {
      incidentId: field(
        fc.oneof(
          fc.constantFrom(
            'INC-1',
            '',
            '0',
            ' ',
            0,
            -1,
            1.5,
            2 ** 60,
            Number.NaN,
            Number.POSITIVE_INFINITY,
            null,
            true,
          ),
          fc.string({ maxLength: 6 }),
          fc.double(),
          fc.integer(),
        ),
      ),
      status: fc.string({ maxLength: 4 }),
    },
    ['incidentId'],
  ),
  fc.json().map((text) => JSON.parse(text) as unknown),
  oddValue(),
);
