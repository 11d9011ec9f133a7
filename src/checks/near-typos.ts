import { editDistance, threshold } from '../extended-fields.js';

/**
 * The keys of a request type, as a list for the near-typo check. Written as an object so
 * the compiler checks it against the type both ways: no key missing, none extra.
 */
export function documentedKeys<T>(keys: Record<keyof T, true>): string[] {
  return Object.keys(keys);
}

/**
 * The documented key a body key is a near-typo of, or `undefined`. The same tolerance as
 * extended field identifiers (a third of the documented key's length, case ignored), so
 * `extendedFeilds`, `isActve` and `IsActive` are caught, while a key far from every documented
 * one (`brokerReference`) is taken to be a field the spec does not show, and passed on.
 */
export function nearTypoOf(key: string, documented: readonly string[]): string | undefined {
  if (documented.includes(key)) return undefined;
  const wanted = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of documented) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= threshold(candidate) && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
