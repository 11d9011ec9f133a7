import type { ExtendedFieldValue, IncidentCreate } from '../schemas/incident-types.js';
import { parseAttachmentRef } from './attachment-ref.js';
import { isoDateProblem } from './iso-date.js';
import { documentedKeys, nearTypoOf } from './near-typos.js';
import { copyUndeclaredKeys, isNonEmptyString, isObject } from './objects.js';

// Stryker disable BooleanLiteral: only the compiler reads the values (the list is the keys)
/** The documented keys of {@link IncidentCreate}, in the schema's order. */
export const INCIDENT_CREATE_KEYS = documentedKeys<IncidentCreate>({
  programmeCode: true,
  policyCountry: true,
  policyTypeCode: true,
  incidentDate: true,
  description: true,
  extendedFields: true,
  attachments: true,
});
// Stryker restore BooleanLiteral

/** `policyCountry`: two letters, any case. */
export const COUNTRY_CODE = /^[A-Za-z]{2}$/;

const DECLARED = new Set(INCIDENT_CREATE_KEYS);
// Stryker disable next-line ArrayDeclaration,StringLiteral: copying identifier and value again writes the same values in the same order
const EXTENDED_FIELD_DECLARED = new Set(['identifier', 'value']);

/**
 * `IncidentCreateSchema`'s parse, hand-written for the first call's sake (no zod to load): the
 * body exactly as zod outputs it (declared keys first, in the schema's order, then the others
 * as given; new objects and arrays), or `undefined` when zod would report any issue. Then the
 * caller asks zod, which says what is wrong. Tests pin the two to the same verdict and output.
 */
export function parseIncidentCreate(input: unknown): IncidentCreate | undefined {
  if (!isObject(input)) return undefined;
  // zod also wants a required key to be `in` the object: a key read as a string is.
  const { programmeCode, policyCountry, policyTypeCode, incidentDate, description } = input;
  if (!isNonEmptyString(programmeCode)) return undefined;
  if (typeof policyCountry !== 'string' || !COUNTRY_CODE.test(policyCountry)) return undefined;
  if (!isNonEmptyString(policyTypeCode)) return undefined;
  if (typeof incidentDate !== 'string' || isoDateProblem(incidentDate) !== undefined) return undefined;
  if (typeof description !== 'string') return undefined;
  const out: Record<string, unknown> = {
    programmeCode,
    policyCountry,
    policyTypeCode,
    incidentDate,
    description,
  };
  const { extendedFields, attachments } = input;
  if (extendedFields !== undefined) {
    const parsed = parseList(extendedFields, parseExtendedFieldValue);
    if (parsed === undefined) return undefined;
    out.extendedFields = parsed;
  } else if ('extendedFields' in input) out.extendedFields = undefined;
  if (attachments !== undefined) {
    const parsed = parseList(attachments, parseAttachmentRef);
    if (parsed === undefined) return undefined;
    out.attachments = parsed;
  } else if ('attachments' in input) out.attachments = undefined;
  copyUndeclaredKeys(input, DECLARED, out);
  // nearTypoCheck runs on zod's output, so on these keys (inherited ones included).
  for (const key of Object.keys(out))
    if (nearTypoOf(key, INCIDENT_CREATE_KEYS) !== undefined) return undefined;
  return out as unknown as IncidentCreate;
}

/** `ExtendedFieldValueSchema`'s parse, hand-written (see {@link parseIncidentCreate}). */
function parseExtendedFieldValue(input: unknown): ExtendedFieldValue | undefined {
  if (!isObject(input)) return undefined;
  const { identifier, value } = input;
  if (!isNonEmptyString(identifier) || typeof value !== 'string') return undefined;
  const out: Record<string, unknown> = { identifier, value };
  copyUndeclaredKeys(input, EXTENDED_FIELD_DECLARED, out);
  return out as unknown as ExtendedFieldValue;
}

/** A zod array's parse: a new array of the parsed items, or `undefined` if any fails. */
function parseList<T>(input: unknown, parseItem: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(input)) return undefined;
  const out: T[] = [];
  for (let i = 0; i < input.length; i++) {
    const item = parseItem(input[i]);
    if (item === undefined) return undefined;
    out.push(item);
  }
  return out;
}
