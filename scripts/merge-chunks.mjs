/**
 * Runs after tsup (`npm run build`): re-chunks the Node ESM output with Rollup so that
 * `import 'claims-notification-sdk'` loads three files, not ten or more.
 *
 * Why: esbuild (tsup's bundler) splits code shared by several entry points into one chunk per
 * set of entries that share it, and counts every lazily loaded module as an entry of its own;
 * the main entry then loaded one file per such set. In a fresh process each file costs the ESM
 * loader a resolve, an asynchronous read and a compile: measured on the benchmark box, about as
 * much as 20 KB of code more in one file (docs/benchmarks.md). Rollup lets the chunks be chosen:
 *
 *   - `shared`: what the light entries (`./webhooks`, `./auth`) load, and the main entry too
 *     (the error classes, so `instanceof` holds across entries);
 *   - `core`: the rest of what the main entry loads and other entries share;
 *   - each module the code loads on first use (schemas and zod, uploads, OpenTelemetry) stays a
 *     chunk of its own; Rollup keeps in the main entry what it already loaded.
 *
 * Only the ESM files of the Node entries (the `import` condition of package.json's exports) are
 * rewritten; CommonJS (`require` is synchronous, a file costs little there), the edge entry and
 * the CLI bins are left as tsup wrote them. The code itself is unchanged (no tree shaking, no
 * renaming beyond what joining modules requires).
 *
 *   node scripts/merge-chunks.mjs [dist]
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The entries whose chunks must stay small: they load `shared` only. */
const LIGHT_ENTRIES = ['webhooks/index', 'auth/index'];
const MAIN_ENTRY = 'index';

/** The Node ESM entries of package.json's exports, by name (`index`, `batch/index`, ...). */
function nodeEsmEntries() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const names = [];
  for (const target of Object.values(pkg.exports)) {
    const file = target?.import?.default;
    if (typeof file === 'string' && file.endsWith('.js'))
      names.push(file.replace(/^\.\/dist\//, '').replace(/\.js$/, ''));
  }
  return names;
}

const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

/** Every relative import of a built file: [path, dynamic?]. */
function importsOf(file) {
  const out = [];
  for (const match of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
    out.push([resolve(dirname(file), match[1]), /\bimport\s*\(/.test(match[0])]);
  }
  return out;
}

/** The files `start` loads with static imports, itself included. */
function staticClosure(start) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [target, dynamic] of importsOf(file)) if (!dynamic) visit(target);
  };
  visit(start);
  return seen;
}

/** Every file the entries reach, statically or not: the files this script replaces. */
function everyFile(starts) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [target] of importsOf(file)) visit(target);
  };
  for (const start of starts) visit(start);
  return seen;
}

/**
 * Re-chunks the ESM files of `entries` in `dist` (see the top of this file).
 * @returns the files written, relative to `dist`.
 */
export async function mergeChunks(dist, entries = nodeEsmEntries()) {
  const fileOf = (name) => join(dist, `${name}.js`);
  const entryFiles = new Set(entries.map(fileOf));
  const light = new Set(
    LIGHT_ENTRIES.filter((name) => entries.includes(name)).flatMap((name) => [
      ...staticClosure(fileOf(name)),
    ]),
  );
  const main = entries.includes(MAIN_ENTRY) ? staticClosure(fileOf(MAIN_ENTRY)) : new Set();
  const inputs = everyFile([...entryFiles]);

  const bundle = await rollup({
    input: Object.fromEntries(entries.map((name) => [name, fileOf(name)])),
    // Packages and node: builtins stay imports, as tsup left them.
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    treeshake: false,
    onwarn(warning) {
      throw new Error(`merge-chunks: ${warning.code}: ${warning.message}`);
    },
  });
  const out = join(dist, '.merge-chunks');
  rmSync(out, { recursive: true, force: true });
  const { output } = await bundle.write({
    dir: out,
    format: 'es',
    entryFileNames: '[name].js',
    // esbuild's names end in its own hash (`later-VNVL2UC2`): keep the name, not the hash.
    chunkFileNames: (chunk) => `${chunk.name.replace(/-[A-Z0-9]{8}$/, '')}-[hash].js`,
    manualChunks(id) {
      if (entryFiles.has(id)) return undefined;
      if (light.has(id)) return 'shared';
      if (main.has(id)) return 'core';
      return undefined;
    },
  });
  await bundle.close();
  for (const file of inputs) rmSync(file);
  for (const { fileName } of output) renameSync(join(out, fileName), join(dist, fileName));
  rmSync(out, { recursive: true, force: true });
  return output.map((chunk) => chunk.fileName);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dist = resolve(process.argv[2] ?? join(ROOT, 'dist'));
  if (!existsSync(join(dist, `${MAIN_ENTRY}.js`)))
    throw new Error(`merge-chunks: no ${MAIN_ENTRY}.js in ${dist}`);
  const written = await mergeChunks(dist);
  process.stdout.write(`merge-chunks: ${written.length} ESM files in ${relative(ROOT, dist) || '.'}\n`);
}
