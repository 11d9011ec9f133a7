import { cachedFormIndex, type FormIndex } from '../../checks/form-index.js';
import { ClaimsValidationError } from '../../errors.js';
import {
  type ExtendedFieldProblemCode,
  ExtendedFieldProblemCodes,
  locateExtendedFieldProblems,
} from '../../extended-fields.js';
import { quote } from '../../internal/quote.js';
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
          message: `unknown programme ${quote(key.programmeCode)}`,
        },
      ];
    }
    const policyType = programme.policyTypes.find((t) => t.policyTypeCode === key.policyTypeCode);
    if (!policyType) {
      return [
        {
          path: paths.policyTypeCode,
          code: 'unknown_policy_type',
          message: `programme ${programme.programmeCode} has no policy type ${quote(key.policyTypeCode)}`,
        },
      ];
    }
    if (!policyType.countries.some((c) => sameCountry(c, key.countryCode))) {
      return [
        {
          path: paths.countryCode,
          code: 'country_not_covered',
          message: `policy type ${policyType.policyTypeCode} is not sold in ${quote(key.countryCode)} (only ${policyType.countries.join(', ')})`,
        },
      ];
    }
    return [];
  }

  /** The fields of the form for a key that exists (`[]` when no form is seeded for it). */
  fields(key: FormKey): SandboxField[] {
    return structuredClone(this.#form(key)?.fields ?? []);
  }

  /**
   * The form's index for the extended-field check, built once per seeded form: its arrays are
   * never handed out (`fields` and `snapshot` copy) and `seed` replaces rather than changes them.
   */
  formIndex(key: FormKey): FormIndex {
    return cachedFormIndex(this.#form(key)?.fields ?? NO_FIELDS);
  }

  #form(key: FormKey) {
    return this.#data.forms.find(
      (f) =>
        f.programmeCode === key.programmeCode &&
        f.policyTypeCode === key.policyTypeCode &&
        (f.countryCodes === undefined || f.countryCodes.some((c) => sameCountry(c, key.countryCode))),
    );
  }
}

const NO_FIELDS: readonly SandboxField[] = [];

function sameCountry(a: string, b: string): boolean {
  return a.toUpperCase() === b.toUpperCase();
}

/**
 * Checks extended field values against a form with the SDK's own rules
 * (`checkExtendedFields`: `listSource`, `maxLength` in code points, empty values of optional
 * fields as "not given", `mapsTo`, unknown, duplicate and missing required fields). Shared
 * rather than copied, so the sandbox never refuses what the SDK's pre-check lets through, nor
 * accepts what it refuses. Each problem keeps its code and message; only a `path` is added.
 */
export function extendedFieldProblems(
  fields: readonly SandboxField[] | FormIndex,
  values: ReadonlyArray<{ identifier: string; value: string }>,
): SandboxErrorDetail[] {
  // The located variant of checkExtendedFields (same rules, same order) also says which
  // array element each problem is about, which the sandbox's `path` needs.
  return locateExtendedFieldProblems(fields, values).map(({ index, problem }) => ({
    path: problemPath(index, problem.code),
    code: problem.code,
    message: problem.message,
  }));
}

/** Where in the body a problem is: the value, the identifier, the element, or the array. */
function problemPath(index: number | undefined, code: ExtendedFieldProblemCode): string {
  // An absent required field belongs to no element.
  if (index === undefined) return 'extendedFields';
  const element = `extendedFields[${index}]`;
  switch (code) {
    case ExtendedFieldProblemCodes.NotInList:
    case ExtendedFieldProblemCodes.TooLong:
    case ExtendedFieldProblemCodes.RequiredMissing:
      return `${element}.value`;
    case ExtendedFieldProblemCodes.UnknownIdentifier:
    case ExtendedFieldProblemCodes.WrongTarget:
      return `${element}.identifier`;
    default:
      return element;
  }
}
