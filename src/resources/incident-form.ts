import { COUNTRY_CODE } from '../checks/incident-create.js';
import { isNonEmptyString, isObject } from '../checks/objects.js';
import type { ExtendedFieldValue } from '../schemas/incidents.js';
import type { FormFields } from './metadata.js';

/**
 * The form's codes and the extended field values of a body that failed validation, when
 * these parts are well-formed: then its extended fields can still be checked, so that one
 * error names every problem (a bad date and a bad extended field at once). `undefined` when
 * the codes or the values are malformed themselves: their own issues say so.
 */
export function checkableFormFields(body: unknown): FormFields | undefined {
  if (!isObject(body)) return undefined;
  const { programmeCode, policyTypeCode, policyCountry, extendedFields } = body;
  if (!isNonEmptyString(programmeCode) || !isNonEmptyString(policyTypeCode)) return undefined;
  if (typeof policyCountry !== 'string' || !COUNTRY_CODE.test(policyCountry)) return undefined;
  if (!Array.isArray(extendedFields) || !extendedFields.every(isExtendedFieldValue)) return undefined;
  return { programmeCode, policyTypeCode, policyCountry, extendedFields };
}

function isExtendedFieldValue(value: unknown): value is ExtendedFieldValue {
  return isObject(value) && isNonEmptyString(value.identifier) && typeof value.value === 'string';
}
