import { createHash } from 'node:crypto';
import type { FormSnapshot, FormSnapshotForm } from '../form-snapshot.js';
import type { IncidentFieldDescriptor } from '../schemas/metadata.js';
import { byCodeUnits } from './diff.js';

/** The spec's descriptor fields (2.6), in its order: written first, the others after, sorted. */
const DESCRIPTOR_KEYS = [
  'identifier',
  'mapsTo',
  'name',
  'section',
  'dataType',
  'maxLength',
  'isRequired',
  'listSource',
] as const;

/**
 * Sets an own property, even one named `__proto__` (a plain assignment would set the
 * prototype instead, and the key would vanish from the output).
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A JSON value with every object's keys sorted (arrays keep their order). */
export function canonicalJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalJson);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(byCodeUnits))
    setOwn(out, key, canonicalJson((value as Record<string, unknown>)[key]));
  return out;
}

/**
 * A descriptor with its keys in one order (the spec's fields first, the others sorted), so
 * that a server sending the same fields in another order changes no byte of what is written.
 */
export function canonicalDescriptor(descriptor: IncidentFieldDescriptor): IncidentFieldDescriptor {
  const out: Record<string, unknown> = {};
  for (const key of DESCRIPTOR_KEYS)
    if (Object.hasOwn(descriptor, key)) setOwn(out, key, canonicalJson(descriptor[key]));
  const known = new Set<string>(DESCRIPTOR_KEYS);
  for (const key of Object.keys(descriptor).sort(byCodeUnits)) {
    if (!known.has(key)) setOwn(out, key, canonicalJson(descriptor[key]));
  }
  return out as IncidentFieldDescriptor;
}

/** A form with its keys in one order and its descriptors canonical (in the API's order). */
export function canonicalForm(form: FormSnapshotForm): FormSnapshotForm {
  return {
    programmeCode: form.programmeCode,
    policyTypeCode: form.policyTypeCode,
    countryCode: form.countryCode,
    ...(form.pulledAt === undefined ? {} : { pulledAt: form.pulledAt }),
    ...(form.source === undefined ? {} : { source: form.source }),
    descriptors: form.descriptors.map(canonicalDescriptor),
  };
}

/** The snapshot with forms sorted by key, each canonical. */
export function canonicalSnapshot(snapshot: FormSnapshot): FormSnapshot {
  const forms: Record<string, FormSnapshotForm> = {};
  for (const key of Object.keys(snapshot.forms).sort(byCodeUnits)) {
    setOwn(forms, key, canonicalForm(snapshot.forms[key] as FormSnapshotForm));
  }
  return { version: snapshot.version, ...(snapshot.all === true ? { all: true } : {}), forms };
}

/** The same descriptors, whatever the order of their keys. */
export function sameDescriptors(
  a: readonly IncidentFieldDescriptor[],
  b: readonly IncidentFieldDescriptor[],
): boolean {
  return JSON.stringify(a.map(canonicalDescriptor)) === JSON.stringify(b.map(canonicalDescriptor));
}

/**
 * SHA-256 (hex) of the forms' keys and descriptors, canonical: what a generated file was made
 * from. Dates and sources are left out, so a pull that changes no descriptor changes no hash.
 */
export function descriptorsHash(
  forms: Readonly<Record<string, { descriptors: readonly IncidentFieldDescriptor[] }>>,
): string {
  const entries = Object.keys(forms)
    .sort(byCodeUnits)
    .map((key) => [key, (forms[key]?.descriptors ?? []).map(canonicalDescriptor)]);
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}
