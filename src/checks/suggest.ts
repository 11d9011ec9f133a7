/**
 * The "did you mean" of the checks (an extended field identifier, a top-level body key) at a
 * cost bounded whatever the input: a 1 MB identifier, 10,000 unknown identifiers or a form of
 * 100,000 fields must not hold the event loop (an unbounded table once took 12 s and a
 * 128 MB heap for one identifier).
 *
 * - Text longer than {@link MAX_SUGGESTION_LENGTH} is compared with nothing: no name is that
 *   long, so nothing is close to it.
 * - A distance is computed in linear memory (three rows), only in the band of cells that can
 *   stay within the tolerance, and stops as soon as no cell of a row is within it.
 * - One identifier is compared with at most {@link MAX_CANDIDATES} names, and one check spends
 *   at most {@link SUGGESTION_BUDGET} cells on all its identifiers together.
 */

import { checkWork } from './work.js';

/** Longest text compared for a suggestion, in UTF-16 units; longer gets none. */
export const MAX_SUGGESTION_LENGTH = 128;
/** Most names one text is compared with. */
export const MAX_CANDIDATES = 1_000;
/** Most distance cells (plus one per name looked at) one check spends on its suggestions. */
export const SUGGESTION_BUDGET = 2_000_000;

/** What one check may still spend on suggestions. */
export class SuggestionBudget {
  #left: number;

  constructor(cells: number = SUGGESTION_BUDGET) {
    this.#left = cells;
  }

  /** False once the budget is spent. */
  get left(): boolean {
    return this.#left > 0;
  }

  spend(cells: number): void {
    this.#left -= cells;
    checkWork.cells += cells;
  }
}

/**
 * How many edits still count as "close": a third of the length, at least one. Short names
 * thus need a near-exact match ("Date" is not a typo of "Name"), long ones forgive more.
 */
export function threshold(target: string): number {
  return Math.max(1, Math.floor(target.length / 3));
}

/**
 * Damerau–Levenshtein distance (optimal string alignment: insertions, deletions,
 * substitutions and swaps of two neighbours each cost one) when it is at most `limit`, else
 * `limit + 1`. Linear memory; only the cells within `limit` of the diagonal are computed, and
 * the work stops at the first row with none within `limit` (a row's least value never falls).
 */
export function boundedDistance(
  a: string,
  b: string,
  limit: number,
  budget: SuggestionBudget = new SuggestionBudget(Number.POSITIVE_INFINITY),
): number {
  const n = a.length;
  const m = b.length;
  const over = limit + 1;
  if (Math.abs(n - m) > limit) return over;
  // Rows of the table: two back (for swaps), the last and the current; reused, not allocated
  // per call (a typed array costs more to make than a short distance to compute).
  // Stryker disable next-line ConditionalExpression: `true` only makes new rows on every call (the answers are the same); `false` is killed by a text of 129 characters
  if (rows[0].length <= m) rows = rowsFor(m);
  let [before, last, row] = rows;
  last.fill(over, 0, m + 1);
  // Stryker disable next-line MethodExpression: `max` also writes entries past m, which no row reads
  for (let j = 0; j <= Math.min(m, limit); j++) last[j] = j;
  let cells = 0;
  for (let i = 1; i <= n; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(m, i + limit);
    // Left of the band: the first column's value, i; left of a band that starts later,
    // i > limit + 1, so out of reach.
    row[from - 1] = Math.min(i, over);
    let least = row[from - 1] as number;
    const ai = a.charCodeAt(i - 1);
    const aPrevious = a.charCodeAt(i - 2);
    for (let j = from; j <= to; j++) {
      const bj = b.charCodeAt(j - 1);
      let value = Math.min(
        (last[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (last[j - 1] as number) + (ai === bj ? 0 : 1),
      );
      // A swap of two neighbours; before the second character, charCodeAt(-1) is NaN: no swap.
      if (ai === b.charCodeAt(j - 2) && aPrevious === bj)
        value = Math.min(value, (before[j - 2] as number) + 1);
      row[j] = value;
      // Stryker disable next-line EqualityOperator: `<=` assigns the same value
      if (value < least) least = value;
    }
    // Right of the band: out of reach, for the next row's reads.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: at to = m they write row[m + 1], which no row reads
    if (to < m) row[to + 1] = over;
    cells += to - from + 1;
    if (least > limit) {
      budget.spend(cells);
      return over;
    }
    const free = before;
    before = last;
    last = row;
    row = free;
  }
  budget.spend(cells);
  return Math.min(last[m] as number, over);
}

/** The rows {@link boundedDistance} computes in, grown when a longer text comes. */
let rows = rowsFor(MAX_SUGGESTION_LENGTH);

/** Three rows for texts of up to `m` characters. */
function rowsFor(m: number): [Int32Array, Int32Array, Int32Array] {
  return [new Int32Array(m + 1), new Int32Array(m + 1), new Int32Array(m + 1)];
}

/** The exact distance of two texts (no limit). For tests and short texts only. */
export function editDistance(a: string, b: string): number {
  return boundedDistance(a, b, Math.max(a.length, b.length));
}
