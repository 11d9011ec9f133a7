import { z } from 'zod';

/** One field of an incident form, as `GET /metadata/incidents` returns it (spec 2.6). */
export const SandboxFieldSchema = z.object({
  identifier: z.string().regex(/^[^:\s]+:[^:\s]+$/, 'must have the form <form_name>:<Field_Name>'),
  mapsTo: z.string().default('extendedFields'),
  name: z.string(),
  section: z.string(),
  dataType: z.string().default('string'),
  maxLength: z.number().int().positive().nullable().default(null),
  isRequired: z.boolean().default(false),
  listSource: z.array(z.string()).nullable().default(null),
});
export type SandboxField = z.infer<typeof SandboxFieldSchema>;

/** A policy type of a programme, and the countries it is sold in (2-letter codes). */
export const SandboxPolicyTypeSchema = z.object({
  policyTypeCode: z.string().min(1),
  name: z.string(),
  countries: z.array(z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code')),
});

/**
 * One programme, as `GET /metadata/programmes` returns it. The spec leaves this shape open;
 * the sandbox answers an array of these.
 */
export const SandboxProgrammeSchema = z.object({
  programmeCode: z.string().min(1),
  name: z.string(),
  policyTypes: z.array(SandboxPolicyTypeSchema),
});
export type SandboxProgramme = z.infer<typeof SandboxProgrammeSchema>;

/**
 * The incident form of a programme and policy type, for `countryCodes` (every country of the
 * policy type when omitted).
 */
export const SandboxFormSchema = z.object({
  programmeCode: z.string().min(1),
  policyTypeCode: z.string().min(1),
  countryCodes: z.array(z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code')).optional(),
  fields: z.array(SandboxFieldSchema),
});
export type SandboxForm = z.infer<typeof SandboxFormSchema>;
/** A form as a caller seeds it: `mapsTo`, `dataType`, `maxLength`, `isRequired`, `listSource` have defaults. */
export type SandboxFormInput = z.input<typeof SandboxFormSchema>;

/** Everything the metadata operations answer from. */
export interface SandboxMetadata {
  programmes: SandboxProgramme[];
  forms: SandboxForm[];
}

/** Metadata to seed: each list given replaces the current one; one left out stays. */
export const SandboxMetadataInputSchema = z.object({
  programmes: z.array(SandboxProgrammeSchema).optional(),
  forms: z.array(SandboxFormSchema).optional(),
});
export type SandboxMetadataInput = z.input<typeof SandboxMetadataInputSchema>;
