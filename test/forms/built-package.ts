/**
 * A throwaway project in which `claims-notification-sdk` is the BUILT package (its
 * package.json `exports`, its `dist/` types and code), not `src/`: what a user's generated
 * module compiles against. `dist/` when it was built from the current source (an old build
 * proves nothing), else a fresh tsup build of the main entry, types included, into a scratch
 * folder. Never a silent skip.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as tsupBuild } from 'tsup';
import { builtFromSource } from '../../bench/lib/newest-mtime.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface BuiltProject {
  /** The project folder: write the files to compile here. */
  dir: string;
  /** Where the package's types came from. */
  label: 'dist' | 'tsup build';
  remove(): void;
}

export async function builtProject(): Promise<BuiltProject> {
  const fresh = builtFromSource(ROOT, [
    'dist/index.js',
    'dist/index.d.ts',
    'dist/index.cjs',
    'dist/index.d.cts',
  ]);
  mkdirSync(join(ROOT, '.bench-tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.bench-tmp', 'forms-project-'));
  const pkg = join(dir, 'node_modules', 'claims-notification-sdk');
  mkdirSync(pkg, { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
  // Another test may be rebuilding dist/ meanwhile (test/docs/readme.test.ts does when it is
  // stale): a copy that fails, or lacks the types, falls back to a build of our own.
  let copied = false;
  if (fresh) {
    try {
      cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
      copied = existsSync(join(pkg, 'dist', 'index.d.ts')) && existsSync(join(pkg, 'dist', 'index.js'));
    } catch {
      copied = false;
    }
  }
  if (!copied) {
    rmSync(join(pkg, 'dist'), { recursive: true, force: true });
    await tsupBuild({
      config: false,
      entry: { index: join(ROOT, 'src/index.ts') },
      format: ['esm', 'cjs'],
      target: 'node20',
      platform: 'node',
      splitting: true,
      treeshake: true,
      dts: { compilerOptions: { stripInternal: true } },
      silent: true,
      outDir: join(pkg, 'dist'),
    });
  }
  // The package's own dependencies (zod's types, undici's), and @types/node for the project.
  for (const dep of ['zod', 'undici', 'undici-types', '@types']) {
    symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir');
  }
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'forms-user', private: true, type: 'module' }),
  );
  return {
    dir,
    label: fresh ? 'dist' : 'tsup build',
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
