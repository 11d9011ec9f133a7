import { z } from 'zod';

// The types below are written out, not `z.infer`red, because `.d.ts` files drop the TSDoc of
// a schema's fields; test/types/testing-types.test-d.ts keeps each equal to its schema's type.

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

/** A form field as a caller seeds it; see {@link SandboxField} for the defaults. */
export type SandboxFieldInput = {
  /** `<form_name>:<Field_Name>`, e.g. `'claim_form:Cause_Of_Loss'`: the `identifier` a value is sent with. */
  identifier: string;
  /** Where the answer goes in the incident body. @default 'extendedFields' */
  mapsTo?: string | undefined;
  /** The label the form shows, e.g. `'Cause of loss'`. */
  name: string;
  /** The form section it is shown in, e.g. `'Incident'`. */
  section: string;
  /** The value's type as the metadata names it, e.g. `'string'`. @default 'string' */
  dataType?: string | undefined;
  /** Most characters (UTF-16 code units) a value may have; `null` for no limit. @default null */
  maxLength?: number | null | undefined;
  /** Whether an incident must answer it. @default false */
  isRequired?: boolean | undefined;
  /** The only values accepted (exact match), or `null` for free text. @default null */
  listSource?: string[] | null | undefined;
};

/** One field of a seeded form, defaults applied; `GET /metadata/incidents` answers these. */
export type SandboxField = {
  /** `<form_name>:<Field_Name>`, e.g. `'claim_form:Cause_Of_Loss'`: the `identifier` a value is sent with. */
  identifier: string;
  /** Where the answer goes in the incident body, e.g. `'extendedFields'` (the default). */
  mapsTo: string;
  /** The label the form shows, e.g. `'Cause of loss'`. */
  name: string;
  /** The form section it is shown in, e.g. `'Incident'`. */
  section: string;
  /** The value's type as the metadata names it, e.g. `'string'` (the default). */
  dataType: string;
  /** Most characters (UTF-16 code units) a value may have; `null` for no limit (the default). */
  maxLength: number | null;
  /** Whether an incident must answer it (`false` by default). */
  isRequired: boolean;
  /** The only values accepted (exact match), or `null` for free text (the default). */
  listSource: string[] | null;
};

/** A policy type of a programme, and the countries it is sold in (2-letter codes). */
export const SandboxPolicyTypeSchema = z.object({
  policyTypeCode: z.string().min(1),
  name: z.string(),
  countries: z.array(z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code')),
});

/** A policy type of a programme, and the countries it is sold in. */
export type SandboxPolicyType = {
  /** The code sent as `policyTypeCode`, e.g. `'HOME-STD'`. */
  policyTypeCode: string;
  /** Its display name, e.g. `'Home Standard'`. */
  name: string;
  /** Where it is sold: 2-letter codes, e.g. `['GB', 'IE']`. */
  countries: string[];
};

/**
 * One programme, as `GET /metadata/programmes` returns it. The spec leaves this shape open;
 * the sandbox answers an array of these.
 */
export const SandboxProgrammeSchema = z.object({
  programmeCode: z.string().min(1),
  name: z.string(),
  policyTypes: z.array(SandboxPolicyTypeSchema),
});

/** One programme, its policy types and their countries, as `GET /metadata/programmes` answers it. */
export type SandboxProgramme = {
  /** The code sent as `programmeCode`, e.g. `'PRG-HOME'`. */
  programmeCode: string;
  /** Its display name, e.g. `'Home Insurance'`. */
  name: string;
  /** The policy types of the programme and their countries. */
  policyTypes: SandboxPolicyType[];
};

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

/** A seeded incident form (defaults applied): the fields asked for one programme, policy type and countries. */
export type SandboxForm = {
  /** The programme it is the form of, e.g. `'PRG-HOME'`. */
  programmeCode: string;
  /** The policy type it is the form of, e.g. `'HOME-STD'`. */
  policyTypeCode: string;
  /** The 2-letter countries it applies to, e.g. `['GB']`; absent: every country of the policy type. */
  countryCodes?: string[] | undefined;
  /** Its fields, in the order `GET /metadata/incidents` answers them. */
  fields: SandboxField[];
};

/** A form as a caller seeds it: `mapsTo`, `dataType`, `maxLength`, `isRequired`, `listSource` have defaults. */
export type SandboxFormInput = {
  /** The programme it is the form of, e.g. `'PRG-HOME'`. */
  programmeCode: string;
  /** The policy type it is the form of, e.g. `'HOME-STD'`. */
  policyTypeCode: string;
  /** The 2-letter countries it applies to, e.g. `['GB']`. @default every country of the policy type */
  countryCodes?: string[] | undefined;
  /** Its fields, in the order `GET /metadata/incidents` answers them. */
  fields: SandboxFieldInput[];
};

/** Everything the metadata operations answer from. */
export interface SandboxMetadata {
  /** What `GET /metadata/programmes` answers. */
  programmes: SandboxProgramme[];
  /** The forms `GET /metadata/incidents` picks from by programme, policy type and country. */
  forms: SandboxForm[];
}

/** Metadata to seed: each list given replaces the current one; one left out stays. */
export const SandboxMetadataInputSchema = z.object({
  programmes: z.array(SandboxProgrammeSchema).optional(),
  forms: z.array(SandboxFormSchema).optional(),
});

/**
 * Metadata to seed with `sandbox.seed()` or the `metadata` option: each list given replaces
 * the current one; one left out stays.
 * @example sandbox.seed({ forms: [{ programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', fields: [] }] })
 */
export type SandboxMetadataInput = {
  /** Replaces every programme when given. */
  programmes?: SandboxProgramme[] | undefined;
  /** Replaces every form when given; field defaults are applied. */
  forms?: SandboxFormInput[] | undefined;
};
