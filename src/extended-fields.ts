import type { ExtendedFieldValue } from './schemas/incidents.js';
import type { IncidentFieldDescriptor } from './schemas/metadata.js';

/** One problem found by {@link checkExtendedFields}. */
export interface ExtendedFieldProblem {
  /** The identifier concerned. */
  identifier: string;
  /** What kind of problem (e.g. `unknown_identifier`, `not_in_list`). */
  code: string;
  /** What is wrong, naming the field as the form shows it. */
  message: string;
}

/**
 * Checks extended field values against a form's descriptors and returns every problem
 * (`[]` when valid). Pure: it sends nothing.
 */
export function checkExtendedFields(
  descriptors: readonly IncidentFieldDescriptor[],
  extendedFields: readonly ExtendedFieldValue[],
): ExtendedFieldProblem[] {
  const known = new Map(descriptors.map((d) => [d.identifier, d]));
  const problems: ExtendedFieldProblem[] = [];
  for (const field of extendedFields) {
    const descriptor = known.get(field.identifier);
    if (!descriptor) {
      problems.push({
        identifier: field.identifier,
        code: 'unknown_identifier',
        message: 'unknown identifier',
      });
    } else if (descriptor.listSource && !descriptor.listSource.includes(field.value)) {
      problems.push({ identifier: field.identifier, code: 'not_in_list', message: 'value not allowed' });
    }
  }
  return problems;
}

/** Builds `[{ identifier, value }, ...]` from `{ identifier: value }`, in the object's order. */
export function extendedFieldsFrom(values: Record<string, string>): ExtendedFieldValue[] {
  return Object.entries(values).map(([identifier, value]) => ({ identifier, value }));
}
