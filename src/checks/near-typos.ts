import { boundedDistance, MAX_SUGGESTION_LENGTH, threshold } from './suggest.js';

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
 * Bounded like every suggestion (see `suggest.ts`): a key longer than any documented one
 * by more than its tolerance costs one comparison of lengths, a 1 MB key included.
 */
export function nearTypoOf(key: string, documented: readonly string[]): string | undefined {
  if (key.length > MAX_SUGGESTION_LENGTH || documented.includes(key)) return undefined;
  const wanted = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of documented) {
    const tolerance = threshold(candidate);
    const distance = boundedDistance(wanted, candidate.toLowerCase(), tolerance);
    if (distance <= tolerance && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
