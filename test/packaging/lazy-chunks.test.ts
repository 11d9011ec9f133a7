/**
 * What `import 'claims-notification-sdk'` loads in a fresh process, read from the built chunk
 * graph (dist/ when fresh, else a scratch build of the entry put through the same
 * scripts/merge-chunks.mjs): few files, and none of the code of forms checking and
 * subscriptions as code, which load on first use by a dynamic `import()` with a static path (so
 * bundlers still include them).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeChunks } from '../../scripts/merge-chunks.mjs';
import { type BuiltEntry, builtEntry } from './built-entry.js';

const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

/** The files `start` loads: statically only, or following dynamic imports too. */
function reach(start: string, dynamic: boolean): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    const code = readFileSync(file, 'utf8');
    files.set(file, code);
    for (const match of code.matchAll(RELATIVE_IMPORT)) {
      const isDynamic = /\bimport\s*\(/.test(match[0]);
      if (dynamic || !isDynamic) visit(resolve(dirname(file), match[1] as string));
    }
  };
  visit(start);
  return files;
}

/** A function of the code that must load on first use only, by the name it has in src/. */
const LAZY_FUNCTIONS = {
  'checkForms (forms/compare-live.ts)': 'compareWithLive',
  'the forms diff (forms/diff.ts)': 'diffForms',
  'subscriptions.plan (subscription-plan.ts)': 'planSubscriptions',
  'subscriptions.apply (subscription-apply.ts)': 'applyPlan',
  'the desired-state check (desired-subscriptions.ts)': 'checkDesired',
};

let built: BuiltEntry;
let loaded: Map<string, string>;
let reachable: Map<string, string>;
beforeAll(async () => {
  built = await builtEntry();
  // A scratch build is tsup's alone: chunk it as `npm run build` does.
  if (built.label === 'tsup build') await mergeChunks(built.dir, [['index']]);
  loaded = reach(join(built.dir, 'index.js'), false);
  reachable = reach(join(built.dir, 'index.js'), true);
}, 120_000);
afterAll(() => built.remove());

const defines = (code: string, name: string) => new RegExp(`\\bfunction ${name}\\b`).test(code);

describe('importing the main entry (ESM, built)', () => {
  it('loads at most three files of ours: the entry, the code it shares, the error tree', () => {
    expect([...loaded.values()].some((code) => /\bClaimsClient = class\b/.test(code))).toBe(true);
    expect(loaded.size).toBeLessThanOrEqual(3);
  });

  it.each(Object.entries(LAZY_FUNCTIONS))('does not load %s', (_, name) => {
    expect([...loaded.values()].filter((code) => defines(code, name))).toEqual([]);
  });

  it.each(Object.entries(LAZY_FUNCTIONS))('still ships %s, in a chunk loaded on first use', (_, name) => {
    expect([...reachable.values()].filter((code) => defines(code, name))).toHaveLength(1);
  });
});
