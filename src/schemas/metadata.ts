import * as z from 'zod/mini';
import { NonEmptyString } from './common.js';

/**
 * Which incident form to describe (spec 4.4): the three keys an incident's
 * `programmeCode`, `policyTypeCode` and `policyCountry` select.
 *
 * @example
 * const query: IncidentFieldsQuery = { programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', countryCode: 'GB' };
 */
export interface IncidentFieldsQuery {
  /** Code of the insurance programme, e.g. `'PRG-HOME'`. */
  programmeCode: string;
  /** Code of the policy type within the programme, e.g. `'HOME-STD'`. */
  policyTypeCode: string;
  /** 2-letter country code of the policy (an incident's `policyCountry`), e.g. `'GB'`; case is ignored. */
  countryCode: string;
}

export const IncidentFieldsQuerySchema = z.object({
  programmeCode: NonEmptyString,
  policyTypeCode: NonEmptyString,
  countryCode: z.string().check(z.regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code, e.g. "GB"')),
});

/**
 * One field of an incident form (spec 2.6), as `metadata.incidentFields` gives it. Fields the
 * spec does not show are kept as sent.
 */
export interface IncidentFieldDescriptor {
  /** The field's id, `<form_name>:<Field_Name>`, e.g. `'claim_form:Cause_Of_Loss'`: what an extended field value names. */
  identifier: string;
  /** Where the value goes in the incident body; absent or `'extendedFields'` for an extended field. */
  mapsTo?: string;
  /** The label the form shows, e.g. `'Cause of loss'`. */
  name?: string;
  /** The form section it is in, e.g. `'Incident'`. */
  section?: string;
  /** The kind of value, e.g. `'string'` (values are always sent as strings). */
  dataType?: string;
  /** Longest allowed value, in characters (UTF-16 units); `null` (or absent) means no stated maximum. */
  maxLength?: number | null;
  /** `true` when the form requires a value; absent means not required. */
  isRequired?: boolean;
  /** The allowed values, matched exactly; `null` (or absent) means free entry. */
  listSource?: string[] | null;
  /** Any other field the server sent. */
  [key: string]: unknown;
}

export const IncidentFieldDescriptorSchema = z.looseObject({
  identifier: NonEmptyString,
  mapsTo: z.optional(z.string()),
  name: z.optional(z.string()),
  section: z.optional(z.string()),
  dataType: z.optional(z.string()),
  maxLength: z.optional(z.nullable(z.number().check(z.int(), z.nonnegative()))),
  isRequired: z.optional(z.boolean()),
  listSource: z.optional(z.nullable(z.array(z.string()))),
}) satisfies z.ZodMiniType<IncidentFieldDescriptor>;

/** The answer of GET `/metadata/incidents`. */
export const IncidentFieldDescriptorListSchema = z.array(IncidentFieldDescriptorSchema);

/** Query of `metadata.programmes`; the spec does not show its parameters, so any are passed on. */
export const ProgrammesQuerySchema = z.optional(z.record(z.string(), z.string()));
