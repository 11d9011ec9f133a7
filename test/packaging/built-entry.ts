/**
 * The main entry as tsup ships it: `dist/` when it was built from the current source (an old
 * build proves nothing), else a fresh tsup build of the entry (JS only, split as tsup splits
 * it) into a scratch folder. Never a silent skip.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as tsupBuild } from 'tsup';
import { builtFromSource } from '../../bench/lib/newest-mtime.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where the built `index.js` and `index.cjs` are, what they are, and how to clean up. */
export interface BuiltEntry {
  dir: string;
  label: 'dist' | 'tsup build';
  remove(): void;
}

/** The built main entry: `dist/` when fresh, else a scratch tsup build (call `remove()` after). */
export async function builtEntry(): Promise<BuiltEntry> {
  if (builtFromSource(ROOT, ['dist/index.js', 'dist/index.cjs']))
    return { dir: join(ROOT, 'dist'), label: 'dist', remove: () => {} };
  // Inside the package (.bench-tmp/ is ignored by git), so the built code, when run, finds
  // its dependencies in the package's node_modules.
  mkdirSync(join(ROOT, '.bench-tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.bench-tmp', 'entry-build-'));
  await tsupBuild({
    config: false,
    entry: { index: join(ROOT, 'src/index.ts') },
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'node',
    splitting: true,
    treeshake: true,
    dts: false,
    silent: true,
    outDir: dir,
  });
  return { dir, label: 'tsup build', remove: () => rmSync(dir, { recursive: true, force: true }) };
}
