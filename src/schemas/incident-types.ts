/**
 * The request types of `incidents.create`, without zod: the hand-written checks (src/checks/)
 * use them on the first call, which must not load zod, and the schemas (schemas/incidents.ts)
 * are checked against them.
 */
import type { AttachmentRefInput } from './attachments.js';

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
