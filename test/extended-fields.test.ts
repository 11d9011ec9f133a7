import { describe, expect, it } from 'vitest';
import { editDistance } from '../src/checks/suggest.js';
import {
  checkExtendedFields,
  type ExtendedFieldProblem,
  ExtendedFieldProblemCodes,
  type ExtendedFieldValue,
  extendedFieldsFrom,
  type IncidentFieldDescriptor,
  requiredExtendedFields,
} from '../src/index.js';
import { causeOfLoss, policeReference } from './helpers/fixtures.js';

// A form with every kind of descriptor the spec allows, including nulls and absent fields.
const cause: IncidentFieldDescriptor = causeOfLoss;
const policeRef: IncidentFieldDescriptor = policeReference;
/** Only an identifier and a name: free entry, no maximum, not required, no section. */
const notes: IncidentFieldDescriptor = { identifier: 'claim_form:Notes', name: 'Notes' };
const colours = Array.from({ length: 25 }, (_, i) => `Colour${i + 1}`);
const colour: IncidentFieldDescriptor = {
  identifier: 'claim_form:Vehicle_Colour',
  mapsTo: 'extendedFields',
  name: 'Vehicle colour',
  section: 'Vehicle',
  isRequired: false,
  listSource: colours,
};
const policyNumber: IncidentFieldDescriptor = {
  identifier: 'claim_form:Policy_Number',
  mapsTo: 'policyNumber',
  name: 'Policy number',
  section: 'Policy',
  isRequired: true,
  maxLength: 3,
};
const form = [cause, policeRef, notes, colour, policyNumber];

const CAUSE = '"Cause of loss" (section "Incident details")';
const POLICE = '"Police reference" (section "Third parties")';
const fireOk = { identifier: cause.identifier, value: 'Fire' };
const C = ExtendedFieldProblemCodes;

interface Case {
  name: string;
  descriptors?: IncidentFieldDescriptor[];
  values: ExtendedFieldValue[];
  expected: ExtendedFieldProblem[];
}

const cases: Case[] = [
  {
    name: 'every field valid, optional ones absent',
    values: [fireOk, { identifier: policeRef.identifier, value: 'AB12' }],
    expected: [],
  },
  {
    name: 'free entry with null maxLength and null listSource takes anything',
    values: [fireOk, { identifier: notes.identifier, value: 'x'.repeat(10_000) }],
    expected: [],
  },
  {
    name: 'value not in the list names the allowed values',
    values: [{ identifier: cause.identifier, value: 'Fir' }],
    expected: [
      {
        identifier: cause.identifier,
        code: 'not_in_list',
        message: `${CAUSE} must be one of: Fire, Flood, Theft; got "Fir"`,
      },
    ],
  },
  {
    name: 'list match is case-sensitive, but a case-insensitive match is suggested',
    values: [{ identifier: cause.identifier, value: 'fire' }],
    expected: [
      {
        identifier: cause.identifier,
        code: 'not_in_list',
        message: `${CAUSE} must be one of: Fire, Flood, Theft; got "fire"; did you mean "Fire"? (values must match exactly, including case)`,
      },
    ],
  },
  {
    name: 'surrounding spaces are not trimmed, but the entry is suggested',
    values: [{ identifier: cause.identifier, value: ' Flood ' }],
    expected: [
      {
        identifier: cause.identifier,
        code: 'not_in_list',
        message: `${CAUSE} must be one of: Fire, Flood, Theft; got " Flood "; did you mean "Flood"? (values must match exactly, including case)`,
      },
    ],
  },
  {
    name: 'a long list shows the first 10 values and how many more',
    values: [fireOk, { identifier: colour.identifier, value: 'Mauve' }],
    expected: [
      {
        identifier: colour.identifier,
        code: 'not_in_list',
        message: `"Vehicle colour" (section "Vehicle") must be one of: ${colours.slice(0, 10).join(', ')} … and 15 more; got "Mauve"`,
      },
    ],
  },
  {
    name: 'a value beyond the first 10 of a long list is valid',
    values: [fireOk, { identifier: colour.identifier, value: 'Colour25' }],
    expected: [],
  },
  {
    name: 'an empty listSource allows nothing',
    descriptors: [{ identifier: 'f:Empty', name: 'Empty', listSource: [] }],
    values: [{ identifier: 'f:Empty', value: 'x' }],
    expected: [
      {
        identifier: 'f:Empty',
        code: 'not_in_list',
        message: '"Empty" has no allowed values (its listSource is empty); got "x"',
      },
    ],
  },
  {
    name: 'an empty value of a non-required list field is still checked against the list',
    values: [
      fireOk,
      { identifier: colour.identifier, value: '' },
      { identifier: policeRef.identifier, value: '   ' },
    ],
    expected: [
      {
        identifier: colour.identifier,
        code: 'not_in_list',
        message:
          '"Vehicle colour" (section "Vehicle") must be one of: Colour1, Colour2, Colour3, Colour4, Colour5, Colour6, Colour7, Colour8, Colour9, Colour10 … and 15 more; got ""; leave the field out of extendedFields when it has no value',
      },
    ],
  },
  {
    name: 'a blank value longer than maxLength is too long',
    values: [fireOk, { identifier: policeRef.identifier, value: ' '.repeat(9) }],
    expected: [
      {
        identifier: policeRef.identifier,
        code: 'too_long',
        message: `${POLICE} must be at most 8 characters; got 9`,
      },
    ],
  },
  {
    name: 'maxLength: equal is fine',
    values: [fireOk, { identifier: policeRef.identifier, value: 'ABCDEFGH' }],
    expected: [],
  },
  {
    name: 'maxLength: one more is too long',
    values: [fireOk, { identifier: policeRef.identifier, value: 'ABCDEFGHI' }],
    expected: [
      {
        identifier: policeRef.identifier,
        code: 'too_long',
        message: `${POLICE} must be at most 8 characters; got 9`,
      },
    ],
  },
  {
    name: 'maxLength counts UTF-16 units, as .NET and Java do: an emoji is two',
    values: [fireOk, { identifier: policeRef.identifier, value: '🔥'.repeat(5) }],
    expected: [
      {
        identifier: policeRef.identifier,
        code: 'too_long',
        message: `${POLICE} must be at most 8 characters; got 10`,
      },
    ],
  },
  {
    name: 'a value can be both off the list and too long',
    descriptors: [
      { identifier: 'f:Code', name: 'Code', section: 'S', maxLength: 2, listSource: ['AA', 'BB'] },
    ],
    values: [{ identifier: 'f:Code', value: 'CCC' }],
    expected: [
      {
        identifier: 'f:Code',
        code: 'not_in_list',
        message: '"Code" (section "S") must be one of: AA, BB; got "CCC"',
      },
      {
        identifier: 'f:Code',
        code: 'too_long',
        message: '"Code" (section "S") must be at most 2 characters; got 3',
      },
    ],
  },
  {
    name: 'a required field that is absent',
    values: [{ identifier: policeRef.identifier, value: 'AB12' }],
    expected: [
      {
        identifier: cause.identifier,
        code: 'required_missing',
        message: `${CAUSE} is required but missing (identifier "claim_form:Cause_Of_Loss")`,
      },
    ],
  },
  {
    name: 'a required field that is empty',
    values: [{ identifier: cause.identifier, value: '' }],
    expected: [
      {
        identifier: cause.identifier,
        code: 'required_missing',
        message: `${CAUSE} is required; got an empty value`,
      },
    ],
  },
  {
    name: 'a required field that is only whitespace',
    values: [{ identifier: cause.identifier, value: ' \t ' }],
    expected: [
      {
        identifier: cause.identifier,
        code: 'required_missing',
        message: `${CAUSE} is required; got only whitespace`,
      },
    ],
  },
  {
    name: 'isRequired absent means not required',
    descriptors: [notes],
    values: [],
    expected: [],
  },
  {
    name: 'an empty array still reports the required fields',
    values: [],
    expected: [
      {
        identifier: cause.identifier,
        code: 'required_missing',
        message: `${CAUSE} is required but missing (identifier "claim_form:Cause_Of_Loss")`,
      },
    ],
  },
  {
    name: 'unknown identifier with a typo in the field part',
    values: [fireOk, { identifier: 'claim_form:Police_Rfe', value: 'AB12' }],
    expected: [
      {
        identifier: 'claim_form:Police_Rfe',
        code: 'unknown_identifier',
        message:
          'unknown identifier "claim_form:Police_Rfe"; did you mean "claim_form:Police_Ref" ("Police reference", section "Third parties")?',
      },
    ],
  },
  {
    name: 'unknown identifier differing only in case',
    values: [{ identifier: 'claim_form:cause_of_loss', value: 'Fire' }],
    expected: [
      {
        identifier: 'claim_form:cause_of_loss',
        code: 'unknown_identifier',
        message:
          'unknown identifier "claim_form:cause_of_loss"; did you mean "claim_form:Cause_Of_Loss" ("Cause of loss", section "Incident details")?',
      },
      {
        identifier: cause.identifier,
        code: 'required_missing',
        message: `${CAUSE} is required but missing (identifier "claim_form:Cause_Of_Loss")`,
      },
    ],
  },
  {
    name: 'unknown identifier with the wrong form prefix, or none, is matched on the field part',
    values: [
      fireOk,
      { identifier: 'other_form:Police_Ref', value: 'A' },
      { identifier: 'Vehicle_Colour', value: 'Colour1' },
    ],
    expected: [
      {
        identifier: 'other_form:Police_Ref',
        code: 'unknown_identifier',
        message:
          'unknown identifier "other_form:Police_Ref"; did you mean "claim_form:Police_Ref" ("Police reference", section "Third parties")?',
      },
      {
        identifier: 'Vehicle_Colour',
        code: 'unknown_identifier',
        message:
          'unknown identifier "Vehicle_Colour"; did you mean "claim_form:Vehicle_Colour" ("Vehicle colour", section "Vehicle")?',
      },
    ],
  },
  {
    name: 'unknown identifier with nothing close, and a suggestion without name or section',
    descriptors: [{ identifier: 'f:Date' }, { identifier: 'f:Registration_Number' }],
    values: [
      { identifier: 'f:Weather', value: 'Rain' },
      { identifier: 'f:Name', value: 'x' },
      { identifier: 'f:Registraton_Numbr', value: 'x' },
    ],
    expected: [
      {
        identifier: 'f:Weather',
        code: 'unknown_identifier',
        message: 'unknown identifier "f:Weather"; this form has no such field (the nearest is "f:Date")',
      },
      {
        identifier: 'f:Name',
        code: 'unknown_identifier',
        message: 'unknown identifier "f:Name"; this form has no such field (the nearest is "f:Date")',
      },
      {
        identifier: 'f:Registraton_Numbr',
        code: 'unknown_identifier',
        message: 'unknown identifier "f:Registraton_Numbr"; did you mean "f:Registration_Number"?',
      },
    ],
  },
  {
    name: 'a duplicate identifier is reported on the later occurrence, whose value is still checked',
    values: [fireOk, { identifier: cause.identifier, value: 'Hail' }],
    expected: [
      {
        identifier: cause.identifier,
        code: 'duplicate_identifier',
        message: `${CAUSE} is given more than once (first at extendedFields[0])`,
      },
      {
        identifier: cause.identifier,
        code: 'not_in_list',
        message: `${CAUSE} must be one of: Fire, Flood, Theft; got "Hail"`,
      },
    ],
  },
  {
    name: 'a duplicate unknown identifier',
    descriptors: [notes],
    values: [
      { identifier: 'x:Y', value: '1' },
      { identifier: 'x:Y', value: '2' },
    ],
    expected: [
      {
        identifier: 'x:Y',
        code: 'unknown_identifier',
        message:
          'unknown identifier "x:Y"; this form has no such field (the nearest is "claim_form:Notes" ("Notes"))',
      },
      {
        identifier: 'x:Y',
        code: 'duplicate_identifier',
        message: '"x:Y" is given more than once (first at extendedFields[0])',
      },
      {
        identifier: 'x:Y',
        code: 'unknown_identifier',
        message:
          'unknown identifier "x:Y"; this form has no such field (the nearest is "claim_form:Notes" ("Notes"))',
      },
    ],
  },
  {
    name: 'a field mapped elsewhere is wrong_target; its own rules are not applied, nor is it required',
    values: [fireOk, { identifier: policyNumber.identifier, value: 'TOO-LONG' }],
    expected: [
      {
        identifier: policyNumber.identifier,
        code: 'wrong_target',
        message:
          '"Policy number" (section "Policy") is not an extended field: its metadata maps it to "policyNumber"; send it there instead of in extendedFields',
      },
    ],
  },
  {
    name: 'mapsTo is compared ignoring case; empty mapsTo states no target',
    descriptors: [
      { identifier: 'f:A', mapsTo: 'ExtendedFields', maxLength: 1 },
      { identifier: 'f:B', mapsTo: '', isRequired: true },
    ],
    values: [{ identifier: 'f:A', value: 'ab' }],
    expected: [
      { identifier: 'f:A', code: 'too_long', message: '"f:A" must be at most 1 characters; got 2' },
      {
        identifier: 'f:B',
        code: 'required_missing',
        message: '"f:B" is required but missing (identifier "f:B")',
      },
    ],
  },
  {
    name: 'no descriptors at all: every value is unknown',
    descriptors: [],
    values: [{ identifier: 'f:A', value: 'x' }],
    expected: [
      {
        identifier: 'f:A',
        code: 'unknown_identifier',
        message: 'unknown identifier "f:A"; this form has no fields',
      },
    ],
  },
  {
    name: 'every problem at once, in array order, absent required fields last',
    values: [
      { identifier: 'claim_form:Cause_Of_Los', value: 'Fire' },
      { identifier: policeRef.identifier, value: 'ABCDEFGHIJ' },
      { identifier: colour.identifier, value: 'Red' },
      { identifier: policeRef.identifier, value: 'A1' },
      { identifier: policyNumber.identifier, value: '1' },
    ],
    expected: [
      {
        identifier: 'claim_form:Cause_Of_Los',
        code: 'unknown_identifier',
        message:
          'unknown identifier "claim_form:Cause_Of_Los"; did you mean "claim_form:Cause_Of_Loss" ("Cause of loss", section "Incident details")?',
      },
      {
        identifier: policeRef.identifier,
        code: 'too_long',
        message: `${POLICE} must be at most 8 characters; got 10`,
      },
      {
        identifier: colour.identifier,
        code: 'not_in_list',
        message: `"Vehicle colour" (section "Vehicle") must be one of: ${colours.slice(0, 10).join(', ')} … and 15 more; got "Red"`,
      },
      {
        identifier: policeRef.identifier,
        code: 'duplicate_identifier',
        message: `${POLICE} is given more than once (first at extendedFields[1])`,
      },
      {
        identifier: policyNumber.identifier,
        code: 'wrong_target',
        message:
          '"Policy number" (section "Policy") is not an extended field: its metadata maps it to "policyNumber"; send it there instead of in extendedFields',
      },
      {
        identifier: cause.identifier,
        code: 'required_missing',
        message: `${CAUSE} is required but missing (identifier "claim_form:Cause_Of_Loss")`,
      },
    ],
  },
];

describe('checkExtendedFields', () => {
  it.each(cases)('$name', ({ descriptors = form, values, expected }) => {
    expect(checkExtendedFields(descriptors, values)).toEqual(expected);
  });

  it.each([
    'claim_form:cause_of_los',
    'clam_form:Cause_Of_Loss',
    'other:Cause_Of_Loss',
    'Cause_Of_Loss',
    'Cause of loss',
  ])('suggests claim_form:Cause_Of_Loss for %s', (identifier) => {
    const [problem] = checkExtendedFields(form, [{ identifier, value: 'Fire' }]);
    expect(problem?.code).toBe('unknown_identifier');
    expect(problem?.message).toContain('did you mean "claim_form:Cause_Of_Loss"');
  });

  it('uses the first descriptor when the metadata repeats an identifier', () => {
    const descriptors = [
      { identifier: 'f:A', listSource: ['x'] },
      { identifier: 'f:A', listSource: ['y'] },
    ];
    expect(checkExtendedFields(descriptors, [{ identifier: 'f:A', value: 'x' }])).toEqual([]);
  });

  it('does not change its arguments', () => {
    const descriptors = structuredClone(form);
    const values = [{ identifier: 'claim_form:Cause_Of_Los', value: 'Fire' }];
    checkExtendedFields(descriptors, values);
    expect(descriptors).toEqual(form);
    expect(values).toEqual([{ identifier: 'claim_form:Cause_Of_Los', value: 'Fire' }]);
  });
});

describe('ExtendedFieldProblemCodes', () => {
  it('has one snake_case code per kind of problem', () => {
    expect(ExtendedFieldProblemCodes).toEqual({
      UnknownIdentifier: 'unknown_identifier',
      NotInList: 'not_in_list',
      TooLong: 'too_long',
      RequiredMissing: 'required_missing',
      DuplicateIdentifier: 'duplicate_identifier',
      WrongTarget: 'wrong_target',
    });
    const seen = new Set(cases.flatMap((c) => c.expected.map((p) => p.code)));
    expect([...seen].sort()).toEqual(Object.values(C).sort());
  });
});

describe('requiredExtendedFields', () => {
  it('lists required extended fields in metadata order, leaving out fields mapped elsewhere', () => {
    const other = { identifier: 'f:Other', isRequired: true, mapsTo: 'extendedFields' };
    expect(requiredExtendedFields([...form, other])).toEqual([cause, other]);
  });

  it('treats an absent isRequired as not required', () => {
    expect(requiredExtendedFields([notes, { identifier: 'f:X', isRequired: false }])).toEqual([]);
  });
});

describe('extendedFieldsFrom', () => {
  it('builds the array in the object order', () => {
    expect(
      extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Fire', 'claim_form:Police_Ref': 'AB12', 'a:1': '' }),
    ).toEqual([
      { identifier: 'claim_form:Cause_Of_Loss', value: 'Fire' },
      { identifier: 'claim_form:Police_Ref', value: 'AB12' },
      { identifier: 'a:1', value: '' },
    ]);
  });

  it('gives [] for an empty object, and its result passes the check when valid', () => {
    expect(extendedFieldsFrom({})).toEqual([]);
    expect(checkExtendedFields(form, extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Theft' }))).toEqual(
      [],
    );
  });
});

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['police_ref', 'police_rfe', 1], // a swap of neighbours costs one
    ['cause_of_los', 'cause_of_loss', 1],
  ])('%s → %s = %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

/**
 * The extended field checks' promises that a mutation of src/extended-fields.ts once got past:
 * a `mapsTo` of `extendedFields` in any case, a list of exactly ten values, hints against list
 * entries with spaces, blank names and sections, how close a mistyped identifier must be, ties,
 * and edit distances with swaps and empty strings.
 */
describe('hints', () => {
  const cause: IncidentFieldDescriptor = {
    identifier: 'claim_form:Cause_Of_Loss',
    name: 'Cause of loss',
    section: 'Incident',
  };
  const messages = (descriptors: IncidentFieldDescriptor[], identifier: string, value = 'x') =>
    checkExtendedFields(descriptors, [{ identifier, value }]).map((p) => p.message);

  describe('checkExtendedFields', () => {
    it('takes a mapsTo of extendedFields, in any case, as this target', () => {
      const field = { ...cause, mapsTo: 'ExtendedFields', isRequired: true, maxLength: 3 };
      expect(requiredExtendedFields([field])).toEqual([field]);
      expect(checkExtendedFields([field], [{ identifier: cause.identifier, value: 'Fire' }])).toEqual([
        {
          identifier: cause.identifier,
          code: 'too_long',
          message: '"Cause of loss" (section "Incident") must be at most 3 characters; got 4',
        },
      ]);
    });

    it('lists all of exactly ten allowed values, with no "and 0 more"', () => {
      const list = Array.from({ length: 10 }, (_, i) => `V${i}`);
      expect(messages([{ ...cause, listSource: list }], cause.identifier, 'W')).toEqual([
        `"Cause of loss" (section "Incident") must be one of: ${list.join(', ')}; got "W"`,
      ]);
    });

    it('suggests a list entry that differs only in case and surrounding spaces', () => {
      expect(messages([{ ...cause, listSource: [' Fire '] }], cause.identifier, 'fire')).toEqual([
        '"Cause of loss" (section "Incident") must be one of:  Fire ; got "fire"; did you mean " Fire "? (values must match exactly, including case)',
      ]);
    });

    it('names a field whose name and section are blank by its identifier alone', () => {
      const blank = { ...cause, name: '  ', section: ' ', isRequired: true };
      expect(messages([blank], cause.identifier, '')).toEqual([
        `"${cause.identifier}" is required; got an empty value`,
      ]);
      expect(messages([blank], 'claim_form:Cause_Of_Los')).toEqual([
        `unknown identifier "claim_form:Cause_Of_Los"; did you mean "${cause.identifier}"?`,
        `"${cause.identifier}" is required but missing (identifier "${cause.identifier}")`,
      ]);
    });

    it('suggests a field when the whole identifier is close, even with the colon lost', () => {
      // Whole: 1 edit (the colon); the field part compared is the whole, far from "Cause_Of_Loss".
      expect(messages([cause], 'claim_formCause_Of_Loss')[0]).toContain(`did you mean "${cause.identifier}"`);
      // Exactly the tolerance (4 for a 13-character field part): the colon and "oss".
      expect(messages([cause], 'claim_formCause_Of_L')[0]).toContain(`did you mean "${cause.identifier}"`);
      // The field part exactly 4 edits away ("Loss" gone) under another form's prefix.
      expect(messages([cause], 'other:Cause_Of_')[0]).toContain(`did you mean "${cause.identifier}"`);
      expect(messages([cause], 'other:Cause_O')[0]).toContain('this form has no such field (the nearest is');
    });

    it('names the earlier of two equally near fields', () => {
      const a = { identifier: 'f:Aaaa' };
      const b = { identifier: 'f:Bbbb' };
      expect(messages([a, b], 'f:Zzzzzzzz')).toEqual([
        'unknown identifier "f:Zzzzzzzz"; this form has no such field (the nearest is "f:Aaaa")',
      ]);
    });
  });

  describe('editDistance', () => {
    it.each([
      ['abc', '', 3],
      ['', 'abc', 3],
      ['ab', 'ba', 1],
      ['abcd', 'acbd', 1],
      ['ca', 'abc', 3],
      ['abc', 'acb', 1],
      ['abcdef', 'badcfe', 3],
      ['kitten', 'sitting', 3],
      ['abab', 'baba', 2],
      ['aab', 'aba', 1],
    ])('from %j to %j is %i', (a, b, distance) => {
      expect(editDistance(a, b)).toBe(distance);
    });
  });
});
