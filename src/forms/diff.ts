import { targetsExtendedFields } from '../extended-fields.js';
import type { IncidentFieldDescriptor } from '../schemas/metadata.js';
import type { FieldTypeAttributes, FormChange } from './changes.js';

type FormDescriptors = readonly IncidentFieldDescriptor[];

/** Forms by key, each its descriptors in the API's order. */
export type FormsByKey = Readonly<Record<string, FormDescriptors>>;

/**
 * Every change from `before` (a snapshot) to `after` (the live forms), forms in key order;
 * within a form, the snapshot's fields in its order (removed, renamed, changed), then the
 * fields only the live form has. Pure. Changes to a field's `name` or `section` alone are not
 * reported: a claim does not carry them.
 */
export function diffForms(before: FormsByKey, after: FormsByKey): FormChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(byCodeUnits);
  const changes: FormChange[] = [];
  for (const form of keys) {
    const old = Object.hasOwn(before, form) ? before[form] : undefined;
    const now = Object.hasOwn(after, form) ? after[form] : undefined;
    // A key comes from one side at least: when `old` is missing, `now` is there.
    if (old === undefined)
      changes.push({
        form,
        identifier: '',
        kind: 'form_added',
        breaking: false,
        after: [...(now as FormDescriptors)],
      });
    else if (now === undefined)
      changes.push({ form, identifier: '', kind: 'form_removed', breaking: true, before: [...old] });
    else changes.push(...diffFields(form, old, now));
  }
  return changes;
}

/** Code-unit order, as `Array.prototype.sort` without a comparator but explicit. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first descriptor per identifier, as the extended-field check reads a form. */
function firstByIdentifier(
  descriptors: readonly IncidentFieldDescriptor[],
): Map<string, IncidentFieldDescriptor> {
  const map = new Map<string, IncidentFieldDescriptor>();
  for (const d of descriptors) if (!map.has(d.identifier)) map.set(d.identifier, d);
  return map;
}

function diffFields(
  form: string,
  before: readonly IncidentFieldDescriptor[],
  after: readonly IncidentFieldDescriptor[],
): FormChange[] {
  const old = firstByIdentifier(before);
  const now = firstByIdentifier(after);
  const added = [...now.values()].filter((d) => !old.has(d.identifier));
  const renamedTo = new Map<string, IncidentFieldDescriptor>();
  for (const gone of old.values()) {
    if (now.has(gone.identifier)) continue;
    const label = labelOf(gone);
    const index = label === undefined ? -1 : added.findIndex((d) => labelOf(d) === label);
    if (index >= 0) renamedTo.set(gone.identifier, added.splice(index, 1)[0] as IncidentFieldDescriptor);
  }
  const changes: FormChange[] = [];
  for (const field of old.values()) {
    const live = now.get(field.identifier) ?? renamedTo.get(field.identifier);
    if (live === undefined) {
      changes.push({
        form,
        identifier: field.identifier,
        kind: 'field_removed',
        breaking: true,
        before: field,
      });
      continue;
    }
    if (live.identifier !== field.identifier) {
      changes.push({
        form,
        identifier: field.identifier,
        kind: 'field_renamed',
        breaking: true,
        before: field.identifier,
        after: live.identifier,
      });
    }
    changes.push(...propertyChanges(form, field, live));
  }
  for (const field of added) {
    const breaking = field.isRequired === true && targetsExtendedFields(field);
    changes.push({ form, identifier: field.identifier, kind: 'field_added', breaking, after: field });
  }
  return changes;
}

/**
 * Name and section together, as the spec matches a field to the screen: a field removed and
 * one added with the same label are one field renamed. No label, no match.
 */
function labelOf(d: IncidentFieldDescriptor): string | undefined {
  const name = d.name?.trim();
  return name ? JSON.stringify([name, d.section?.trim() ?? '']) : undefined;
}

/** The changes of one field present on both sides (`identifier` is the live one's). */
function propertyChanges(
  form: string,
  before: IncidentFieldDescriptor,
  after: IncidentFieldDescriptor,
): FormChange[] {
  const identifier = after.identifier;
  const changes: FormChange[] = [];
  const type = typeChange(before, after);
  if (type !== undefined) changes.push({ form, identifier, ...type });
  const wasRequired = before.isRequired === true;
  const isRequired = after.isRequired === true;
  if (wasRequired !== isRequired) {
    changes.push({
      form,
      identifier,
      kind: 'required_changed',
      breaking: isRequired,
      before: wasRequired,
      after: isRequired,
    });
  }
  const oldList = before.listSource;
  const newList = after.listSource;
  if (Array.isArray(oldList) && Array.isArray(newList)) {
    for (const value of new Set(oldList)) {
      if (!newList.includes(value))
        changes.push({ form, identifier, kind: 'list_value_removed', breaking: true, before: value });
    }
    for (const value of new Set(newList)) {
      if (!oldList.includes(value))
        changes.push({ form, identifier, kind: 'list_value_added', breaking: false, after: value });
    }
  }
  const oldMax = before.maxLength ?? null;
  const newMax = after.maxLength ?? null;
  if (oldMax !== newMax) {
    // Stryker disable next-line EqualityOperator: `<=` differs only when the two are equal, and then there is no change
    const tightened = newMax !== null && (oldMax === null || newMax < oldMax);
    changes.push({
      form,
      identifier,
      kind: 'max_length_changed',
      breaking: tightened,
      before: oldMax,
      after: newMax,
    });
  }
  return changes;
}

/**
 * A change of what kind of value the field takes: its `dataType` (absent reads `'string'`,
 * the one documented), its target (`mapsTo`, absent reads `extendedFields`), or a switch
 * between free text and a list. Breaking unless every part loosens: a list becoming free text,
 * or a field moving into `extendedFields` that is not required there.
 */
function typeChange(
  before: IncidentFieldDescriptor,
  after: IncidentFieldDescriptor,
):
  | { kind: 'type_changed'; breaking: boolean; before: FieldTypeAttributes; after: FieldTypeAttributes }
  | undefined {
  const was: FieldTypeAttributes = {};
  const is: FieldTypeAttributes = {};
  let breaking = false;
  const oldType = before.dataType ?? 'string';
  const newType = after.dataType ?? 'string';
  if (oldType !== newType) {
    was.dataType = oldType;
    is.dataType = newType;
    breaking = true;
  }
  const wasTarget = targetsExtendedFields(before);
  const isTarget = targetsExtendedFields(after);
  if (wasTarget !== isTarget) {
    was.mapsTo = before.mapsTo ?? 'extendedFields';
    is.mapsTo = after.mapsTo ?? 'extendedFields';
    // Moved out: a value sent in extendedFields is now refused. Moved in: only if required there.
    breaking ||= wasTarget || after.isRequired === true;
  }
  const wasList = Array.isArray(before.listSource);
  const isList = Array.isArray(after.listSource);
  if (wasList !== isList) {
    was.listSource = before.listSource ?? null;
    is.listSource = after.listSource ?? null;
    breaking ||= isList;
  }
  if (Object.keys(was).length === 0) return undefined;
  return { kind: 'type_changed', breaking, before: was, after: is };
}
