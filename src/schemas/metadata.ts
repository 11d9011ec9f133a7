import { z } from 'zod';
import { NonEmptyString } from './common.js';

/** Keys of the incident form metadata (spec 4.4). */
export const IncidentFieldsQuerySchema = z.object({
  programmeCode: NonEmptyString,
  policyTypeCode: NonEmptyString,
  countryCode: z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code, e.g. "GB"'),
});
export type IncidentFieldsQuery = z.infer<typeof IncidentFieldsQuerySchema>;

/** One field of an incident form (spec 2.6). Unknown fields pass through. */
export const IncidentFieldDescriptorSchema = z.looseObject({
  identifier: NonEmptyString,
  mapsTo: z.string().optional(),
  name: z.string().optional(),
  section: z.string().optional(),
  dataType: z.string().optional(),
  /** Longest allowed value; `null` (or absent) means no stated maximum. */
  maxLength: z.number().int().nonnegative().nullable().optional(),
  isRequired: z.boolean().optional(),
  /** Permitted values; `null` (or absent) means free entry. */
  listSource: z.array(z.string()).nullable().optional(),
});
export type IncidentFieldDescriptor = z.infer<typeof IncidentFieldDescriptorSchema>;

export const IncidentFieldDescriptorListSchema = z.array(IncidentFieldDescriptorSchema);

/** Query of `metadata.programmes`; the spec does not show its parameters, so any are passed on. */
export const ProgrammesQuerySchema = z.record(z.string(), z.string()).optional();
