import type { IncidentFieldDescriptor } from '../schemas/metadata.js';

/** What changed, one kind per way a form can move. */
export type FormChangeKind =
  | 'form_added'
  | 'form_removed'
  | 'field_added'
  | 'field_removed'
  | 'field_renamed'
  | 'required_changed'
  | 'list_value_added'
  | 'list_value_removed'
  | 'max_length_changed'
  | 'type_changed';

/** The attributes a `type_changed` reports: only those that changed are present. */
export interface FieldTypeAttributes {
  /** The kind of value (`'string'` when the descriptor has none). */
  dataType?: string | undefined;
  /** Where the value goes in the incident body (`'extendedFields'` when the descriptor has none). */
  mapsTo?: string | undefined;
  /** `null` for free text, else the allowed values (a switch between the two only). */
  listSource?: readonly string[] | null | undefined;
}

/** One change of kind `K`; {@link FormChange} lists what `before` and `after` hold by kind. */
export interface FormChangeOf<K extends FormChangeKind, Before, After> {
  /** The form's key, `'<programmeCode>/<policyTypeCode>/<countryCode>'`. */
  form: string;
  /** The field's identifier (the live form's, for a renamed field's other changes); `''` for a whole form. */
  identifier: string;
  /** What changed. */
  kind: K;
  /** `true` when a claim built from the snapshot may now be refused. */
  breaking: boolean;
  /** The snapshot's side, when the kind has one. */
  before?: Before;
  /** The live side, when the kind has one. */
  after?: After;
}

/**
 * One difference between a snapshot and the live forms. `before` and `after` by kind:
 * `form_added` after = the new form's descriptors; `form_removed` before = the snapshot's;
 * `field_added` after = the descriptor; `field_removed` before = the descriptor;
 * `field_renamed` the old and new identifiers; `required_changed` the two `isRequired`
 * (absent = `false`); `list_value_added` after = the value; `list_value_removed` before = the
 * value; `max_length_changed` the two `maxLength` (`null` = no maximum); `type_changed` the
 * {@link FieldTypeAttributes} that changed.
 */
export type FormChange =
  | FormChangeOf<'form_added', never, IncidentFieldDescriptor[]>
  | FormChangeOf<'form_removed', IncidentFieldDescriptor[], never>
  | FormChangeOf<'field_added', never, IncidentFieldDescriptor>
  | FormChangeOf<'field_removed', IncidentFieldDescriptor, never>
  | FormChangeOf<'field_renamed', string, string>
  | FormChangeOf<'required_changed', boolean, boolean>
  | FormChangeOf<'list_value_added', never, string>
  | FormChangeOf<'list_value_removed', string, never>
  | FormChangeOf<'max_length_changed', number | null, number | null>
  | FormChangeOf<'type_changed', FieldTypeAttributes, FieldTypeAttributes>;

/** What a set of changes means for CI: none, only compatible ones, or at least one breaking. */
export type FormChangeVerdict = 'none' | 'compatible' | 'breaking';

/** The verdict of a list of changes (`claims forms check` exits 0, 3 or 1 on it). */
export function verdictOf(changes: readonly FormChange[]): FormChangeVerdict {
  if (changes.length === 0) return 'none';
  return changes.some((change) => change.breaking) ? 'breaking' : 'compatible';
}
