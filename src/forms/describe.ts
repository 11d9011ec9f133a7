import { quote } from '../internal/quote.js';
import type { IncidentFieldDescriptor } from '../schemas/metadata.js';
import type { FieldTypeAttributes, FormChange } from './changes.js';

/** A change in words: `field removed: "claim_form:Notes" ("Notes", section "Other")`. */
export function describeChange(change: FormChange): string {
  const field = quote(change.identifier);
  switch (change.kind) {
    case 'form_added':
      return `form added (${count(change.after)})`;
    case 'form_removed':
      return 'form removed (the metadata look-up answers 404)';
    case 'field_added':
      return `field added: ${field}${label(change.after)}${change.after?.isRequired === true ? ', required' : ', optional'}`;
    case 'field_removed':
      return `field removed: ${field}${label(change.before)}`;
    case 'field_renamed':
      return `field renamed: ${quote(change.before)} is now ${quote(change.after)}`;
    case 'required_changed':
      return `${field} is ${change.after ? 'now required' : 'no longer required'}`;
    case 'list_value_added':
      return `${field} allows a new value: ${quote(change.after)}`;
    case 'list_value_removed':
      return `${field} no longer allows ${quote(change.before)}`;
    case 'max_length_changed':
      return `${field} maxLength ${change.breaking ? 'tightened' : 'loosened'}: ${limit(change.before)} → ${limit(change.after)}`;
    case 'type_changed':
      return `${field} type changed: ${attributes(change.before)} → ${attributes(change.after)}`;
  }
}

/**
 * Every change as the CLI prints it: per form, a heading and one line a change marked
 * `BREAKING` or `compatible`, then a total. `''` when there is none.
 */
export function describeChanges(changes: readonly FormChange[]): string {
  if (changes.length === 0) return '';
  const lines: string[] = [];
  let form: string | undefined;
  for (const change of changes) {
    if (change.form !== form) {
      form = change.form;
      lines.push(form);
    }
    lines.push(`  ${change.breaking ? 'BREAKING  ' : 'compatible'}  ${describeChange(change)}`);
  }
  const breaking = changes.filter((c) => c.breaking).length;
  const forms = new Set(changes.map((c) => c.form)).size;
  lines.push(
    `${plural(changes.length, 'change')} in ${plural(forms, 'form')}: ${breaking} breaking, ${changes.length - breaking} compatible`,
  );
  return `${lines.join('\n')}\n`;
}

function label(d: IncidentFieldDescriptor | undefined): string {
  if (d?.name === undefined) return '';
  return d.section ? ` (${quote(d.name)}, section ${quote(d.section)})` : ` (${quote(d.name)})`;
}

function count(descriptors: readonly IncidentFieldDescriptor[] | undefined): string {
  return plural(descriptors?.length ?? 0, 'field');
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function limit(max: number | null | undefined): string {
  return typeof max === 'number' ? String(max) : 'none';
}

function attributes(a: FieldTypeAttributes | undefined): string {
  const parts: string[] = [];
  if (a?.dataType !== undefined) parts.push(`dataType ${quote(a.dataType)}`);
  if (a?.mapsTo !== undefined) parts.push(`mapsTo ${quote(a.mapsTo)}`);
  if (a?.listSource !== undefined)
    parts.push(a.listSource === null ? 'free text' : `a list of ${a.listSource.length}`);
  return parts.join(', ');
}
