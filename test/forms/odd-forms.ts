/**
 * Forms no real tenant should have but any may: identifiers with spaces, quotes, unicode, `:`
 * and comment terminators; list values that are TypeScript keywords, empty strings, line
 * separators, 500 entries; a form whose fields are all optional; one with no field; fields that
 * map elsewhere or repeat; descriptor fields the spec does not show (one named `__proto__`).
 * Parsed from JSON, as a snapshot file is.
 */
import type { FormSnapshot } from '../../src/index.js';

export const KEYWORDS = [
  'class',
  'default',
  'function',
  'typeof',
  'new',
  'delete',
  'void',
  'null',
  'undefined',
  'true',
  'false',
  'constructor',
  '__proto__',
];
export const MANY = Array.from({ length: 500 }, (_, i) => `Value ${String(i).padStart(3, '0')}`);

export const ODD = 'ODD/T 1/GB';
export const ALL_OPTIONAL = 'ALLOPT/T/GB';
export const EMPTY = 'EMPTY/T/GB';
export const ONLY_ELSEWHERE = 'ELSE/T/GB';

export const ID = {
  spaces: 'with space:Field Name',
  quotes: `quote"d:it's`,
  unicode: 'ünïcødé:名前 🚗',
  colons: 'a:b:c',
  comment: 'star*/:x /* y',
  keywords: 'kw:Keywords',
  blank: 'kw:Blank Allowed',
  many: 'big:Many',
  backslash: 'back\\slash:x\\u0041',
  template: 'tpl:$' + '{oops}`',
  separators: 'sep:\u2028line\u2029para',
  proto: '__proto__',
  required: 'req:Needed',
  requiredList: 'req:Pick',
  elsewhere: 'else:Mapped',
  empty: 'empty:List',
} as const;

const text = JSON.stringify({
  version: 1,
  forms: {
    [ODD]: {
      programmeCode: 'ODD',
      policyTypeCode: 'T 1',
      countryCode: 'GB',
      descriptors: [
        { identifier: ID.spaces, name: 'Name with */ and\nnewline', section: 'Sec "1"', maxLength: 5 },
        { identifier: ID.quotes, name: 'It\'s "quoted"', section: '', listSource: ['a"b', "c'd", 'e\\f'] },
        { identifier: ID.unicode, name: '名前', section: 'Ünïcødé', listSource: ['ß', '𝒜', 'é'] },
        { identifier: ID.colons, name: 'Colons', section: 'S' },
        { identifier: ID.comment, name: '*/ evil(); /*', section: '*/' },
        { identifier: ID.keywords, name: 'Keywords', section: 'S', listSource: KEYWORDS },
        { identifier: ID.blank, name: 'Blank', section: 'S', listSource: ['', ' ', 'x'] },
        { identifier: ID.many, name: 'Many', section: 'S', listSource: [...MANY, MANY[0]] },
        { identifier: ID.backslash, name: 'Backslash \\', section: 'S' },
        { identifier: ID.template, name: '$' + '{name}', section: '`' },
        {
          identifier: ID.separators,
          name: 'Line\u2028separator',
          section: 'S',
          listSource: ['\u2028', 'p\u2029'],
        },
        { identifier: ID.proto, name: 'Proto', section: 'S' },
        { identifier: ID.required, name: 'Needed', section: 'S', isRequired: true, maxLength: 3 },
        {
          identifier: ID.requiredList,
          name: 'Pick',
          section: 'S',
          isRequired: true,
          listSource: ['One', 'Two'],
        },
        { identifier: ID.elsewhere, name: 'Mapped', section: 'S', mapsTo: 'description', isRequired: true },
        { identifier: ID.empty, name: 'Nothing allowed', section: 'S', listSource: [] },
        {
          identifier: ID.colons,
          name: 'Colons again (a repeat: the first wins)',
          section: 'S',
          listSource: ['z'],
        },
        {
          identifier: 'extra:Fields',
          name: 'Extra',
          section: 'S',
          helpText: 'kept',
          nested: { b: [1, { c: null }], a: true },
          ['__proto__']: { polluted: true },
          dataType: 'date',
        },
      ],
    },
    [ALL_OPTIONAL]: {
      programmeCode: 'ALLOPT',
      policyTypeCode: 'T',
      countryCode: 'GB',
      descriptors: [
        { identifier: 'opt:A', name: 'A', section: 'S', listSource: ['x', 'y'] },
        { identifier: 'opt:B', name: 'B', section: 'S', isRequired: false },
      ],
    },
    [EMPTY]: { programmeCode: 'EMPTY', policyTypeCode: 'T', countryCode: 'GB', descriptors: [] },
    [ONLY_ELSEWHERE]: {
      programmeCode: 'ELSE',
      policyTypeCode: 'T',
      countryCode: 'GB',
      descriptors: [
        { identifier: 'else:Only', name: 'Only', section: 'S', mapsTo: 'incidentDate', isRequired: true },
      ],
    },
  },
});

/** A fresh copy each call, parsed from JSON (so `__proto__` is an own key, as in a file). */
export function oddSnapshot(): FormSnapshot {
  return JSON.parse(text) as FormSnapshot;
}
