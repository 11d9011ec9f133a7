/**
 * How the tests start the bins (`claims`, `claims-sandbox`): the built `dist/bin/*.js` when
 * `dist/` was built from the current source (what users install; `.ci/run` builds before
 * `npm test`), else the sources through tsx (a fresh clone, or an edit since the last build).
 * A start through tsx costs about half a second more, and the CLI tests start some hundred.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestMtime } from '../../bench/lib/newest-mtime.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const SOURCES = {
  claims: 'src/cli/main.ts',
  'claims-sandbox': 'src/bin/claims-sandbox.ts',
} as const;

let srcTime: number | undefined;

/** The arguments to `node` that start `bin` (paths relative to the repository's root). */
export function binArgs(bin: keyof typeof SOURCES): string[] {
  const built = join('dist', 'bin', `${bin}.js`);
  srcTime ??= newestMtime(join(ROOT, 'src'));
  const fresh = existsSync(join(ROOT, built)) && statSync(join(ROOT, built)).mtimeMs >= srcTime;
  return fresh ? [built] : ['--import', 'tsx', SOURCES[bin]];
}
