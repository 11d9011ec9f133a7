import { z } from 'zod';
import { AttachmentRefInputSchema } from './attachments.js';
import { NonEmptyString, ReturnedStringId } from './common.js';

/** One extended field value (spec 2.4): `identifier` from the metadata, `value` as a string. */
export const ExtendedFieldValueSchema = z.looseObject({
  identifier: NonEmptyString,
  value: z.string(),
});
export type ExtendedFieldValue = z.infer<typeof ExtendedFieldValueSchema>;

/**
 * The body of `incidents.create` (spec 2.1). The spec does not say which fields are required;
 * the SDK requires the five it documents and passes any other field through unchanged.
 */
export const IncidentCreateSchema = z.looseObject({
  programmeCode: NonEmptyString,
  policyCountry: z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code, e.g. "GB"'),
  policyTypeCode: NonEmptyString,
  incidentDate: z.iso.date({ error: 'must be a date in the form YYYY-MM-DD' }),
  description: z.string(),
  extendedFields: z.array(ExtendedFieldValueSchema).optional(),
  attachments: z.array(AttachmentRefInputSchema).optional(),
});
export type IncidentCreate = z.input<typeof IncidentCreateSchema>;

/** The answer to `incidents.create`: `incidentId` plus whatever else the server sent. */
export const IncidentCreatedSchema = z.looseObject({ incidentId: ReturnedStringId });
export type IncidentCreated = z.infer<typeof IncidentCreatedSchema>;
