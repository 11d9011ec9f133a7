import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formKey, formSnapshotIssues, indexFormSnapshot } from '../../src/form-snapshot.js';
import {
  canonicalDescriptor,
  canonicalJson,
  canonicalSnapshot,
  descriptorsHash,
  sameDescriptors,
} from '../../src/forms/canonical.js';
import { parseSnapshot, serializeSnapshot } from '../../src/forms/snapshot-file.js';
import { ClaimsValidationError, type FormSnapshot, type IncidentFieldDescriptor } from '../../src/index.js';
import { oddSnapshot } from './odd-forms.js';

const form = (
  programmeCode: string,
  policyTypeCode: string,
  countryCode: string,
  descriptors: IncidentFieldDescriptor[] = [],
) => ({
  programmeCode,
  policyTypeCode,
  countryCode,
  descriptors,
});

describe('formKey', () => {
  it('joins the codes with / and upper-cases the country only', () => {
    expect(formKey({ programmeCode: 'prg', policyTypeCode: 'Std', countryCode: 'gb' })).toBe('prg/Std/GB');
  });
});

describe('formSnapshotIssues', () => {
  it('accepts a snapshot, with or without dates, sources, all, extra descriptor fields', () => {
    expect(formSnapshotIssues({ version: 1, forms: {} })).toEqual([]);
    expect(formSnapshotIssues(oddSnapshot())).toEqual([]);
    expect(
      formSnapshotIssues({
        version: 1,
        all: false,
        forms: {
          'P/T/GB': {
            ...form('P', 'T', 'GB', [
              { identifier: 'a:b' },
              {
                identifier: 'a:c',
                mapsTo: 'x',
                name: '',
                section: '',
                dataType: 'd',
                maxLength: 0,
                isRequired: false,
                listSource: [],
              },
              { identifier: 'a:d', maxLength: null, listSource: null, other: { any: 1 } },
            ]),
            pulledAt: '2026-11-26T00:00:00.000Z',
            source: 'https://x',
          },
          'P/T/gb': form('P', 'T', 'gb'),
        },
      }).map((i) => i.message),
    ).toEqual([`is keyed "P/T/gb" but its codes make "P/T/GB"`]);
  });

  it('names every problem by path', () => {
    expect(formSnapshotIssues(null)).toEqual([
      { path: 'formSnapshot', message: expect.stringContaining('must be a form snapshot object') },
    ]);
    expect(formSnapshotIssues([])).toHaveLength(1);
    expect(formSnapshotIssues({ version: 2, forms: [] }, 'snap')).toEqual([
      {
        path: 'snap.version',
        message: expect.stringMatching(/^must be 1; got 2 \(a snapshot written by another version/),
      },
      { path: 'snap.forms', message: expect.stringContaining('must be an object keyed by') },
    ]);
    expect(formSnapshotIssues({ version: 1, all: 'yes', forms: { a: 1 } })).toEqual([
      { path: 'formSnapshot.all', message: 'must be a boolean' },
      {
        path: 'formSnapshot.forms["a"]',
        message: expect.stringContaining('must be an object with programmeCode'),
      },
    ]);
    const bad = {
      version: 1,
      forms: {
        'x/y/z': {
          programmeCode: '',
          policyTypeCode: 3,
          countryCode: 'GBR',
          pulledAt: 1,
          source: false,
          descriptors: [
            null as never,
            { identifier: '' },
            { identifier: 'a:b', mapsTo: 1, name: 2, section: 3, dataType: 4 },
            { identifier: 'a:c', maxLength: -1, isRequired: 'yes', listSource: ['a', 1] },
            { identifier: 'a:d', maxLength: 1.5, listSource: 'a' },
            { identifier: 'a:e', maxLength: '3' },
          ],
        },
        'P/T/GB': { ...form('P', 'T', 'GB'), descriptors: {} },
      },
    };
    const at = 'formSnapshot.forms["x/y/z"]';
    expect(formSnapshotIssues(bad)).toEqual([
      { path: `${at}.programmeCode`, message: 'must be a non-empty string' },
      { path: `${at}.policyTypeCode`, message: 'must be a non-empty string' },
      { path: `${at}.countryCode`, message: 'must be a 2-letter country code' },
      { path: `${at}.pulledAt`, message: 'must be a string' },
      { path: `${at}.source`, message: 'must be a string' },
      { path: `${at}.descriptors[0]`, message: 'must be a field descriptor object' },
      { path: `${at}.descriptors[1].identifier`, message: 'must be a non-empty string' },
      { path: `${at}.descriptors[2].mapsTo`, message: 'must be a string' },
      { path: `${at}.descriptors[2].name`, message: 'must be a string' },
      { path: `${at}.descriptors[2].section`, message: 'must be a string' },
      { path: `${at}.descriptors[2].dataType`, message: 'must be a string' },
      {
        path: `${at}.descriptors[3].maxLength`,
        message: 'must be a whole number of characters, 0 or more, or null',
      },
      { path: `${at}.descriptors[3].isRequired`, message: 'must be a boolean' },
      { path: `${at}.descriptors[3].listSource`, message: 'must be an array of strings, or null' },
      {
        path: `${at}.descriptors[4].maxLength`,
        message: 'must be a whole number of characters, 0 or more, or null',
      },
      { path: `${at}.descriptors[4].listSource`, message: 'must be an array of strings, or null' },
      {
        path: `${at}.descriptors[5].maxLength`,
        message: 'must be a whole number of characters, 0 or more, or null',
      },
      { path: 'formSnapshot.forms["P/T/GB"].descriptors', message: 'must be an array of field descriptors' },
    ]);
    // A country code of one letter, a programme code missing: no key comparison on top.
    expect(formSnapshotIssues({ version: 1, forms: { k: form('P', 'T', 'G') } }).map((i) => i.path)).toEqual([
      'formSnapshot.forms["k"].countryCode',
    ]);
    // An array holding the code is not the code (a regex test would read it as "GB").
    expect(
      formSnapshotIssues({ version: 1, forms: { k: form('P', 'T', ['GB'] as never) } }).map((i) => i.path),
    ).toEqual(['formSnapshot.forms["k"].countryCode']);
    expect(formSnapshotIssues({ version: 1, forms: { k: form('', 'T', 'GB') } }).map((i) => i.path)).toEqual([
      'formSnapshot.forms["k"].programmeCode',
    ]);
    expect(formSnapshotIssues({ version: 1, forms: { k: form('P', '', 'GB') } }).map((i) => i.path)).toEqual([
      'formSnapshot.forms["k"].policyTypeCode',
    ]);
  });

  it('lists at most 20 issues, then says there are more', () => {
    const descriptors = Array.from({ length: 30 }, () => ({ identifier: '' }));
    const issues = formSnapshotIssues({ version: 1, forms: { 'P/T/GB': form('P', 'T', 'GB', descriptors) } });
    expect(issues).toHaveLength(21);
    expect(issues[20]).toEqual({
      path: 'formSnapshot',
      message: 'has more problems; only the first are listed',
    });
    const forms = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, null]));
    expect(formSnapshotIssues({ version: 1, forms })).toHaveLength(21);
    const exactly = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, null]));
    expect(formSnapshotIssues({ version: 1, forms: exactly })).toHaveLength(20);
  });
});

describe('indexFormSnapshot', () => {
  it('maps each form key to a copy of its descriptors', () => {
    const snapshot = {
      version: 1,
      forms: { 'P/T/GB': form('P', 'T', 'gb', [{ identifier: 'a:b', listSource: ['x'] }]) },
    } as FormSnapshot;
    const index = indexFormSnapshot(snapshot);
    expect([...index.keys()]).toEqual(['P/T/GB']);
    expect(index.get('P/T/GB')).toEqual([{ identifier: 'a:b', listSource: ['x'] }]);
    (snapshot.forms['P/T/GB']?.descriptors[0]?.listSource as string[] | undefined)?.push('y');
    expect(index.get('P/T/GB')).toEqual([{ identifier: 'a:b', listSource: ['x'] }]);
  });
});

describe('the snapshot file', () => {
  it('serializes forms sorted, keys in one order, the same bytes for the same content', () => {
    const a = {
      version: 1,
      forms: {
        'Z/T/GB': {
          descriptors: [{ listSource: null, identifier: 'z:a', zeta: { b: 1, a: 2 }, alpha: 1 }],
          countryCode: 'GB',
          policyTypeCode: 'T',
          programmeCode: 'Z',
        },
        'A/T/GB': { ...form('A', 'T', 'GB'), source: 'https://x', pulledAt: '2026-01-01T00:00:00.000Z' },
      },
    } as unknown as FormSnapshot;
    const text = serializeSnapshot(a);
    expect(text).toBe(
      `${JSON.stringify(
        {
          version: 1,
          forms: {
            'A/T/GB': {
              programmeCode: 'A',
              policyTypeCode: 'T',
              countryCode: 'GB',
              pulledAt: '2026-01-01T00:00:00.000Z',
              source: 'https://x',
              descriptors: [],
            },
            'Z/T/GB': {
              programmeCode: 'Z',
              policyTypeCode: 'T',
              countryCode: 'GB',
              descriptors: [{ identifier: 'z:a', listSource: null, alpha: 1, zeta: { a: 2, b: 1 } }],
            },
          },
        },
        null,
        2,
      )}\n`,
    );
    expect(serializeSnapshot(parseSnapshot(text, 'f'))).toBe(text);
    expect(serializeSnapshot({ ...a, all: true })).toContain('"version": 1,\n  "all": true,\n');
    expect(serializeSnapshot({ ...a, all: false })).not.toContain('"all"');
  });

  it('keeps a descriptor field named __proto__ as a field', () => {
    const text = serializeSnapshot(oddSnapshot());
    expect(text).toContain('"__proto__": {\n');
    const again = parseSnapshot(text, 'f');
    expect(Object.hasOwn(again.forms['ODD/T 1/GB']?.descriptors[17] ?? {}, '__proto__')).toBe(true);
    expect(serializeSnapshot(again)).toBe(text);
  });

  it('refuses a file that is not JSON, or not a snapshot, naming it', () => {
    expect(() => parseSnapshot('{', 'forms.json')).toThrow(ClaimsValidationError);
    try {
      parseSnapshot('{', 'forms.json');
    } catch (error) {
      expect((error as ClaimsValidationError).issues).toEqual([
        { path: 'forms.json', message: expect.stringMatching(/^is not JSON \(/) },
      ]);
      expect((error as Error).message).toMatch(/^Invalid form snapshot: forms\.json: is not JSON/);
    }
    try {
      parseSnapshot('{"version":1}', 'forms.json');
    } catch (error) {
      expect((error as Error).message).toBe(
        'Invalid form snapshot: forms.json.forms: must be an object keyed by "<programmeCode>/<policyTypeCode>/<countryCode>"',
      );
    }
    expect.assertions(4);
  });
});

describe('canonical forms and the descriptors hash', () => {
  it('canonicalDescriptor: the spec fields first in its order, then the others sorted, nested keys sorted', () => {
    const d = {
      z: 1,
      listSource: ['b', 'a'],
      identifier: 'x:y',
      a: { d: 1, c: [{ f: 1, e: 2 }] },
      maxLength: 3,
    };
    expect(JSON.stringify(canonicalDescriptor(d))).toBe(
      '{"identifier":"x:y","maxLength":3,"listSource":["b","a"],"a":{"c":[{"e":2,"f":1}],"d":1},"z":1}',
    );
    expect(canonicalJson(null)).toBe(null);
    expect(canonicalJson([{ b: 1, a: 2 }])).toEqual([{ a: 2, b: 1 }]);
  });

  it('sameDescriptors ignores key order only', () => {
    expect(sameDescriptors([{ identifier: 'a', name: 'n' }], [{ name: 'n', identifier: 'a' }])).toBe(true);
    expect(sameDescriptors([{ identifier: 'a' }], [{ identifier: 'a', name: 'n' }])).toBe(false);
    expect(
      sameDescriptors([{ identifier: 'a' }, { identifier: 'b' }], [{ identifier: 'b' }, { identifier: 'a' }]),
    ).toBe(false);
  });

  it('descriptorsHash: sha256 of the keys and descriptors, blind to key order, dates and sources', () => {
    const forms = {
      'A/T/GB': { ...form('A', 'T', 'GB', [{ identifier: 'a:b', name: 'n' }]), pulledAt: '1', source: 's' },
    };
    const hash = descriptorsHash(forms);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const expected = createHash('sha256')
      .update('[["A/T/GB",[{"identifier":"a:b","name":"n"}]]]')
      .digest('hex');
    expect(hash).toBe(expected);
    expect(descriptorsHash({ 'A/T/GB': { descriptors: [{ name: 'n', identifier: 'a:b' }] } })).toBe(hash);
    expect(descriptorsHash({ 'A/T/GB': { descriptors: [{ identifier: 'a:b', name: 'N' }] } })).not.toBe(hash);
    expect(descriptorsHash({ 'B/T/GB': { descriptors: [{ identifier: 'a:b', name: 'n' }] } })).not.toBe(hash);
    expect(descriptorsHash({})).toBe(descriptorsHash({}));
    expect(descriptorsHash({ 'A/T/GB': { descriptors: [] }, 'B/T/GB': { descriptors: [] } })).toBe(
      descriptorsHash({ 'B/T/GB': { descriptors: [] }, 'A/T/GB': { descriptors: [] } }),
    );
  });

  it('property: canonicalSnapshot is idempotent and keeps every value', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json, { maxKeys: 5 }), (extra) => {
        const d = { ...extra, identifier: 'a:b' };
        const once = canonicalDescriptor(d);
        expect(canonicalDescriptor(once)).toEqual(once);
        expect(JSON.stringify(canonicalDescriptor(JSON.parse(JSON.stringify(once))))).toBe(
          JSON.stringify(once),
        );
        expect(Object.keys(once).sort()).toEqual(Object.keys(JSON.parse(JSON.stringify(d))).sort());
        const snapshot = { version: 1 as const, forms: { 'A/T/GB': form('A', 'T', 'GB', [d]) } };
        expect(canonicalSnapshot(canonicalSnapshot(snapshot))).toEqual(canonicalSnapshot(snapshot));
      }),
      { numRuns: 200 },
    );
  });
});
