import * as z from 'zod/mini';
import { documentedKeys } from '../checks/near-typos.js';
import { type AttachmentRefInput, AttachmentRefInputSchema } from './attachments.js';
import { NonEmptyString, ReturnedStringId } from './common.js';
import { IsoDate } from './iso-date.js';
import { nearTypoCheck } from './near-typos.js';

/**
 * One extended field value (spec 2.4): the answer to one field of the incident form.
 * Build a list of them from an object with `extendedFieldsFrom`.
 */
export interface ExtendedFieldValue {
  /**
   * The field's `identifier` from the form metadata (`client.metadata.incidentFields`), of the
   * form `<form_name>:<Field_Name>`, e.g. `'claim_form:Cause_Of_Loss'`. Matched exactly.
   */
  identifier: string;
  /**
   * The value, always a string (`'Yes'`, `'3'`, `'2026-11-02'`). Must be one of the field's
   * `listSource` when it has one, and at most `maxLength` characters when it has one.
   */
  value: string;
}

export const ExtendedFieldValueSchema = z.looseObject({
  identifier: NonEmptyString,
  value: z.string(),
});

/**
 * The body of `incidents.create` (spec 2.1). The spec does not say which fields are required;
 * the SDK requires the five it documents. Other fields: see the `extraBody` call option.
 *
 * @example
 * const body: IncidentCreate = {
 *   programmeCode: 'PRG-HOME',
 *   policyTypeCode: 'HOME-STD',
 *   policyCountry: 'GB',
 *   incidentDate: '2026-11-02',
 *   description: 'Kitchen fire, smoke damage to ceiling',
 * };
 */
export interface IncidentCreate {
  /**
   * Code of the insurance programme, e.g. `'PRG-HOME'` (from `client.metadata.programmes()`).
   * With `policyTypeCode` and `policyCountry` it selects the form `extendedFields` answer.
   */
  programmeCode: string;
  /** 2-letter country code of the policy (ISO 3166-1 alpha-2), e.g. `'GB'`; case is ignored. */
  policyCountry: string;
  /** Code of the policy type within the programme, e.g. `'HOME-STD'`. */
  policyTypeCode: string;
  /** The day the incident happened: a real calendar date `YYYY-MM-DD`, e.g. `'2026-11-02'` (no time). */
  incidentDate: string;
  /** What happened, in free text, e.g. `'Kitchen fire, smoke damage to ceiling'`. */
  description: string;
  /**
   * Answers to the form's extra fields, checked against the form metadata before sending
   * (see the `checkExtendedFields` option). Omit it when the form asks for nothing.
   * @example extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Fire' })
   */
  extendedFields?: readonly ExtendedFieldValue[];
  /**
   * Files to attach: each `{ attachmentId }` (uploaded earlier), `{ url }` (downloaded by the
   * service) or `{ file }` (uploaded by the SDK first), with an optional `description`.
   */
  attachments?: readonly AttachmentRefInput[];
}

/** The documented keys of {@link IncidentCreate}, in the schema's order. */
export const INCIDENT_CREATE_KEYS: readonly string[] = documentedKeys<IncidentCreate>({
  programmeCode: true,
  policyCountry: true,
  policyTypeCode: true,
  incidentDate: true,
  description: true,
  extendedFields: true,
  attachments: true,
});

/** `policyCountry`: two letters, any case. */
export const COUNTRY_CODE = /^[A-Za-z]{2}$/;

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
