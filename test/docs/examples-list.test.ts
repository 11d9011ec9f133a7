/** The guide's list of examples is what `npm run demo` runs, and the demo runs every example. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEMO_EXAMPLES } from '../../examples/demo-examples.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the examples list', () => {
  it('in docs/testing-with-the-sandbox.md names exactly the examples npm run demo runs, in order', () => {
    const guide = readFileSync(join(ROOT, 'docs/testing-with-the-sandbox.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## The examples and `npm run demo`'));
    const listed = [...section.matchAll(/^\| \[`([^`]+)`\]\(\.\.\/examples\/\1\)/gm)].map((m) => m[1]);
    expect(listed).toEqual([...DEMO_EXAMPLES]);
  });

  it('the demo runs every numbered example in examples/', () => {
    const numbered = readdirSync(join(ROOT, 'examples')).filter((name) => /^\d\d-.*\.ts$/.test(name));
    expect([...DEMO_EXAMPLES].sort()).toEqual(numbered.sort());
  });
});
