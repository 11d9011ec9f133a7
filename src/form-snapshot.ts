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
const OPTIONAL_STRINGS = ['mapsTo', 'name', 'section', 'dataType'] as const;

/**
 * What is wrong with a value given as a snapshot (`[]` when it is one), each issue with the
 * path under `path`. Written by hand, not with zod: the client checks its options when it is
 * made, synchronously, and zod loads only when needed.
 */
export function formSnapshotIssues(value: unknown, path = 'formSnapshot'): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (at: string, message: string) => issues.push({ path: at, message });
  if (!isObject(value)) {
    add(
      path,
      'must be a form snapshot object (`claims forms pull` writes one), e.g. { version: 1, forms: {} }',
    );
    return issues;
  }
  if (value.version !== FORM_SNAPSHOT_VERSION) {
    add(
      `${path}.version`,
      `must be ${FORM_SNAPSHOT_VERSION}; got ${quote(value.version)} (a snapshot written by another version of the SDK: pull it again)`,
    );
  }
  if (value.all !== undefined && typeof value.all !== 'boolean') add(`${path}.all`, 'must be a boolean');
  if (!isObject(value.forms)) {
    add(`${path}.forms`, 'must be an object keyed by "<programmeCode>/<policyTypeCode>/<countryCode>"');
    return issues;
  }
  for (const [key, form] of Object.entries(value.forms)) {
    formIssues(form, `${path}.forms[${JSON.stringify(key)}]`, key, add);
    if (issues.length > MAX_ISSUES) break;
  }
  return issues.length > MAX_ISSUES
    ? [...issues.slice(0, MAX_ISSUES), { path, message: 'has more problems; only the first are listed' }]
    : issues;
}

function formIssues(
  form: unknown,
  path: string,
  key: string,
  add: (path: string, message: string) => void,
): void {
  if (!isObject(form)) {
    add(path, 'must be an object with programmeCode, policyTypeCode, countryCode and descriptors');
    return;
  }
  const { programmeCode, policyTypeCode, countryCode, descriptors } = form;
  if (!isNonEmptyString(programmeCode)) add(`${path}.programmeCode`, 'must be a non-empty string');
  if (!isNonEmptyString(policyTypeCode)) add(`${path}.policyTypeCode`, 'must be a non-empty string');
  if (typeof countryCode !== 'string' || !COUNTRY.test(countryCode))
    add(`${path}.countryCode`, 'must be a 2-letter country code');
  else if (isNonEmptyString(programmeCode) && isNonEmptyString(policyTypeCode)) {
    const expected = formKey({ programmeCode, policyTypeCode, countryCode });
    if (key !== expected) add(path, `is keyed ${quote(key)} but its codes make ${quote(expected)}`);
  }
  for (const name of ['pulledAt', 'source'] as const) {
    if (form[name] !== undefined && typeof form[name] !== 'string')
      add(`${path}.${name}`, 'must be a string');
  }
  if (!Array.isArray(descriptors)) {
    add(`${path}.descriptors`, 'must be an array of field descriptors');
    return;
  }
  descriptors.forEach((descriptor: unknown, index) => {
    descriptorIssues(descriptor, `${path}.descriptors[${index}]`, add);
  });
}

/** The rules of `IncidentFieldDescriptorSchema` (what `metadata.incidentFields` accepts). */
function descriptorIssues(
  descriptor: unknown,
  path: string,
  add: (path: string, message: string) => void,
): void {
  if (!isObject(descriptor)) {
    add(path, 'must be a field descriptor object');
    return;
  }
  if (!isNonEmptyString(descriptor.identifier)) add(`${path}.identifier`, 'must be a non-empty string');
  for (const name of OPTIONAL_STRINGS) {
    if (descriptor[name] !== undefined && typeof descriptor[name] !== 'string')
      add(`${path}.${name}`, 'must be a string');
  }
  const { maxLength, isRequired, listSource } = descriptor;
  if (
    !(
      maxLength === undefined ||
      maxLength === null ||
      (Number.isSafeInteger(maxLength) && (maxLength as number) >= 0)
    )
  )
    add(`${path}.maxLength`, 'must be a whole number of characters, 0 or more, or null');
  if (isRequired !== undefined && typeof isRequired !== 'boolean')
    add(`${path}.isRequired`, 'must be a boolean');
  if (
    !(
      listSource === undefined ||
      listSource === null ||
      (Array.isArray(listSource) && listSource.every((entry) => typeof entry === 'string'))
    )
  )
    add(`${path}.listSource`, 'must be an array of strings, or null');
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
