/**
 * How the tests start the bins (`claims`, `claims-sandbox`): the built `dist/bin/*.js` when
 * `dist/` was built from the current source (what users install; `.ci/run` builds before
 * `npm test`), else the sources through tsx (a fresh clone, or an edit since the last build).
 * A start through tsx costs about half a second more, and the CLI tests start some hundred.
 */
import { fileURLToPath } from 'node:url';
import { builtFromSource } from '../../bench/lib/newest-mtime.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const SOURCES = {
  claims: 'src/cli/main.ts',
  'claims-sandbox': 'src/bin/claims-sandbox.ts',
} as const;

/**
 * The files a whole build has written, the declarations last: `dist/` is used only when all are
 * there and fresh, the same rule as the README blocks' (test/docs/readme.test.ts), so a test
 * never starts a bin that a build started by another test is about to replace.
 */
export const BUILT = ['dist/bin/claims.js', 'dist/bin/claims-sandbox.js', 'dist/testing/index.d.cts'];

/** The arguments to `node` that start `bin` (paths relative to the repository's root). */
export function binArgs(bin: keyof typeof SOURCES): string[] {
  return builtFromSource(ROOT, BUILT) ? [`dist/bin/${bin}.js`] : ['--import', 'tsx', SOURCES[bin]];
}
