import { z } from 'zod';

/** One field of an incident form, as `GET /metadata/incidents` returns it (spec 2.6). */
export const SandboxFieldSchema = z.object({
  /** `<form_name>:<Field_Name>`, e.g. `'claim_form:Cause_Of_Loss'`: the `identifier` a value is sent with. */
  identifier: z.string().regex(/^[^:\s]+:[^:\s]+$/, 'must have the form <form_name>:<Field_Name>'),
  /** Where the answer goes in the incident body. @default 'extendedFields' */
  mapsTo: z.string().default('extendedFields'),
  /** The label the form shows, e.g. `'Cause of loss'`. */
  name: z.string(),
  /** The form section it is shown in, e.g. `'Incident'`. */
  section: z.string(),
  /** The value's type as the metadata names it, e.g. `'string'`. @default 'string' */
  dataType: z.string().default('string'),
  /** Most characters (UTF-16 code units) a value may have; `null` for no limit. @default null */
  maxLength: z.number().int().positive().nullable().default(null),
  /** Whether an incident must answer it. @default false */
  isRequired: z.boolean().default(false),
  /** The only values accepted (exact match), or `null` for free text. @default null */
  listSource: z.array(z.string()).nullable().default(null),
});
/** One field of a seeded form, defaults applied; `GET /metadata/incidents` answers these. */
export type SandboxField = z.infer<typeof SandboxFieldSchema>;

/** A policy type of a programme, and the countries it is sold in (2-letter codes). */
export const SandboxPolicyTypeSchema = z.object({
  /** The code sent as `policyTypeCode`, e.g. `'HOME-STD'`. */
  policyTypeCode: z.string().min(1),
  /** Its display name, e.g. `'Home Standard'`. */
  name: z.string(),
  /** Where it is sold: 2-letter codes, e.g. `['GB', 'IE']`. */
  countries: z.array(z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code')),
});

/**
 * One programme, as `GET /metadata/programmes` returns it. The spec leaves this shape open;
 * the sandbox answers an array of these.
 */
export const SandboxProgrammeSchema = z.object({
  /** The code sent as `programmeCode`, e.g. `'PRG-HOME'`. */
  programmeCode: z.string().min(1),
  /** Its display name, e.g. `'Home Insurance'`. */
  name: z.string(),
  /** The policy types of the programme and their countries. */
  policyTypes: z.array(SandboxPolicyTypeSchema),
});
/** One programme, its policy types and their countries, as `GET /metadata/programmes` answers it. */
export type SandboxProgramme = z.infer<typeof SandboxProgrammeSchema>;

/**
 * The incident form of a programme and policy type, for `countryCodes` (every country of the
 * policy type when omitted).
 */
export const SandboxFormSchema = z.object({
  /** The programme it is the form of, e.g. `'PRG-HOME'`. */
  programmeCode: z.string().min(1),
  /** The policy type it is the form of, e.g. `'HOME-STD'`. */
  policyTypeCode: z.string().min(1),
  /** The 2-letter countries it applies to, e.g. `['GB']`. @default every country of the policy type */
  countryCodes: z.array(z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code')).optional(),
  /** Its fields, in the order `GET /metadata/incidents` answers them. */
  fields: z.array(SandboxFieldSchema),
});
/** A seeded incident form (defaults applied): the fields asked for one programme, policy type and countries. */
export type SandboxForm = z.infer<typeof SandboxFormSchema>;
/** A form as a caller seeds it: `mapsTo`, `dataType`, `maxLength`, `isRequired`, `listSource` have defaults. */
export type SandboxFormInput = z.input<typeof SandboxFormSchema>;

/** Everything the metadata operations answer from. */
export interface SandboxMetadata {
  /** What `GET /metadata/programmes` answers. */
  programmes: SandboxProgramme[];
  /** The forms `GET /metadata/incidents` picks from by programme, policy type and country. */
  forms: SandboxForm[];
}

/** Metadata to seed: each list given replaces the current one; one left out stays. */
export const SandboxMetadataInputSchema = z.object({
  /** Replaces every programme when given. */
  programmes: z.array(SandboxProgrammeSchema).optional(),
  /** Replaces every form when given; field defaults are applied. */
  forms: z.array(SandboxFormSchema).optional(),
});
/**
 * Metadata to seed with `sandbox.seed()` or the `metadata` option: each list given replaces
 * the current one; one left out stays.
 * @example sandbox.seed({ forms: [{ programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', fields: [] }] })
 */
export type SandboxMetadataInput = z.input<typeof SandboxMetadataInputSchema>;
