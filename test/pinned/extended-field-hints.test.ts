/**
 * The extended field checks' promises that a mutation of src/extended-fields.ts once got past:
 * a `mapsTo` of `extendedFields` in any case, a list of exactly ten values, hints against list
 * entries with spaces, blank names and sections, how close a mistyped identifier must be, ties,
 * and edit distances with swaps and empty strings.
 */
import { describe, expect, it } from 'vitest';
import { editDistance } from '../../src/checks/suggest.js';
import {
  checkExtendedFields,
  type IncidentFieldDescriptor,
  requiredExtendedFields,
} from '../../src/index.js';

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
