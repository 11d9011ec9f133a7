import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The newest modification time under `dir`, to tell whether `dist/` was built from the current
 * source. Folders count too: a file deleted or renamed changes its folder's time, not a file's.
 */
export function newestMtime(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Whether `dist/` holds a build of the current source, by the files given (paths from `root`):
 * each there, and none older than `src/`, the build's config, or the locked dependencies the
 * bins bundle.
 */
export function builtFromSource(root: string, files: readonly string[]): boolean {
  const inputs = ['tsup.config.ts', 'package.json', 'package-lock.json']
    .map((file) => join(root, file))
    .filter((path) => existsSync(path))
    .map((path) => statSync(path).mtimeMs);
  const source = Math.max(newestMtime(join(root, 'src')), ...inputs);
  return files.every((file) => {
    const path = join(root, file);
    return existsSync(path) && statSync(path).mtimeMs >= source;
  });
}
