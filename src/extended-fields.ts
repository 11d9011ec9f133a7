import { FormIndex } from './checks/form-index.js';
import { MAX_SUGGESTION_LENGTH, SuggestionBudget } from './checks/suggest.js';
import { excerpt, quote } from './internal/quote.js';
import type { ExtendedFieldValue } from './schemas/incidents.js';
import type { IncidentFieldDescriptor } from './schemas/metadata.js';

/**
 * The kinds of problem {@link checkExtendedFields} reports, one code per kind.
 * Stable: compare `problem.code` against these rather than parsing messages.
 */
export const ExtendedFieldProblemCodes = {
  /** The identifier is not a field of the form. The message suggests a close one, if any. */
  UnknownIdentifier: 'unknown_identifier',
  /** The field has a `listSource` and the value is not one of its entries (exact match). */
  NotInList: 'not_in_list',
  /** The value has more characters than the field's `maxLength`. */
  TooLong: 'too_long',
  /** A field with `isRequired: true` is absent, or its value is empty or only whitespace. */
  RequiredMissing: 'required_missing',
  /** The identifier appears more than once; reported on every occurrence after the first. */
  DuplicateIdentifier: 'duplicate_identifier',
  /** The field's descriptor maps it to somewhere other than `extendedFields` (`mapsTo`). */
  WrongTarget: 'wrong_target',
} as const;

/** One of the {@link ExtendedFieldProblemCodes} values. */
export type ExtendedFieldProblemCode =
  (typeof ExtendedFieldProblemCodes)[keyof typeof ExtendedFieldProblemCodes];

/** One problem found by {@link checkExtendedFields}. */
export interface ExtendedFieldProblem {
  /** The identifier concerned: as sent, or the descriptor's for a missing required field. */
  identifier: string;
  /** What kind of problem; one of {@link ExtendedFieldProblemCodes}. */
  code: ExtendedFieldProblemCode;
  /** What is wrong, naming the field by its `name` and `section`, as the form shows it. */
  message: string;
}

/**
 * A problem with where it is: `index` in the `extendedFields` array, or `undefined` for a
 * required field that is absent. Internal: the public problem shape stays as documented.
 */
export interface LocatedProblem {
  index: number | undefined;
  problem: ExtendedFieldProblem;
}

/** At most this many allowed values are named in a `not_in_list` message. */
const MAX_LISTED_VALUES = 10;
/** Characters of one allowed value a `not_in_list` message shows. */
const MAX_LISTED_CHARS = 60;
const EXTENDED_FIELDS_TARGET = 'extendedfields';
const Codes = ExtendedFieldProblemCodes;

/**
 * Checks extended field values against a form's descriptors (from
 * `client.metadata.incidentFields`) and returns every problem, in the order of the values,
 * then the required fields that are absent. `[]` means valid. Pure: it sends nothing.
 *
 * Rules (see docs/extended-fields.md): identifiers and `listSource` entries match exactly
 * (case-sensitive); every value is checked against a non-null `listSource` and `maxLength`,
 * an empty one too (the spec makes no exception: leave an optional field without a value
 * out); `maxLength` counts UTF-16 code units, as JavaScript's `length` does (an emoji is
 * two); a field with `isRequired: true` must be present with a value that is not blank;
 * `isRequired` absent means not required.
 *
 * @param descriptors the form's fields, from `client.metadata.incidentFields(...)`.
 * @param extendedFields the values to check, e.g. from `extendedFieldsFrom({...})`.
 * @returns every problem, `[]` when the values are valid.
 * @example
 * const problems = checkExtendedFields(descriptors, extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Fir' }));
 * // with the sandbox's demo form (PRG-HOME / HOME-STD / GB):
 * // [{ identifier: 'claim_form:Cause_Of_Loss', code: 'not_in_list',
 * //    message: '"Cause of loss" (section "Incident") must be one of: Fire, Escape of water, Storm, Theft, Accidental damage, Subsidence; got "Fir"' }]
 */
export function checkExtendedFields(
  descriptors: readonly IncidentFieldDescriptor[],
  extendedFields: readonly ExtendedFieldValue[],
): ExtendedFieldProblem[] {
  return locateExtendedFieldProblems(descriptors, extendedFields).map((located) => located.problem);
}

/**
 * {@link checkExtendedFields}, keeping the array index of each problem. Give a
 * {@link FormIndex} to check many claims against one form: its indexes are built once.
 * @internal
 */
export function locateExtendedFieldProblems(
  form: readonly IncidentFieldDescriptor[] | FormIndex,
  extendedFields: readonly ExtendedFieldValue[],
): LocatedProblem[] {
  const index = form instanceof FormIndex ? form : new FormIndex(form);
  // One budget for every suggestion of this check: 10,000 unknown identifiers cost no more.
  const budget = new SuggestionBudget();
  const firstIndex = new Map<string, number>();
  const located: LocatedProblem[] = [];
  extendedFields.forEach((field, position) => {
    const add = (problem: ExtendedFieldProblem) => located.push({ index: position, problem });
    const descriptor = index.get(field.identifier);
    const earlier = firstIndex.get(field.identifier);
    if (earlier === undefined) firstIndex.set(field.identifier, position);
    else add(duplicateProblem(field.identifier, descriptor, earlier));
    if (descriptor === undefined) add(unknownProblem(field.identifier, index, budget));
    else for (const problem of valueProblems(index, descriptor, field.value)) add(problem);
  });
  for (const descriptor of index.required(requiredExtendedFields)) {
    if (!firstIndex.has(descriptor.identifier)) {
      located.push({ index: undefined, problem: absentProblem(descriptor) });
    }
  }
  return located;
}

/**
 * The descriptors of the fields a form requires in `extendedFields` (`isRequired: true`,
 * and `mapsTo` absent or `extendedFields`), in the metadata's order. Pure.
 *
 * @example
 * const required = requiredExtendedFields(await client.metadata.incidentFields(query));
 * for (const field of required) console.log(`${field.section} › ${field.name} (${field.identifier})`);
 */
export function requiredExtendedFields(
  descriptors: readonly IncidentFieldDescriptor[],
): IncidentFieldDescriptor[] {
  return descriptors.filter((d) => d.isRequired === true && targetsExtendedFields(d));
}

/**
 * Builds `[{ identifier, value }, ...]` from `{ identifier: value }`, in the object's order
 * (string keys keep insertion order; the identifiers always hold a `:`, so none is an
 * integer-like key that JavaScript would move to the front).
 *
 * @example
 * extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Fire', 'claim_form:Police_Ref': 'AB123' })
 * // [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Fire' }, { identifier: 'claim_form:Police_Ref', value: 'AB123' }]
 */
export function extendedFieldsFrom(values: Readonly<Record<string, string>>): ExtendedFieldValue[] {
  return Object.entries(values).map(([identifier, value]) => ({ identifier, value }));
}

/**
 * `mapsTo` absent or empty means no other target is stated. The comparison ignores case:
 * a server writing `ExtendedFields` must not make every claim fail before it is sent.
 */
export function targetsExtendedFields(descriptor: IncidentFieldDescriptor): boolean {
  const target = descriptor.mapsTo;
  return target === undefined || target === '' || target.toLowerCase() === EXTENDED_FIELDS_TARGET;
}

function isBlank(value: string): boolean {
  return value.trim() === '';
}

/** Problems with one value of a known field. */
function valueProblems(
  form: FormIndex,
  descriptor: IncidentFieldDescriptor,
  value: string,
): ExtendedFieldProblem[] {
  const identifier = descriptor.identifier;
  const label = fieldLabel(descriptor);
  if (!targetsExtendedFields(descriptor)) {
    // The value belongs elsewhere in the body, so its list and length rules are moot here.
    const message = `${label} is not an extended field: its metadata maps it to ${quote(descriptor.mapsTo)}; send it there instead of in extendedFields`;
    return [{ identifier, code: Codes.WrongTarget, message }];
  }
  if (isBlank(value) && descriptor.isRequired === true) {
    const message = `${label} is required; got ${value === '' ? 'an empty value' : 'only whitespace'}`;
    return [{ identifier, code: Codes.RequiredMissing, message }];
  }
  // The spec makes no exception for blank values: a value must be one of a non-null
  // listSource and within a non-null maxLength, whatever it is. An optional field without a
  // value is left out of extendedFields, not sent empty.
  const problems: ExtendedFieldProblem[] = [];
  const list = descriptor.listSource;
  if (list !== null && list !== undefined) {
    const entries = form.list(descriptor, list);
    if (!entries.has(value)) {
      const message = notInListMessage(label, list, value, entries.near(value));
      problems.push({ identifier, code: Codes.NotInList, message });
    }
  }
  const max = descriptor.maxLength;
  // UTF-16 units, as .NET, Java and JavaScript count a string's length (an emoji is two): the
  // spec does not say how the service counts, and a value within this count fits either way.
  if (typeof max === 'number' && value.length > max) {
    const message = `${label} must be at most ${max} characters; got ${value.length}`;
    problems.push({ identifier, code: Codes.TooLong, message });
  }
  return problems;
}

function notInListMessage(
  label: string,
  list: readonly string[],
  value: string,
  near: string | undefined,
): string {
  if (list.length === 0)
    return `${label} has no allowed values (its listSource is empty); got ${quote(value)}`;
  const shown = list
    .slice(0, MAX_LISTED_VALUES)
    .map((entry) => excerpt(entry, MAX_LISTED_CHARS))
    .join(', ');
  const rest = list.length > MAX_LISTED_VALUES ? ` … and ${list.length - MAX_LISTED_VALUES} more` : '';
  const hint =
    near !== undefined
      ? `; did you mean ${quote(near)}? (values must match exactly, including case)`
      : isBlank(value)
        ? '; leave the field out of extendedFields when it has no value'
        : '';
  return `${label} must be one of: ${shown}${rest}; got ${quote(value)}${hint}`;
}

function absentProblem(descriptor: IncidentFieldDescriptor): ExtendedFieldProblem {
  return {
    identifier: descriptor.identifier,
    code: Codes.RequiredMissing,
    message: `${fieldLabel(descriptor)} is required but missing (identifier ${quote(descriptor.identifier)})`,
  };
}

function duplicateProblem(
  identifier: string,
  descriptor: IncidentFieldDescriptor | undefined,
  firstIndex: number,
): ExtendedFieldProblem {
  const label = descriptor ? fieldLabel(descriptor) : quote(identifier);
  return {
    identifier,
    code: Codes.DuplicateIdentifier,
    message: `${label} is given more than once (first at extendedFields[${firstIndex}])`,
  };
}

function unknownProblem(identifier: string, form: FormIndex, budget: SuggestionBudget): ExtendedFieldProblem {
  const { close, nearest, search, compared } = form.closest(identifier, budget);
  const hint = close
    ? `; did you mean ${suggestionLabel(close)}?`
    : search === 'too_long'
      ? `; no suggestion for an identifier longer than ${MAX_SUGGESTION_LENGTH} characters`
      : search === 'cut'
        ? `; no close field among the ${compared} of ${form.descriptors.length} compared`
        : nearest
          ? `; this form has no such field (the nearest is ${suggestionLabel(nearest)})`
          : '; this form has no fields';
  return {
    identifier,
    code: Codes.UnknownIdentifier,
    message: `unknown identifier ${quote(identifier)}${hint}`,
  };
}

/**
 * How a person finds the field on screen: `"Cause of loss" (section "Incident details")`. The
 * server's words are quoted as any outside text is: cut, control characters escaped.
 */
function fieldLabel(descriptor: IncidentFieldDescriptor): string {
  const name = descriptor.name?.trim() ? descriptor.name : descriptor.identifier;
  return descriptor.section?.trim() ? `${quote(name)} (section ${quote(descriptor.section)})` : quote(name);
}

/** `"claim_form:Cause_Of_Loss" ("Cause of loss", section "Incident details")`, parts as known. */
function suggestionLabel(descriptor: IncidentFieldDescriptor): string {
  const parts: string[] = [];
  if (descriptor.name?.trim()) parts.push(quote(descriptor.name));
  if (descriptor.section?.trim()) parts.push(`section ${quote(descriptor.section)}`);
  const identifier = quote(descriptor.identifier);
  return parts.length > 0 ? `${identifier} (${parts.join(', ')})` : identifier;
}
