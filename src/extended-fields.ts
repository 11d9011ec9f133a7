import { quote } from './internal/quote.js';
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

/** {@link checkExtendedFields}, keeping the array index of each problem. @internal */
export function locateExtendedFieldProblems(
  descriptors: readonly IncidentFieldDescriptor[],
  extendedFields: readonly ExtendedFieldValue[],
): LocatedProblem[] {
  const known = indexDescriptors(descriptors);
  const firstIndex = new Map<string, number>();
  const located: LocatedProblem[] = [];
  extendedFields.forEach((field, index) => {
    const add = (problem: ExtendedFieldProblem) => located.push({ index, problem });
    const earlier = firstIndex.get(field.identifier);
    if (earlier === undefined) firstIndex.set(field.identifier, index);
    else add(duplicateProblem(field.identifier, known.get(field.identifier), earlier));
    const descriptor = known.get(field.identifier);
    if (descriptor === undefined) add(unknownProblem(field.identifier, descriptors));
    else for (const problem of valueProblems(descriptor, field.value)) add(problem);
  });
  for (const descriptor of requiredExtendedFields(descriptors)) {
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

/** The first descriptor per identifier: a repeated one in the metadata should not shadow it. */
function indexDescriptors(
  descriptors: readonly IncidentFieldDescriptor[],
): Map<string, IncidentFieldDescriptor> {
  const known = new Map<string, IncidentFieldDescriptor>();
  for (const d of descriptors) if (!known.has(d.identifier)) known.set(d.identifier, d);
  return known;
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
function valueProblems(descriptor: IncidentFieldDescriptor, value: string): ExtendedFieldProblem[] {
  const identifier = descriptor.identifier;
  const label = fieldLabel(descriptor);
  if (!targetsExtendedFields(descriptor)) {
    // The value belongs elsewhere in the body, so its list and length rules are moot here.
    const message = `${label} is not an extended field: its metadata maps it to "${descriptor.mapsTo}"; send it there instead of in extendedFields`;
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
  if (list !== null && list !== undefined && !list.includes(value)) {
    problems.push({ identifier, code: Codes.NotInList, message: notInListMessage(label, list, value) });
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

function notInListMessage(label: string, list: readonly string[], value: string): string {
  if (list.length === 0)
    return `${label} has no allowed values (its listSource is empty); got ${quote(value)}`;
  const shown = list.slice(0, MAX_LISTED_VALUES).join(', ');
  const rest = list.length > MAX_LISTED_VALUES ? ` … and ${list.length - MAX_LISTED_VALUES} more` : '';
  const near = list.find((entry) => entry.trim().toLowerCase() === value.trim().toLowerCase());
  const hint =
    near !== undefined
      ? `; did you mean "${near}"? (values must match exactly, including case)`
      : isBlank(value)
        ? '; leave the field out of extendedFields when it has no value'
        : '';
  return `${label} must be one of: ${shown}${rest}; got ${quote(value)}${hint}`;
}

function absentProblem(descriptor: IncidentFieldDescriptor): ExtendedFieldProblem {
  return {
    identifier: descriptor.identifier,
    code: Codes.RequiredMissing,
    message: `${fieldLabel(descriptor)} is required but missing (identifier "${descriptor.identifier}")`,
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

function unknownProblem(
  identifier: string,
  descriptors: readonly IncidentFieldDescriptor[],
): ExtendedFieldProblem {
  const { close, nearest } = closestDescriptor(identifier, descriptors);
  const hint = close
    ? `; did you mean ${suggestionLabel(close)}?`
    : nearest
      ? `; this form has no such field (the nearest is ${suggestionLabel(nearest)})`
      : '; this form has no fields';
  return {
    identifier,
    code: Codes.UnknownIdentifier,
    message: `unknown identifier ${quote(identifier)}${hint}`,
  };
}

/** How a person finds the field on screen: `"Cause of loss" (section "Incident details")`. */
function fieldLabel(descriptor: IncidentFieldDescriptor): string {
  const name = descriptor.name?.trim() ? descriptor.name : descriptor.identifier;
  return descriptor.section?.trim() ? `"${name}" (section "${descriptor.section}")` : `"${name}"`;
}

/** `"claim_form:Cause_Of_Loss" ("Cause of loss", section "Incident details")`, parts as known. */
function suggestionLabel(descriptor: IncidentFieldDescriptor): string {
  const parts: string[] = [];
  if (descriptor.name?.trim()) parts.push(`"${descriptor.name}"`);
  if (descriptor.section?.trim()) parts.push(`section "${descriptor.section}"`);
  return parts.length > 0 ? `"${descriptor.identifier}" (${parts.join(', ')})` : `"${descriptor.identifier}"`;
}

/**
 * The known field closest to a mistyped identifier, or `undefined` when none is close.
 * Compares case-insensitively both whole identifiers and the field parts after `:`, so a
 * typo in either part, a wrong form prefix, or a missing prefix is still recognised.
 * e.g. `claim_form:cause_of_los`, `clam_form:Cause_Of_Loss`, `other:Cause_Of_Loss` and
 * `Cause of loss` all suggest `claim_form:Cause_Of_Loss`.
 * Ties go to the earlier descriptor, so the answer is stable.
 */
function closestDescriptor(
  identifier: string,
  descriptors: readonly IncidentFieldDescriptor[],
): { close: IncidentFieldDescriptor | undefined; nearest: IncidentFieldDescriptor | undefined } {
  const wanted = identifier.toLowerCase();
  const wantedField = fieldPart(wanted);
  let close: IncidentFieldDescriptor | undefined;
  let closeDistance = Number.POSITIVE_INFINITY;
  let nearest: IncidentFieldDescriptor | undefined;
  let nearestDistance = Number.POSITIVE_INFINITY;
  for (const descriptor of descriptors) {
    const candidate = descriptor.identifier.toLowerCase();
    const candidateField = fieldPart(candidate);
    const whole = editDistance(wanted, candidate);
    const field = editDistance(wantedField, candidateField);
    const distance = Math.min(
      // The field part sets the tolerance for both: a shared form prefix must not make
      // "f:Name" close to "f:Date".
      whole <= threshold(candidateField) ? whole : Number.POSITIVE_INFINITY,
      field <= threshold(candidateField) ? field : Number.POSITIVE_INFINITY,
    );
    if (distance < closeDistance) {
      close = descriptor;
      closeDistance = distance;
    }
    const raw = Math.min(whole, field);
    if (raw < nearestDistance) {
      nearest = descriptor;
      nearestDistance = raw;
    }
  }
  return { close, nearest };
}

/** The part after the first `:` (identifiers have the form `<form_name>:<Field_Name>`). */
function fieldPart(identifier: string): string {
  // No `:` gives -1, so the slice from 0: the whole identifier.
  return identifier.slice(identifier.indexOf(':') + 1);
}

/**
 * How many edits still count as "close": a third of the length, at least one. Short names
 * thus need a near-exact match ("Date" is not a typo of "Name"), long ones forgive more.
 * Also the tolerance of the near-typo check on request body keys (`isActve` → `isActive`).
 */
export function threshold(target: string): number {
  return Math.max(1, Math.floor(target.length / 3));
}

/**
 * Damerau–Levenshtein distance (optimal string alignment): insertions, deletions,
 * substitutions and swaps of two neighbours each cost one. Identifiers are short, so the
 * full table is cheap.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  // Stryker disable next-line EqualityOperator: one row past the table reads 0 and writes nowhere (`at`, `setAt`), and the answer is read from inside it
  for (let i = 1; i < rows; i++) {
    // Stryker disable next-line EqualityOperator: one column past the table reads 0 and writes nowhere, as above
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(d, i - 1, j) + 1, at(d, i, j - 1) + 1, at(d, i - 1, j - 1) + cost);
      // A swap of two neighbours; in the first row or column `a[-1]` or `b[-1]` is undefined, so none is found.
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, at(d, i - 2, j - 2) + 1);
      }
      setAt(d, i, j, value);
    }
  }
  return at(d, a.length, b.length);
}

// With noUncheckedIndexedAccess a table read is `number | undefined`; these keep the maths readable.
function at(table: number[][], i: number, j: number): number {
  // Stryker disable next-line OptionalChaining: every read is inside the table
  return table[i]?.[j] ?? 0;
}

function setAt(table: number[][], i: number, j: number, value: number): void {
  const row = table[i];
  // Stryker disable next-line ConditionalExpression: every write is inside the table
  if (row) row[j] = value;
}
