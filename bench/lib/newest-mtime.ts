import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time under `dir`, to tell whether `dist/` was built from the current source. */
export function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
