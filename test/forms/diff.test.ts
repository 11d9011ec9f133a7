import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FormChange, verdictOf } from '../../src/forms/changes.js';
import { describeChange, describeChanges } from '../../src/forms/describe.js';
import { byCodeUnits, diffForms } from '../../src/forms/diff.js';
import type { IncidentFieldDescriptor } from '../../src/index.js';

const K = 'P/T/GB';
const cause: IncidentFieldDescriptor = {
  identifier: 'f:Cause',
  mapsTo: 'extendedFields',
  name: 'Cause',
  section: 'Incident',
  dataType: 'string',
  maxLength: null,
  isRequired: false,
  listSource: ['Fire', 'Flood'],
};
const notes: IncidentFieldDescriptor = {
  identifier: 'f:Notes',
  name: 'Notes',
  section: 'Other',
  maxLength: 20,
};
const ref: IncidentFieldDescriptor = {
  identifier: 'f:Ref',
  name: 'Reference',
  section: 'Claim',
  isRequired: true,
};

/** The changes from the base form to `after` (one form, key K). */
function changesTo(after: IncidentFieldDescriptor[], before = [cause, notes, ref]): FormChange[] {
  return diffForms({ [K]: before }, { [K]: after });
}

describe('diffForms: each kind of change, found and classed', () => {
  it('no change: []', () => {
    expect(changesTo([cause, notes, ref])).toEqual([]);
    expect(diffForms({}, {})).toEqual([]);
    // Key order, name and section alone, and absent-vs-default do not count.
    expect(
      changesTo([
        { listSource: ['Fire', 'Flood'], identifier: 'f:Cause', name: 'Cause of loss', section: 'Loss' },
        { ...notes, dataType: 'string', mapsTo: 'ExtendedFields' },
        { ...ref, listSource: null, maxLength: null },
      ]),
    ).toEqual([]);
  });

  it('field added: breaking only when required in extendedFields', () => {
    const optional = { identifier: 'f:New', name: 'New', section: 'S' };
    const required = { identifier: 'f:Must', name: 'Must', section: 'S', isRequired: true };
    const elsewhere = {
      identifier: 'f:Else',
      name: 'Else',
      section: 'S',
      isRequired: true,
      mapsTo: 'description',
    };
    expect(changesTo([cause, notes, ref, optional, required, elsewhere])).toEqual([
      { form: K, identifier: 'f:New', kind: 'field_added', breaking: false, after: optional },
      { form: K, identifier: 'f:Must', kind: 'field_added', breaking: true, after: required },
      { form: K, identifier: 'f:Else', kind: 'field_added', breaking: false, after: elsewhere },
    ]);
  });

  it('field removed: breaking', () => {
    expect(changesTo([cause, ref])).toEqual([
      { form: K, identifier: 'f:Notes', kind: 'field_removed', breaking: true, before: notes },
    ]);
  });

  it('field renamed: same name and section, new identifier; breaking; its other changes follow under the new identifier', () => {
    const renamed = { ...notes, identifier: 'f:Remarks', maxLength: 10 };
    expect(changesTo([cause, renamed, ref])).toEqual([
      {
        form: K,
        identifier: 'f:Notes',
        kind: 'field_renamed',
        breaking: true,
        before: 'f:Notes',
        after: 'f:Remarks',
      },
      { form: K, identifier: 'f:Remarks', kind: 'max_length_changed', breaking: true, before: 20, after: 10 },
    ]);
  });

  it('a new identifier with another label is a removal and an addition; a field without a name is never matched', () => {
    const other = { ...notes, identifier: 'f:Remarks', section: 'Elsewhere' };
    expect(changesTo([cause, other, ref]).map((c) => c.kind)).toEqual(['field_removed', 'field_added']);
    const unnamedBefore = { identifier: 'f:A' };
    const unnamedAfter = { identifier: 'f:B' };
    expect(changesTo([unnamedAfter], [unnamedBefore]).map((c) => c.kind)).toEqual([
      'field_removed',
      'field_added',
    ]);
    const blank = { identifier: 'f:C', name: '  ', section: 'S' };
    expect(changesTo([{ ...blank, identifier: 'f:D' }], [blank]).map((c) => c.kind)).toEqual([
      'field_removed',
      'field_added',
    ]);
  });

  it('a field kept is never paired as a rename; an unnamed removed field pairs with nothing', () => {
    const twin = { ...notes, identifier: 'f:Notes2' };
    expect(changesTo([cause, notes, ref, twin]).map((c) => [c.kind, c.identifier])).toEqual([
      ['field_added', 'f:Notes2'],
    ]);
    const unnamed = { identifier: 'f:Bare' };
    const a = { identifier: 'f:A', name: 'A' };
    const b = { identifier: 'f:B', name: 'B' };
    expect(changesTo([a, b], [unnamed]).map((c) => [c.kind, c.identifier])).toEqual([
      ['field_removed', 'f:Bare'],
      ['field_added', 'f:A'],
      ['field_added', 'f:B'],
    ]);
  });

  it('labels compare trimmed; an empty section is no section', () => {
    const spaced = { identifier: 'x:Old', name: ' Lone ', section: ' S ' };
    expect(changesTo([{ identifier: 'x:New', name: 'Lone', section: 'S' }], [spaced])[0]?.kind).toBe(
      'field_renamed',
    );
    const emptySection = { identifier: 'x:Old', name: 'Lone', section: '' };
    expect(changesTo([{ identifier: 'x:New', name: 'Lone' }], [emptySection])[0]?.kind).toBe('field_renamed');
  });

  it('renames pair one to one, in order', () => {
    const a = { identifier: 'x:A', name: 'Same', section: 'S' };
    const b = { identifier: 'x:B', name: 'Same', section: 'S' };
    const c = { identifier: 'x:C', name: 'Same', section: 'S' };
    const d = { identifier: 'x:D', name: 'Same', section: 'S' };
    expect(changesTo([c, d], [a, b])).toEqual([
      { form: K, identifier: 'x:A', kind: 'field_renamed', breaking: true, before: 'x:A', after: 'x:C' },
      { form: K, identifier: 'x:B', kind: 'field_renamed', breaking: true, before: 'x:B', after: 'x:D' },
    ]);
    // A label shared across sections does not match; a missing section matches a missing one.
    const noSection = { identifier: 'x:E', name: 'Lone' };
    expect(changesTo([{ identifier: 'x:F', name: 'Lone' }], [noSection])[0]?.kind).toBe('field_renamed');
  });

  it('required changed: breaking when it becomes required', () => {
    expect(changesTo([{ ...cause, isRequired: true }, notes, { ...ref, isRequired: false }])).toEqual([
      {
        form: K,
        identifier: 'f:Cause',
        kind: 'required_changed',
        breaking: true,
        before: false,
        after: true,
      },
      { form: K, identifier: 'f:Ref', kind: 'required_changed', breaking: false, before: true, after: false },
    ]);
    expect(
      changesTo([cause, notes, { identifier: 'f:Ref', name: 'Reference', section: 'Claim' }])[0],
    ).toMatchObject({
      kind: 'required_changed',
      before: true,
      after: false,
    });
  });

  it('list values added (compatible) and removed (breaking), each value once, order ignored', () => {
    expect(changesTo([{ ...cause, listSource: ['Storm', 'Fire', 'Storm', 'Theft'] }, notes, ref])).toEqual([
      { form: K, identifier: 'f:Cause', kind: 'list_value_removed', breaking: true, before: 'Flood' },
      { form: K, identifier: 'f:Cause', kind: 'list_value_added', breaking: false, after: 'Storm' },
      { form: K, identifier: 'f:Cause', kind: 'list_value_added', breaking: false, after: 'Theft' },
    ]);
    expect(changesTo([{ ...cause, listSource: ['Flood', 'Fire'] }, notes, ref])).toEqual([]);
  });

  it('maxLength tightened (breaking) or loosened (compatible); null means none', () => {
    const at = (maxLength: number | null | undefined, from: number | null = 20) =>
      changesTo([cause, { ...notes, maxLength }, ref], [cause, { ...notes, maxLength: from }, ref]);
    expect(at(19)).toEqual([
      { form: K, identifier: 'f:Notes', kind: 'max_length_changed', breaking: true, before: 20, after: 19 },
    ]);
    expect(at(21)[0]).toMatchObject({ breaking: false, before: 20, after: 21 });
    expect(at(null)[0]).toMatchObject({ breaking: false, before: 20, after: null });
    expect(at(undefined)[0]).toMatchObject({ breaking: false, before: 20, after: null });
    expect(at(5, null)[0]).toMatchObject({ breaking: true, before: null, after: 5 });
    expect(at(0)[0]).toMatchObject({ breaking: true, before: 20, after: 0 });
    expect(at(20)).toEqual([]);
  });

  it('type changed: dataType (breaking), free text ↔ list, mapsTo out of or into extendedFields', () => {
    expect(changesTo([{ ...cause, dataType: 'date' }, notes, ref])).toEqual([
      {
        form: K,
        identifier: 'f:Cause',
        kind: 'type_changed',
        breaking: true,
        before: { dataType: 'string' },
        after: { dataType: 'date' },
      },
    ]);
    expect(changesTo([cause, { ...notes, listSource: ['A'] }, ref])).toEqual([
      {
        form: K,
        identifier: 'f:Notes',
        kind: 'type_changed',
        breaking: true,
        before: { listSource: null },
        after: { listSource: ['A'] },
      },
    ]);
    expect(changesTo([{ ...cause, listSource: null }, notes, ref])[0]).toMatchObject({
      kind: 'type_changed',
      breaking: false,
      before: { listSource: ['Fire', 'Flood'] },
      after: { listSource: null },
    });
    expect(changesTo([cause, { ...notes, mapsTo: 'description' }, ref])[0]).toEqual({
      form: K,
      identifier: 'f:Notes',
      kind: 'type_changed',
      breaking: true,
      before: { mapsTo: 'extendedFields' },
      after: { mapsTo: 'description' },
    });
    const out = { ...notes, mapsTo: 'description' };
    expect(changesTo([cause, notes, ref], [cause, out, ref])[0]).toMatchObject({
      kind: 'type_changed',
      breaking: false,
    });
    expect(
      changesTo([cause, { ...notes, isRequired: true }, ref], [cause, out, ref]).map((c) => [
        c.kind,
        c.breaking,
      ]),
    ).toEqual([
      ['type_changed', true],
      ['required_changed', true],
    ]);
    // Every part at once, one change.
    const all = changesTo([
      { ...cause, dataType: 'number', listSource: null, mapsTo: 'incidentDate' },
      notes,
      ref,
    ]);
    expect(all).toEqual([
      {
        form: K,
        identifier: 'f:Cause',
        kind: 'type_changed',
        breaking: true,
        before: { dataType: 'string', mapsTo: 'extendedFields', listSource: ['Fire', 'Flood'] },
        after: { dataType: 'number', mapsTo: 'incidentDate', listSource: null },
      },
    ]);
  });

  it('forms added (compatible) and removed (breaking), in key order', () => {
    expect(diffForms({ 'B/T/GB': [notes], 'C/T/GB': [] }, { 'A/T/GB': [cause], 'C/T/GB': [] })).toEqual([
      { form: 'A/T/GB', identifier: '', kind: 'form_added', breaking: false, after: [cause] },
      { form: 'B/T/GB', identifier: '', kind: 'form_removed', breaking: true, before: [notes] },
    ]);
  });

  it('a repeated identifier: the first descriptor is compared, as the run-time check reads it', () => {
    const repeat = { ...notes, maxLength: 1 };
    expect(changesTo([cause, notes, ref, repeat], [cause, notes, ref])).toEqual([]);
  });

  it('changes come form by form, the snapshot order first, then additions', () => {
    const changes = diffForms(
      { 'Z/T/GB': [cause, notes], 'A/T/GB': [ref] },
      { 'Z/T/GB': [{ identifier: 'f:New' }, notes, { ...cause, isRequired: true }], 'A/T/GB': [] },
    );
    expect(changes.map((c) => `${c.form} ${c.kind} ${c.identifier}`)).toEqual([
      'A/T/GB field_removed f:Ref',
      'Z/T/GB required_changed f:Cause',
      'Z/T/GB field_added f:New',
    ]);
  });

  it('a form of one side only is looked up by own key (no prototype keys)', () => {
    expect(diffForms({}, { toString: [] })).toEqual([
      { form: 'toString', identifier: '', kind: 'form_added', breaking: false, after: [] },
    ]);
    expect(diffForms({ constructor: [] }, {})[0]?.kind).toBe('form_removed');
  });

  it('property: a form compared with itself has no change; with any other form, each side is accounted for', () => {
    const descriptor = fc.record(
      {
        identifier: fc.constantFrom('a:1', 'a:2', 'a:3', 'a:4'),
        name: fc.constantFrom('N1', 'N2', 'N3'),
        section: fc.constantFrom('S1', 'S2'),
        isRequired: fc.boolean(),
        maxLength: fc.option(fc.nat(5), { nil: null }),
        listSource: fc.option(fc.uniqueArray(fc.constantFrom('x', 'y', 'z')), { nil: null }),
        dataType: fc.constantFrom('string', 'date'),
        mapsTo: fc.constantFrom('extendedFields', 'description'),
      },
      { requiredKeys: ['identifier'] },
    );
    fc.assert(
      fc.property(fc.array(descriptor, { maxLength: 5 }), fc.array(descriptor, { maxLength: 5 }), (a, b) => {
        expect(diffForms({ [K]: a }, { [K]: a })).toEqual([]);
        const changes = diffForms({ [K]: a }, { [K]: b });
        const verdict = verdictOf(changes);
        expect(verdict === 'none').toBe(changes.length === 0);
        const ids = (list: IncidentFieldDescriptor[]) => new Set(list.map((d) => d.identifier));
        for (const gone of ids(a)) {
          if (!ids(b).has(gone))
            expect(
              changes.some(
                (c) => c.identifier === gone && ['field_removed', 'field_renamed'].includes(c.kind),
              ),
            ).toBe(true);
        }
        for (const change of changes) {
          expect(change.form).toBe(K);
          expect(describeChange(change)).not.toBe('');
        }
      }),
      { numRuns: Number(process.env.FORMS_PROPERTY_RUNS ?? 300) },
    );
  });
});

describe('verdictOf and the words of a change', () => {
  it('none, compatible only, or breaking', () => {
    expect(verdictOf([])).toBe('none');
    const compatible = changesTo([{ ...cause, listSource: ['Fire', 'Flood', 'Storm'] }, notes, ref]);
    expect(verdictOf(compatible)).toBe('compatible');
    expect(verdictOf([...compatible, ...changesTo([cause, notes])])).toBe('breaking');
  });

  it('describeChange names the field, the label and the values', () => {
    const lines = [
      ...diffForms({ 'A/T/GB': [notes] }, { 'B/T/GB': [cause, notes] }),
      ...changesTo([
        { ...cause, isRequired: true, listSource: ['Fire', 'Storm'], dataType: 'text' },
        { ...notes, identifier: 'f:Remarks', maxLength: 30 },
        { identifier: 'f:New', name: 'New' },
        { identifier: 'f:Must', name: 'Must', section: 'S', isRequired: true },
      ]),
      ...changesTo([
        { ...cause, listSource: null },
        { ...notes, maxLength: 3 },
        { ...ref, isRequired: false },
      ]),
      ...changesTo([cause, { ...notes, mapsTo: 'description', maxLength: null }]),
    ].map(describeChange);
    expect(lines).toEqual([
      'form removed (the metadata look-up answers 404)',
      'form added (2 fields)',
      '"f:Cause" type changed: dataType "string" → dataType "text"',
      '"f:Cause" is now required',
      '"f:Cause" no longer allows "Flood"',
      '"f:Cause" allows a new value: "Storm"',
      'field renamed: "f:Notes" is now "f:Remarks"',
      '"f:Remarks" maxLength loosened: 20 → 30',
      'field removed: "f:Ref" ("Reference", section "Claim")',
      'field added: "f:New" ("New"), optional',
      'field added: "f:Must" ("Must", section "S"), required',
      '"f:Cause" type changed: a list of 2 → free text',
      '"f:Notes" maxLength tightened: 20 → 3',
      '"f:Ref" is no longer required',
      '"f:Notes" type changed: mapsTo "extendedFields" → mapsTo "description"',
      '"f:Notes" maxLength loosened: 20 → none',
      'field removed: "f:Ref" ("Reference", section "Claim")',
    ]);
    expect(
      describeChange({ form: K, identifier: '', kind: 'form_added', breaking: false, after: [cause] }),
    ).toBe('form added (1 field)');
    expect(
      describeChange({
        form: K,
        identifier: 'f:X',
        kind: 'field_removed',
        breaking: true,
        before: { identifier: 'f:X' },
      }),
    ).toBe('field removed: "f:X"');
    expect(
      describeChange({
        form: K,
        identifier: 'f:X',
        kind: 'max_length_changed',
        breaking: true,
        before: null,
        after: 4,
      }),
    ).toBe('"f:X" maxLength tightened: none → 4');
  });

  it('describeChanges groups by form and totals', () => {
    expect(describeChanges([])).toBe('');
    const changes = diffForms(
      { 'A/T/GB': [cause], 'B/T/GB': [notes] },
      { 'A/T/GB': [{ ...cause, listSource: ['Fire'] }], 'B/T/GB': [{ ...notes, maxLength: 40 }] },
    );
    expect(describeChanges(changes)).toBe(
      [
        'A/T/GB',
        '  BREAKING    "f:Cause" no longer allows "Flood"',
        'B/T/GB',
        '  compatible  "f:Notes" maxLength loosened: 20 → 40',
        '2 changes in 2 forms: 1 breaking, 1 compatible',
        '',
      ].join('\n'),
    );
    expect(describeChanges(changes.slice(0, 1))).toMatch(/\n1 change in 1 form: 1 breaking, 0 compatible\n$/);
  });
});

describe('byCodeUnits', () => {
  it('orders by UTF-16 code units, stable across locales', () => {
    expect(['b', 'B', 'a', 'é', 'A', 'a'].sort(byCodeUnits)).toEqual(['A', 'B', 'a', 'a', 'b', 'é']);
    expect([byCodeUnits('a', 'b'), byCodeUnits('b', 'a'), byCodeUnits('a', 'a')]).toEqual([-1, 1, 0]);
  });
});
