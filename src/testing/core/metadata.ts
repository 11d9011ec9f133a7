import { ClaimsValidationError } from '../../errors.js';
import { collectIssues } from '../../internal/validate.js';
import {
  type SandboxField,
  type SandboxMetadata,
  type SandboxMetadataInput,
  SandboxMetadataInputSchema,
} from './metadata-types.js';
import { defaultSandboxMetadata } from './seed.js';
import type { SandboxErrorDetail } from './types.js';

/** The key of an incident form: programme, policy type and policy country. */
export interface FormKey {
  programmeCode: string;
  policyTypeCode: string;
  countryCode: string;
}

/** The programmes and incident forms the metadata operations answer from; replaceable. */
export class MetadataStore {
  #data: SandboxMetadata = { programmes: [], forms: [] };

  constructor(seed?: SandboxMetadataInput) {
    this.seed(defaultSandboxMetadata());
    if (seed) this.seed(seed);
  }

  /**
   * Replaces the programmes and/or forms given; a list left out stays as it is.
   * @throws ClaimsValidationError when the seed data has the wrong shape.
   */
  seed(input: SandboxMetadataInput): void {
    const { issues, values } = collectIssues([['metadata', SandboxMetadataInputSchema, input]]);
    if (issues.length > 0)
      throw new ClaimsValidationError(
        issues,
        `Invalid sandbox metadata: ${issues[0]?.path} ${issues[0]?.message}`,
      );
    const parsed = values[0] as Partial<SandboxMetadata>;
    this.#data = {
      programmes: structuredClone(parsed.programmes ?? this.#data.programmes),
      forms: structuredClone(parsed.forms ?? this.#data.forms),
    };
  }

  /** A copy of the current metadata. */
  snapshot(): SandboxMetadata {
    return structuredClone(this.#data);
  }

  /** What is wrong with a form key, per field of the incident body (`[]` when it exists). */
  keyProblems(key: FormKey, paths: Record<keyof FormKey, string>): SandboxErrorDetail[] {
    const programme = this.#data.programmes.find((p) => p.programmeCode === key.programmeCode);
    if (!programme) {
      return [
        {
          path: paths.programmeCode,
          code: 'unknown_programme',
          message: `unknown programme "${key.programmeCode}"`,
        },
      ];
    }
    const policyType = programme.policyTypes.find((t) => t.policyTypeCode === key.policyTypeCode);
    if (!policyType) {
      return [
        {
          path: paths.policyTypeCode,
          code: 'unknown_policy_type',
          message: `programme ${programme.programmeCode} has no policy type "${key.policyTypeCode}"`,
        },
      ];
    }
    if (!policyType.countries.some((c) => sameCountry(c, key.countryCode))) {
      return [
        {
          path: paths.countryCode,
          code: 'country_not_covered',
          message: `policy type ${policyType.policyTypeCode} is not sold in "${key.countryCode}" (only ${policyType.countries.join(', ')})`,
        },
      ];
    }
    return [];
  }

  /** The fields of the form for a key that exists (`[]` when no form is seeded for it). */
  fields(key: FormKey): SandboxField[] {
    const form = this.#data.forms.find(
      (f) =>
        f.programmeCode === key.programmeCode &&
        f.policyTypeCode === key.policyTypeCode &&
        (f.countryCodes === undefined || f.countryCodes.some((c) => sameCountry(c, key.countryCode))),
    );
    return structuredClone(form?.fields ?? []);
  }
}

function sameCountry(a: string, b: string): boolean {
  return a.toUpperCase() === b.toUpperCase();
}

/**
 * Checks extended field values against a form as the service does: the spec's `listSource`
 * and `maxLength` rules, plus unknown, duplicate and missing required fields.
 */
export function extendedFieldProblems(
  fields: readonly SandboxField[],
  values: ReadonlyArray<{ identifier: string; value: string }>,
): SandboxErrorDetail[] {
  const byId = new Map(fields.map((f) => [f.identifier, f]));
  const problems: SandboxErrorDetail[] = [];
  const seen = new Set<string>();
  values.forEach(({ identifier, value }, i) => {
    const path = `extendedFields[${i}]`;
    const field = byId.get(identifier);
    if (seen.has(identifier)) {
      problems.push({ path, code: 'duplicate_field', message: `"${identifier}" is given more than once` });
    }
    seen.add(identifier);
    if (!field) {
      problems.push({
        path: `${path}.identifier`,
        code: 'unknown_field',
        message: `the form has no field "${identifier}"`,
      });
    } else if (field.listSource !== null && !field.listSource.includes(value)) {
      problems.push({
        path: `${path}.value`,
        code: 'not_in_list',
        message: `${field.name}: "${value}" is not one of ${field.listSource.map((v) => `"${v}"`).join(', ')}`,
      });
    } else if (field.maxLength !== null && value.length > field.maxLength) {
      problems.push({
        path: `${path}.value`,
        code: 'too_long',
        message: `${field.name}: ${value.length} characters, at most ${field.maxLength} allowed`,
      });
    }
  });
  for (const field of fields) {
    if (!field.isRequired) continue;
    const given = values.find((v) => v.identifier === field.identifier);
    if (!given || given.value.trim() === '') {
      problems.push({
        path: 'extendedFields',
        code: 'required',
        message: `${field.name} (${field.identifier}) is required`,
      });
    }
  }
  return problems;
}
