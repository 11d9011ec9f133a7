/**
 * The time as ISO 8601, for journal records. Formatting a `Date` costs more than the rest of a
 * record's bookkeeping, and a batch writes thousands of records per second: the string is
 * kept and reused within the same millisecond.
 */
let lastMs = Number.NaN;
// Stryker disable next-line StringLiteral: equivalent, lastMs NaN makes the first call set it
let lastIso = '';

export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
