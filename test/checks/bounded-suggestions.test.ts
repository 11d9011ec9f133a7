/**
 * "Did you mean" costs little whatever the input (#27.1), asserted by the work done (the
 * internal `checkWork` counter), never by wall time: a 1 MB identifier, 10,000 unknown
 * entries, a typo against a form of 100,000 fields, a 1 MB unknown top-level key. The answers
 * stay those of the unbounded algorithm wherever it is within the caps (a reference
 * implementation of it, below, is compared on random forms). A `listSource` is indexed once
 * per cached form (#27.2).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cachedFormIndex, FormIndex, ListIndex } from '../../src/checks/form-index.js';
import { parseIncidentCreate } from '../../src/checks/incident-create.js';
import { nearTypoOf } from '../../src/checks/near-typos.js';
import {
  boundedDistance,
  editDistance,
  MAX_CANDIDATES,
  MAX_SUGGESTION_LENGTH,
  SUGGESTION_BUDGET,
  SuggestionBudget,
} from '../../src/checks/suggest.js';
import { checkWork } from '../../src/checks/work.js';
import { locateExtendedFieldProblems } from '../../src/extended-fields.js';
import { checkExtendedFields, type IncidentFieldDescriptor } from '../../src/index.js';
import { quote } from '../../src/internal/quote.js';
import { IncidentCreateSchema } from '../../src/schemas/incidents.js';
import { extendedFieldProblems } from '../../src/testing/core/metadata.js';
import { incident } from '../helpers/fixtures.js';

const MB = 1 << 20;
/** The most cells one distance can cost within the caps (both texts at the length cap). */
const ONE_DISTANCE = (MAX_SUGGESTION_LENGTH + 1) * (MAX_SUGGESTION_LENGTH + 1);
/**
 * Room for the large inputs under a mutation run, whose instrumented hot loops are many times
 * slower than the built code: these tests assert the work done, never the time it takes.
 */
const ROOM = { timeout: 120_000 };

/** The work a function causes: distance cells and names looked at, list entries indexed. */
function workOf<T>(run: () => T): { result: T; cells: number; listEntries: number } {
  const before = { ...checkWork };
  const result = run();
  return {
    result,
    cells: checkWork.cells - before.cells,
    listEntries: checkWork.listEntries - before.listEntries,
  };
}

/** The unbounded optimal-string-alignment distance the SDK used before: a full table. */
function referenceDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let value = Math.min(
        at(i - 1, j) + 1,
        at(i, j - 1) + 1,
        at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = value;
    }
  }
  return at(a.length, b.length);
}

const tolerance = (text: string) => Math.max(1, Math.floor(text.length / 3));
const fieldPart = (id: string) => id.slice(id.indexOf(':') + 1);

/** The hint the unbounded algorithm gave for an unknown identifier (ties to the earlier). */
function referenceHint(identifier: string, descriptors: readonly IncidentFieldDescriptor[]): string {
  const wanted = identifier.toLowerCase();
  let close: IncidentFieldDescriptor | undefined;
  let closeDistance = Number.POSITIVE_INFINITY;
  let nearest: IncidentFieldDescriptor | undefined;
  let nearestDistance = Number.POSITIVE_INFINITY;
  for (const descriptor of descriptors) {
    const candidate = descriptor.identifier.toLowerCase();
    const whole = referenceDistance(wanted, candidate);
    const field = referenceDistance(fieldPart(wanted), fieldPart(candidate));
    const k = tolerance(fieldPart(candidate));
    const distance = Math.min(whole <= k ? whole : Infinity, field <= k ? field : Infinity);
    if (distance < closeDistance) [close, closeDistance] = [descriptor, distance];
    if (Math.min(whole, field) < nearestDistance)
      [nearest, nearestDistance] = [descriptor, Math.min(whole, field)];
  }
  if (close) return `; did you mean ${quote(close.identifier)}?`;
  if (nearest) return `; this form has no such field (the nearest is ${quote(nearest.identifier)})`;
  return '; this form has no fields';
}

const short = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', ':', '_'), maxLength: 12 });

describe('boundedDistance', () => {
  it('is the full-table distance when within the limit, and limit + 1 past it', () => {
    fc.assert(
      fc.property(short, short, fc.nat(14), (a, b, limit) => {
        const exact = referenceDistance(a, b);
        expect(boundedDistance(a, b, limit)).toBe(Math.min(exact, limit + 1));
        expect(editDistance(a, b)).toBe(exact);
      }),
      { numRuns: 2_000 },
    );
  });

  it('computes only the band within the limit, and stops at the first row past it', () => {
    const budget = new SuggestionBudget();
    const { cells } = workOf(() => boundedDistance('a'.repeat(100), 'b'.repeat(100), 3, budget));
    // Row 1 has 4 cells in its band, all past the limit at row 4 at the latest.
    expect(cells).toBeLessThanOrEqual(4 * 7);
    expect(workOf(() => boundedDistance('a'.repeat(10), 'a'.repeat(30), 5)).cells).toBe(0);
  });

  it('spends one cell per cell of the band it computes, up to the row where it stops', () => {
    // Rows 1 to 4 of a band of width 1 each side: 2, 3, 3 and 2 cells.
    expect(workOf(() => boundedDistance('abcd', 'abcd', 1, new SuggestionBudget())).cells).toBe(10);
    // Row 2 is past the limit: 2 and 3 cells, then it stops.
    expect(workOf(() => boundedDistance('aaaa', 'bbbb', 1, new SuggestionBudget())).cells).toBe(5);
  });

  it('is exact for texts past the length cap too: its rows grow, and stay right for short texts', () => {
    const a = 'a'.repeat(MAX_SUGGESTION_LENGTH + 1);
    expect(boundedDistance(a, `${'a'.repeat(MAX_SUGGESTION_LENGTH)}b`, 3)).toBe(1);
    expect(editDistance('a'.repeat(300), `b${'a'.repeat(299)}`)).toBe(1);
    expect(editDistance(a, 'b'.repeat(MAX_SUGGESTION_LENGTH + 1))).toBe(MAX_SUGGESTION_LENGTH + 1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('the extended-field suggestion, bounded', () => {
  const form: IncidentFieldDescriptor[] = Array.from({ length: 10 }, (_, i) => ({
    identifier: `claim_form:Field_Number_${i}`,
  }));

  it('agrees with the unbounded algorithm on random forms within the caps', () => {
    const identifier = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', 'A', 'B', ':', '_', ' '),
      minLength: 1,
      maxLength: 14,
    });
    fc.assert(
      fc.property(fc.uniqueArray(identifier, { maxLength: 12 }), identifier, (ids, typed) => {
        const descriptors = ids.map((id) => ({ identifier: id }));
        fc.pre(!ids.includes(typed));
        const [problem] = checkExtendedFields(descriptors, [{ identifier: typed, value: 'x' }]);
        expect(problem?.message).toBe(
          `unknown identifier ${quote(typed)}${referenceHint(typed, descriptors)}`,
        );
      }),
      { numRuns: 1_000 },
    );
  });

  it('a 1 MB identifier is compared with nothing: no work, and a message that says why', () => {
    const { result, cells } = workOf(() =>
      checkExtendedFields(form, [{ identifier: 'x'.repeat(MB), value: 'a' }]),
    );
    expect(cells).toBe(0);
    expect(result[0]?.message).toMatch(
      new RegExp(
        `^unknown identifier "x{199}…"; no suggestion for an identifier longer than ${MAX_SUGGESTION_LENGTH} characters$`,
      ),
    );
  });

  it('an identifier just at the length cap is still compared; one past it is not', () => {
    const at = `claim_form:Field_Number_1${'x'.repeat(MAX_SUGGESTION_LENGTH - 25)}`;
    expect(at).toHaveLength(MAX_SUGGESTION_LENGTH);
    expect(workOf(() => checkExtendedFields(form, [{ identifier: at, value: 'a' }])).cells).toBeGreaterThan(
      0,
    );
    expect(workOf(() => checkExtendedFields(form, [{ identifier: `${at}x`, value: 'a' }])).cells).toBe(0);
  });

  it('10,000 unknown entries: every one reported, the work within one budget per check', ROOM, () => {
    const values = Array.from({ length: 10_000 }, (_, i) => ({
      identifier: `claim_form:Fiel_Numbr_${i}`,
      value: 'a',
    }));
    const { result, cells } = workOf(() => checkExtendedFields(form, values));
    expect(result).toHaveLength(10_000);
    expect(result.every((p) => p.code === 'unknown_identifier')).toBe(true);
    expect(cells).toBeLessThanOrEqual(SUGGESTION_BUDGET + 2 * ONE_DISTANCE);
    // The first ones still got their hint; the ones past the budget say the search was cut.
    expect(result[0]?.message).toContain('did you mean "claim_form:Field_Number_0"');
    expect(result.at(-1)?.message).toMatch(/; no close field among the 0 of 10 compared$/);
  });

  it(
    'a typo against a form of 100,000 fields: at most 1,000 fields compared, within the budget',
    ROOM,
    () => {
      const big = Array.from({ length: 100_000 }, (_, i) => ({ identifier: `claim_form:Field_Number_${i}` }));
      const index = new FormIndex(big);
      const near = workOf(() =>
        locateExtendedFieldProblems(index, [{ identifier: 'claim_form:Field_Numbr_5', value: 'a' }]),
      );
      expect(near.cells).toBeLessThanOrEqual(SUGGESTION_BUDGET + 2 * ONE_DISTANCE);
      expect(near.result[0]?.problem.message).toContain('did you mean "claim_form:Field_Number_5"');
      const far = workOf(() =>
        locateExtendedFieldProblems(index, [{ identifier: 'claim_form:Feld_Numbr_99999', value: 'a' }]),
      );
      expect(far.cells).toBeLessThanOrEqual(SUGGESTION_BUDGET + 2 * ONE_DISTANCE);
      expect(far.result[0]?.problem.message).toMatch(
        new RegExp(`; (did you mean .*|no close field among the ${MAX_CANDIDATES} of 100000 compared)$`),
      );
    },
  );

  it('an identifier equal to a field but for case is found in any form, however large, at no cost', () => {
    const big = Array.from({ length: 100_000 }, (_, i) => ({ identifier: `claim_form:Field_Number_${i}` }));
    const index = new FormIndex(big);
    locateExtendedFieldProblems(index, [{ identifier: 'warm:up', value: 'a' }]);
    for (const typed of ['CLAIM_FORM:field_number_99999', 'other:Field_Number_99999', 'field_number_99999']) {
      const { result, cells } = workOf(() =>
        locateExtendedFieldProblems(index, [{ identifier: typed, value: 'a' }]),
      );
      expect(cells).toBe(0);
      expect(result[0]?.problem.message).toContain('did you mean "claim_form:Field_Number_99999"');
    }
  });

  it("the sandbox's check (the same code) does no work on a 200 KB identifier", () => {
    const { result, cells } = workOf(() =>
      extendedFieldProblems(
        form.map((f) => ({
          identifier: f.identifier,
          mapsTo: 'extendedFields',
          name: 'n',
          section: 's',
          dataType: 'string',
          maxLength: null,
          isRequired: false,
          listSource: null,
        })),
        [{ identifier: 'y'.repeat(200 * 1024), value: 'a' }],
      ),
    );
    expect(cells).toBe(0);
    expect(result[0]).toMatchObject({ code: 'unknown_identifier', path: 'extendedFields[0].identifier' });
  });
});

describe('FormIndex.closest', () => {
  const cellsOf = (run: () => unknown) => workOf(run).cells;

  it('says what it found, how it searched and how many fields it compared', () => {
    const near = { identifier: 'f:Abce' };
    const index = new FormIndex([{ identifier: 'f:Wxyz' }, near]);
    expect(index.closest('F:aBCE', new SuggestionBudget())).toEqual({
      close: near,
      nearest: near,
      search: 'complete',
      compared: 1,
    });
    expect(index.closest('f:Abcd', new SuggestionBudget())).toEqual({
      close: near,
      nearest: near,
      search: 'complete',
      compared: 2,
    });
  });

  it(`compares a name of ${MAX_SUGGESTION_LENGTH} characters, and skips one longer`, () => {
    const at = { identifier: `f:${'n'.repeat(MAX_SUGGESTION_LENGTH - 2)}` };
    const past = { identifier: `f:${'n'.repeat(MAX_SUGGESTION_LENGTH - 1)}` };
    const typed = `f:${'n'.repeat(MAX_SUGGESTION_LENGTH - 3)}x`;
    expect(new FormIndex([at]).closest(typed, new SuggestionBudget())).toMatchObject({
      close: at,
      compared: 1,
    });
    expect(new FormIndex([past]).closest(typed, new SuggestionBudget())).toEqual({
      close: undefined,
      nearest: undefined,
      search: 'complete',
      compared: 0,
    });
  });

  it('compares each later name only as far as it could be close, or nearer than the nearest so far', () => {
    const index = new FormIndex([{ identifier: 'f:abce' }, { identifier: 'f:wxyz' }]);
    const spent = cellsOf(() => index.closest('f:abcd', new SuggestionBudget()));
    // The first name is compared as far as the longer text (6); it is 1 away, so the second is
    // compared within its tolerance (1), which is also as far as it could be nearer than 1.
    const distances = (name: string, limit: number) =>
      cellsOf(() => boundedDistance('f:abcd', `f:${name}`, limit, new SuggestionBudget())) +
      cellsOf(() => boundedDistance('abcd', name, limit, new SuggestionBudget()));
    expect(spent).toBe(2 + distances('abce', 6) + distances('wxyz', 1));
    expect(distances('wxyz', 1)).toBeLessThan(distances('wxyz', 2));
  });
});

describe('ListIndex.near', () => {
  it('compares lower-cased entries (the Kelvin sign is a k), not upper-cased ones', () => {
    expect(new ListIndex(['\u212A']).near('k')).toBe('\u212A');
    expect(new ListIndex(['ß']).near('SS')).toBeUndefined();
  });
});

describe('the near-typo check of top-level keys, bounded', () => {
  const documented = ['programmeCode', 'policyCountry', 'policyTypeCode', 'incidentDate', 'description'];

  it('a 1 MB unknown key costs no distance work, by hand and through zod alike', ROOM, () => {
    const key = 'k'.repeat(MB);
    expect(workOf(() => nearTypoOf(key, documented)).cells).toBe(0);
    const body = { ...incident, [key]: 'x' };
    const byHand = workOf(() => parseIncidentCreate(body));
    expect(byHand.cells).toBe(0);
    expect(byHand.result).toMatchObject({ [key]: 'x' });
    const byZod = workOf(() => IncidentCreateSchema.safeParse(body));
    expect(byZod.cells).toBe(0);
    expect(byZod.result.success).toBe(true);
  });

  it('10,000 unknown keys cost at most a constant per key', ROOM, () => {
    const body: Record<string, unknown> = { ...incident };
    for (let i = 0; i < 10_000; i++) body[`brokerRef${i}`] = i;
    const { cells } = workOf(() => parseIncidentCreate(body));
    // Each key against each of 7 documented keys, within the band of its tolerance.
    expect(cells / 10_000).toBeLessThanOrEqual(7 * 15 * 11);
  });

  it('still finds the typos it found', () => {
    expect(nearTypoOf('extendedFeilds', ['extendedFields'])).toBe('extendedFields');
    expect(nearTypoOf('ISACTIVE', ['isActive'])).toBe('isActive');
    expect(
      nearTypoOf('x'.repeat(MAX_SUGGESTION_LENGTH + 1), ['x'.repeat(MAX_SUGGESTION_LENGTH)]),
    ).toBeUndefined();
    // A key of the length cap is still compared.
    const atCap = 'x'.repeat(MAX_SUGGESTION_LENGTH);
    expect(nearTypoOf(`${'x'.repeat(MAX_SUGGESTION_LENGTH - 1)}y`, [atCap])).toBe(atCap);
  });
});

describe('listSource indexed once per cached form (#27.2)', () => {
  const list = Array.from({ length: 100_000 }, (_, i) => `Value ${i}`);
  const descriptors = [{ identifier: 'f:L', listSource: list }];

  it('the cached form is indexed on its first check only, whatever the number of values checked', () => {
    const first = workOf(() =>
      locateExtendedFieldProblems(cachedFormIndex(descriptors), [{ identifier: 'f:L', value: 'Value 5' }]),
    );
    expect(first.result).toEqual([]);
    expect(first.listEntries).toBe(list.length);
    const later = workOf(() => {
      for (let n = 0; n < 50; n++) {
        locateExtendedFieldProblems(cachedFormIndex(descriptors), [
          { identifier: 'f:L', value: `Value ${n}` },
          { identifier: 'f:L', value: 'value 7 ' },
        ]);
      }
    });
    // The case-folded entries for the hint, once; nothing else.
    expect(later.listEntries).toBe(list.length);
    expect(cachedFormIndex(descriptors)).toBe(cachedFormIndex(descriptors));
  });

  it('matches as before: exactly, and hints the first entry equal but for case and spaces', () => {
    const index = new FormIndex([{ identifier: 'f:L', listSource: [' Fire ', 'fire', 'Flood'] }]);
    const messages = (value: string) =>
      locateExtendedFieldProblems(index, [{ identifier: 'f:L', value }]).map((p) => p.problem.message);
    expect(messages('fire')).toEqual([]);
    expect(messages(' Fire ')).toEqual([]);
    expect(messages('FIRE')).toEqual([
      '"f:L" must be one of:  Fire , fire, Flood; got "FIRE"; did you mean " Fire "? (values must match exactly, including case)',
    ]);
    expect(messages('Smoke')).toEqual(['"f:L" must be one of:  Fire , fire, Flood; got "Smoke"']);
  });

  it('descriptors given directly are indexed per check, so a changed array is never seen stale', () => {
    const given = [{ identifier: 'f:L', listSource: ['A'] }];
    expect(checkExtendedFields(given, [{ identifier: 'f:L', value: 'B' }])).toHaveLength(1);
    given[0]?.listSource.push('B');
    expect(checkExtendedFields(given, [{ identifier: 'f:L', value: 'B' }])).toEqual([]);
  });
});
