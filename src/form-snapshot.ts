import { isNonEmptyString, isObject } from './checks/objects.js';
import type { ValidationIssue } from './errors.js';
import { quote } from './internal/quote.js';
import type { IncidentFieldDescriptor, IncidentFieldsQuery } from './schemas/metadata.js';

/** The snapshot format this SDK reads and `claims forms pull` writes. */
export const FORM_SNAPSHOT_VERSION = 1;

/** One form of a {@link FormSnapshot}: its three codes and its fields as the API described them. */
export interface FormSnapshotForm {
  /** The programme code, e.g. `'PRG-HOME'`. */
  readonly programmeCode: string;
  /** The policy type code, e.g. `'HOME-STD'`. */
  readonly policyTypeCode: string;
  /** The 2-letter country code, upper case, e.g. `'GB'` (an incident's `policyCountry`). */
  readonly countryCode: string;
  /**
   * When these descriptors were read (ISO 8601, UTC). A pull that finds them unchanged keeps
   * the earlier date. Absent from a generated module's `snapshot` (no dates in generated code).
   */
  readonly pulledAt?: string;
  /** Where they were read: the API's base address, without credentials or query. Absent from a generated module. */
  readonly source?: string;
  /** The form's field descriptors, in the API's order. */
  readonly descriptors: readonly IncidentFieldDescriptor[];
}

/**
 * Incident forms as `claims forms pull` saved them (`claims-forms.json`, or a generated
 * module's `snapshot`), keyed `'<programmeCode>/<policyTypeCode>/<countryCode>'`. Give it to
 * `new ClaimsClient({ formSnapshot })` to check extended fields with no metadata look-up.
 */
export interface FormSnapshot {
  /** The format's version: `1`. */
  readonly version: typeof FORM_SNAPSHOT_VERSION;
  /**
   * `true` when pulled with `--all` (every form the programmes operation listed): then
   * `checkForms` also reports forms added since.
   */
  readonly all?: boolean;
  /** The forms by key, `'<programmeCode>/<policyTypeCode>/<countryCode>'`. */
  readonly forms: Readonly<Record<string, FormSnapshotForm>>;
}

/**
 * The key of a form in a snapshot: `'<programmeCode>/<policyTypeCode>/<COUNTRY>'`, the
 * country upper-cased (the metadata cache treats `gb` and `GB` as one form).
 */
export function formKey(query: IncidentFieldsQuery): string {
  return `${query.programmeCode}/${query.policyTypeCode}/${query.countryCode.toUpperCase()}`;
}

/** More issues than this in one snapshot are not listed one by one. */
const MAX_ISSUES = 20;
const COUNTRY = /^[A-Za-z]{2}$/;

/** A key of an object, a test of its value, and the message when the test fails. */
type Rule = readonly [key: string, test: (value: unknown) => boolean, message: string];

const STRING = 'must be a string';
const NON_EMPTY = 'must be a non-empty string';
const optionalString = (v: unknown) => v === undefined || typeof v === 'string';

const FORM_RULES: readonly Rule[] = [
  ['programmeCode', isNonEmptyString, NON_EMPTY],
  ['policyTypeCode', isNonEmptyString, NON_EMPTY],
  ['countryCode', (v) => typeof v === 'string' && COUNTRY.test(v), 'must be a 2-letter country code'],
  ['pulledAt', optionalString, STRING],
  ['source', optionalString, STRING],
];

/** The rules of `IncidentFieldDescriptorSchema` (what `metadata.incidentFields` accepts). */
const DESCRIPTOR_RULES: readonly Rule[] = [
  ['identifier', isNonEmptyString, NON_EMPTY],
  ['mapsTo', optionalString, STRING],
  ['name', optionalString, STRING],
  ['section', optionalString, STRING],
  ['dataType', optionalString, STRING],
  [
    'maxLength',
    (v) => v === undefined || v === null || (Number.isSafeInteger(v) && (v as number) >= 0),
    'must be a whole number of characters, 0 or more, or null',
  ],
  ['isRequired', (v) => v === undefined || typeof v === 'boolean', 'must be a boolean'],
  [
    'listSource',
    (v) =>
      v === undefined || v === null || (Array.isArray(v) && v.every((entry) => typeof entry === 'string')),
    'must be an array of strings, or null',
  ],
];

/**
 * What is wrong with a value given as a snapshot (`[]` when it is one), each issue with the
 * path under `path`. Written by hand, not with zod: the client checks its options when it is
 * made, synchronously, and zod loads only when needed.
 */
export function formSnapshotIssues(value: unknown, path = 'formSnapshot'): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (at: string, message: string) => issues.push({ path: at, message });
  /** Adds the failed rules' issues; true when none failed. */
  const check = (object: Record<string, unknown>, at: string, rules: readonly Rule[]) => {
    const before = issues.length;
    for (const [key, test, message] of rules) if (!test(object[key])) add(`${at}.${key}`, message);
    return issues.length === before;
  };
  if (!isObject(value)) {
    add(
      path,
      'must be a form snapshot object (`claims forms pull` writes one), e.g. { version: 1, forms: {} }',
    );
    return issues;
  }
  check(value, path, [
    [
      'version',
      (v) => v === FORM_SNAPSHOT_VERSION,
      `must be ${FORM_SNAPSHOT_VERSION}; got ${quote(value.version)} (a snapshot written by another version of the SDK: pull it again)`,
    ],
    ['all', (v) => v === undefined || typeof v === 'boolean', 'must be a boolean'],
  ]);
  const forms = value.forms;
  if (!isObject(forms)) {
    add(`${path}.forms`, 'must be an object keyed by "<programmeCode>/<policyTypeCode>/<countryCode>"');
    return issues;
  }
  for (const [key, form] of Object.entries(forms)) {
    const at = `${path}.forms[${JSON.stringify(key)}]`;
    if (!isObject(form))
      add(at, 'must be an object with programmeCode, policyTypeCode, countryCode and descriptors');
    else {
      if (check(form, at, FORM_RULES)) {
        const expected = formKey(form as unknown as IncidentFieldsQuery);
        if (key !== expected) add(at, `is keyed ${quote(key)} but its codes make ${quote(expected)}`);
      }
      if (!Array.isArray(form.descriptors)) add(`${at}.descriptors`, 'must be an array of field descriptors');
      else {
        form.descriptors.forEach((descriptor: unknown, index) => {
          const where = `${at}.descriptors[${index}]`;
          if (isObject(descriptor)) check(descriptor, where, DESCRIPTOR_RULES);
          else add(where, 'must be a field descriptor object');
        });
      }
    }
    // Stryker disable next-line ConditionalExpression: the list is cut below anyway; stopping early only saves work
    if (issues.length > MAX_ISSUES) break;
  }
  return issues.length > MAX_ISSUES
    ? [...issues.slice(0, MAX_ISSUES), { path, message: 'has more problems; only the first are listed' }]
    : issues;
}

/**
 * The descriptors of a valid snapshot by form key, copied: a change to the snapshot object
 * after the client was made does not change what it checks against.
 */
export function indexFormSnapshot(snapshot: FormSnapshot): Map<string, IncidentFieldDescriptor[]> {
  const index = new Map<string, IncidentFieldDescriptor[]>();
  for (const form of Object.values(snapshot.forms)) {
    index.set(formKey(form), structuredClone(form.descriptors) as IncidentFieldDescriptor[]);
  }
  return index;
}
