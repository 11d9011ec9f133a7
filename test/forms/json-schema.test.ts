/**
 * The JSON Schemas: valid draft 2020-12 (ajv's strict mode compiles them), one file per form
 * named as public-api.md says, and they accept exactly what the SDK's own check accepts
 * (property-based), maxLength apart for characters beyond U+FFFF (documented).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { descriptorsHash } from '../../src/forms/canonical.js';
import {
  formJsonSchema,
  JSON_SCHEMA_MARK,
  jsonSchemaFileName,
  jsonSchemaFiles,
} from '../../src/forms/json-schema.js';
import {
  checkExtendedFields,
  extendedFieldsFrom,
  type FormSnapshotForm,
  type IncidentFieldDescriptor,
} from '../../src/index.js';
import { ID, oddSnapshot } from './odd-forms.js';

const ajv = new Ajv2020({ strict: true, allErrors: true });
// The schemas carry the form's codes under a vendor keyword: declared, so strict mode allows it.
ajv.addKeyword('x-claims-form');

const form = (descriptors: IncidentFieldDescriptor[]): FormSnapshotForm => ({
  programmeCode: 'P',
  policyTypeCode: 'T',
  countryCode: 'gb',
  descriptors,
});

describe('jsonSchemaFileName', () => {
  it('<programme>.<policyType>.<country>.json, every character outside [A-Za-z0-9_-] percent-encoded as UTF-8', () => {
    expect(
      jsonSchemaFileName({ programmeCode: 'PRG-HOME', policyTypeCode: 'HOME_STD', countryCode: 'gb' }),
    ).toBe('PRG-HOME.HOME_STD.GB.json');
    expect(jsonSchemaFileName({ programmeCode: 'A.B', policyTypeCode: '../x y', countryCode: 'GB' })).toBe(
      'A%2EB.%2E%2E%2Fx%20y.GB.json',
    );
    expect(jsonSchemaFileName({ programmeCode: 'é/\\:', policyTypeCode: '🚗%', countryCode: 'GB' })).toBe(
      '%C3%A9%2F%5C%3A.%F0%9F%9A%97%25.GB.json',
    );
  });

  it('property: names are safe file names, and different forms never share one', () => {
    const code = fc.string({ minLength: 1, maxLength: 8, unit: 'binary' });
    fc.assert(
      fc.property(code, code, code, code, (a, b, c, d) => {
        const name = jsonSchemaFileName({ programmeCode: a, policyTypeCode: b, countryCode: 'GB' });
        expect(name).toMatch(/^[A-Za-z0-9_%-]+\.[A-Za-z0-9_%-]+\.GB\.json$/);
        if (a !== c || b !== d)
          expect(jsonSchemaFileName({ programmeCode: c, policyTypeCode: d, countryCode: 'GB' })).not.toBe(
            name,
          );
      }),
    );
  });
});

describe('formJsonSchema', () => {
  it('describes the values by identifier: enum, maxLength, required (not blank), nothing else', () => {
    const descriptors: IncidentFieldDescriptor[] = [
      {
        identifier: 'f:Cause',
        name: 'Cause',
        section: 'Incident',
        listSource: ['Fire', 'Flood', 'Fire'],
        isRequired: true,
      },
      { identifier: 'f:Notes', name: ' ', maxLength: 20 },
      { identifier: 'f:Date', dataType: 'date', section: ' ' },
      { identifier: 'f:None', name: 'None', listSource: [] },
      { identifier: 'f:Else', name: 'Else', mapsTo: 'description', isRequired: true },
      { identifier: 'f:Cause', name: 'Repeat', listSource: ['x'] },
    ];
    const schema = formJsonSchema(form(descriptors));
    expect(schema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $comment: `${JSON_SCHEMA_MARK}; descriptors sha256 ${descriptorsHash({ 'P/T/GB': form(descriptors) })}. Do not edit: pull again.`,
      title: 'Extended fields of the incident form P/T/GB',
      description:
        'The values by identifier; send them as extendedFields: [{ "identifier": ..., "value": ... }]. maxLength counts code points here, UTF-16 units in the SDK.',
      type: 'object',
      properties: {
        'f:Cause': {
          type: 'string',
          title: 'Cause',
          description: 'Section "Incident". Identifier "f:Cause".',
          enum: ['Fire', 'Flood'],
          pattern: '\\S',
        },
        'f:Notes': { type: 'string', description: 'Identifier "f:Notes".', maxLength: 20 },
        'f:Date': { type: 'string', description: 'Identifier "f:Date". dataType "date".' },
        'f:None': { type: 'string', title: 'None', description: 'Identifier "f:None".', not: {} },
      },
      required: ['f:Cause'],
      additionalProperties: false,
      'x-claims-form': { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'GB' },
    });
    expect(ajv.validateSchema(schema)).toBe(true);
    const validate = ajv.compile(schema);
    expect(validate({ 'f:Cause': 'Fire' })).toBe(true);
    expect(validate({ 'f:Cause': 'fire' })).toBe(false);
    expect(validate({ 'f:Notes': 'x' })).toBe(false);
    expect(validate({ 'f:Cause': 'Fire', 'f:Notes': 'x'.repeat(21) })).toBe(false);
    expect(validate({ 'f:Cause': 'Fire', 'f:None': '' })).toBe(false);
    expect(validate({ 'f:Cause': 'Fire', 'f:Else': 'x' })).toBe(false);
    expect(validate({ 'f:Cause': 'Fire', 'f:Date': 3 })).toBe(false);
  });

  it('a required free-text field must not be blank, as the SDK reads "required"', () => {
    const validate = ajv.compile(formJsonSchema(form([{ identifier: 'f:Ref', isRequired: true }])));
    expect(validate({ 'f:Ref': 'A1' })).toBe(true);
    expect(validate({ 'f:Ref': ' \t' })).toBe(false);
    expect(validate({ 'f:Ref': '' })).toBe(false);
  });

  it('odd identifiers (one named __proto__) are properties of their own', () => {
    const schema = formJsonSchema(oddSnapshot().forms['ODD/T 1/GB'] as FormSnapshotForm);
    const properties = schema.properties as Record<string, unknown>;
    expect(Object.hasOwn(properties, '__proto__')).toBe(true);
    expect(Object.keys(properties)).toContain(ID.unicode);
    const proto = '__proto__';
    expect(JSON.parse(JSON.stringify(schema)).properties[proto]).toEqual({
      type: 'string',
      title: 'Proto',
      description: 'Section "S". Identifier "__proto__".',
    });
    const validate = ajv.compile(JSON.parse(JSON.stringify(schema)));
    expect(
      validate({ [ID.required]: 'abc', [ID.requiredList]: 'One', [ID.keywords]: 'class', [ID.blank]: '' }),
    ).toBe(true);
  });

  it('property: accepts exactly what checkExtendedFields accepts (values within the BMP)', () => {
    const values = ['A', 'b', '', ' ', 'Fire', 'x y'];
    const descriptor = fc.record(
      {
        identifier: fc.constantFrom('f:1', 'f:2', 'f:3'),
        isRequired: fc.boolean(),
        maxLength: fc.option(fc.nat(4), { nil: null }),
        listSource: fc.option(fc.uniqueArray(fc.constantFrom(...values), { maxLength: 3 }), { nil: null }),
        mapsTo: fc.constantFrom('extendedFields', 'description'),
      },
      { requiredKeys: ['identifier'] },
    );
    const input = fc.dictionary(
      fc.constantFrom('f:1', 'f:2', 'f:3', 'f:4'),
      fc.constantFrom(...values, 'toolong'),
    );
    fc.assert(
      fc.property(fc.array(descriptor, { maxLength: 5 }), input, (descriptors, given) => {
        const validate = ajv.compile(formJsonSchema(form(descriptors)));
        const sdk = checkExtendedFields(descriptors, extendedFieldsFrom(given)).length === 0;
        expect(validate(given)).toBe(sdk);
      }),
      { numRuns: Number(process.env.FORMS_PROPERTY_RUNS ?? 300) },
    );
  });
});

describe('jsonSchemaFiles', () => {
  it('one file per form, in key order, two-space JSON with a final newline', () => {
    const files = jsonSchemaFiles(oddSnapshot());
    expect([...files.keys()]).toEqual([
      'ALLOPT.T.GB.json',
      'ELSE.T.GB.json',
      'EMPTY.T.GB.json',
      'ODD.T%201.GB.json',
    ]);
    for (const text of files.values()) {
      expect(text.endsWith('}\n')).toBe(true);
      expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
      expect(ajv.validateSchema(JSON.parse(text))).toBe(true);
    }
    expect(JSON.parse(files.get('EMPTY.T.GB.json') ?? '')).toMatchObject({
      properties: {},
      required: [],
      additionalProperties: false,
    });
  });
});
