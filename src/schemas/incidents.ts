import * as z from 'zod/mini';
import { COUNTRY_CODE, INCIDENT_CREATE_KEYS } from '../checks/incident-create.js';
import { AttachmentRefInputSchema } from './attachments.js';
import { NonEmptyString, ReturnedStringId } from './common.js';
import type { ExtendedFieldValue, IncidentCreate } from './incident-types.js';
import { IsoDate } from './iso-date.js';
import { nearTypoCheck } from './near-typos.js';

export const ExtendedFieldValueSchema = z.looseObject({
  identifier: NonEmptyString,
  value: z.string(),
});

export type { ExtendedFieldValue, IncidentCreate };
export { INCIDENT_CREATE_KEYS };

export const IncidentCreateSchema = z
  .looseObject({
    programmeCode: NonEmptyString,
    policyCountry: z.string().check(z.regex(COUNTRY_CODE, 'must be a 2-letter country code, e.g. "GB"')),
    policyTypeCode: NonEmptyString,
    incidentDate: IsoDate,
    description: z.string(),
    extendedFields: z.optional(z.array(ExtendedFieldValueSchema)),
    attachments: z.optional(z.array(AttachmentRefInputSchema)),
  })
  .check(nearTypoCheck(INCIDENT_CREATE_KEYS));

/** The answer to `incidents.create`: `incidentId` plus whatever else the server sent. */
export const IncidentCreatedSchema = z.looseObject({ incidentId: ReturnedStringId });
/**
 * What `incidents.create` resolves to: the new incident's id, plus every other field the
 * server sent (kept as sent; the spec shows only `incidentId`). Written out (equal to the
 * schema's type, a type test checks) because `.d.ts` files drop a schema's field TSDoc.
 */
export type IncidentCreated = {
  /** The new incident's id, always a string (a numeric id is given as its digits). */
  incidentId: string;
  /** Any other field the server sent, kept as sent. */
  [key: string]: unknown;
};
