import { requiredExtendedFields, targetsExtendedFields } from '../extended-fields.js';
import type { IncidentFieldDescriptor } from '../schemas/metadata.js';

/** A field as the run-time check reads it, for the types and schemas made from a form. */
export interface FormField {
  /** The first descriptor of the identifier: its list, maxLength and target rule the value. */
  descriptor: IncidentFieldDescriptor;
  /** The check requires a value (some descriptor of the identifier is required in extendedFields). */
  required: boolean;
  /** A value may be sent in extendedFields (the first descriptor's `mapsTo` allows it). */
  allowed: boolean;
}

/**
 * The fields of a form as `checkExtendedFields` reads them: one per identifier, its first
 * descriptor; required when any of its descriptors is required in `extendedFields`. A field
 * neither allowed nor required is left out. Pure.
 */
export function formFields(descriptors: readonly IncidentFieldDescriptor[]): FormField[] {
  const required = new Set(requiredExtendedFields(descriptors).map((d) => d.identifier));
  const seen = new Set<string>();
  const fields: FormField[] = [];
  for (const descriptor of descriptors) {
    if (seen.has(descriptor.identifier)) continue;
    seen.add(descriptor.identifier);
    const field = {
      descriptor,
      required: required.has(descriptor.identifier),
      allowed: targetsExtendedFields(descriptor),
    };
    if (field.allowed || field.required) fields.push(field);
  }
  return fields;
}
