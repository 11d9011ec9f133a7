export type HeadersInit = Record<string, string | undefined> | undefined;

/**
 * Merges header sets case-insensitively, later sets winning; names come out lower-case.
 * An `undefined` value removes a header set earlier.
 */
export function mergeHeaders(...sets: HeadersInit[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const set of sets) {
    for (const name in set) {
      const value = set[name];
      const key = name.toLowerCase();
      if (value === undefined) delete out[key];
      else out[key] = value;
    }
  }
  return out;
}
