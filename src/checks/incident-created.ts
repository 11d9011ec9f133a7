import type { IncidentCreated } from '../schemas/incidents.js';
import { copyUndeclaredKeys, isNonEmptyString, isObject } from './objects.js';

const DECLARED = new Set(['incidentId']);

/**
 * `IncidentCreatedSchema`'s parse, hand-written: `incidentId` as a string (a non-empty string
 * as sent, a finite number as its digits) first, then every other field as sent; `undefined`
 * when zod would report an issue (then zod, loaded only for that, says what is wrong).
 */
export function parseIncidentCreated(input: unknown): IncidentCreated | undefined {
  if (!isObject(input)) return undefined;
  const id = input.incidentId;
  if (!(isNonEmptyString(id) || Number.isFinite(id))) return undefined;
  const out: Record<string, unknown> = { incidentId: String(id) };
  copyUndeclaredKeys(input, DECLARED, out);
  return out as IncidentCreated;
}
