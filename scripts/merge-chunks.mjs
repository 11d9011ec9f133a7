/**
 * Runs after tsup (`npm run build`): re-chunks the ESM output with Rollup so that
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
 * The edge entry (workerd, Deno, Bun, browsers) is built apart and re-chunked apart: Rollup then
 * keeps what its lazily loaded modules share with it in one chunk beside it. Only ESM files are
 * rewritten; CommonJS (`require` is synchronous, a file costs little there) and the CLI bins
 * are left as tsup wrote them. The code itself is unchanged (no tree shaking, no
 * renaming beyond what joining modules requires).
 *
 *   node scripts/merge-chunks.mjs [dist]
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The entries whose chunks must stay small: they load `shared` only. */
const LIGHT_ENTRIES = ['webhooks/index', 'auth/index'];
const MAIN_ENTRY = 'index';

/**
 * The ESM entries of package.json's exports by name (`index`, `batch/index`, ...): the Node
 * ones (`default`), and those of the other runtimes (`workerd`, `browser`...: the edge entry),
 * which are built apart and share no chunk with the Node ones.
 */
function esmEntries() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const node = new Set();
  const other = new Set();
  const name = (file) => file.replace(/^\.\/dist\//, '').replace(/\.js$/, '');
  for (const target of Object.values(pkg.exports)) {
    for (const [condition, file] of Object.entries(target?.import ?? {})) {
      if (typeof file !== 'string' || !file.endsWith('.js')) continue;
      (condition === 'default' ? node : other).add(name(file));
    }
  }
  return { node: [...node], other: [...other] };
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

/**
 * The files `starts` reach, themselves included: through static imports only (what loading
 * them loads), or through dynamic ones too (`dynamic`: every file they may ever load).
 */
function reached(starts, { dynamic }) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [target, isDynamic] of importsOf(file)) if (dynamic || !isDynamic) visit(target);
  };
  for (const start of starts) visit(start);
  return seen;
}

/** Rollup's chunks of one group of entries, written to `out` (see the top of this file). */
async function rechunk(dist, entries, out) {
  const fileOf = (name) => join(dist, `${name}.js`);
  const entryFiles = new Set(entries.map(fileOf));
  const light = new Set(
    LIGHT_ENTRIES.filter((name) => entries.includes(name)).flatMap((name) => [
      ...reached([fileOf(name)], { dynamic: false }),
    ]),
  );
  const main = entries.includes(MAIN_ENTRY) ? reached([fileOf(MAIN_ENTRY)], { dynamic: false }) : new Set();
  const bundle = await rollup({
    input: Object.fromEntries(entries.map((name) => [name, fileOf(name)])),
    // Packages and node: builtins stay imports, as tsup left them.
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    treeshake: false,
    onwarn(warning) {
      throw new Error(`merge-chunks: ${warning.code}: ${warning.message}`);
    },
  });
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
  return output.map((chunk) => chunk.fileName);
}

/**
 * Re-chunks the ESM files of each group of entries (names such as `index`, `batch/index`) in
 * `dist`. The groups are built apart (tsup's separate builds): each is re-chunked alone, and the
 * old files are removed only once every group is written, since two builds may have written
 * one identical chunk under one name. Files that other ESM files of `dist` import (the bins')
 * are kept.
 * @returns the files written, relative to `dist`.
 */
export async function mergeChunks(dist, groups = defaultGroups()) {
  const fileOf = (name) => join(dist, `${name}.js`);
  const rewritten = new Set(groups.flat().map(fileOf));
  const others = readdirSync(dist, { recursive: true })
    .map((file) => join(dist, String(file)))
    .filter(
      (file) => file.endsWith('.js') && !rewritten.has(file) && !/[\\/]chunk-|-[A-Z0-9]{8}\.js$/.test(file),
    );
  const kept = reached(others, { dynamic: true });
  const inputs = reached(rewritten, { dynamic: true });
  const work = join(dist, '.merge-chunks');
  rmSync(work, { recursive: true, force: true });
  const written = [];
  for (const [i, entries] of groups.entries()) {
    for (const file of await rechunk(dist, entries, join(work, String(i)))) written.push([i, file]);
  }
  for (const file of inputs) if (!kept.has(file)) rmSync(file);
  for (const [i, file] of written) renameSync(join(work, String(i), file), join(dist, file));
  rmSync(work, { recursive: true, force: true });
  return written.map(([, file]) => file);
}

/** The Node entries, then the other runtimes' (see {@link esmEntries}). */
function defaultGroups() {
  const { node, other } = esmEntries();
  return [node, other].filter((group) => group.length > 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dist = resolve(process.argv[2] ?? join(ROOT, 'dist'));
  if (!existsSync(join(dist, `${MAIN_ENTRY}.js`)))
    throw new Error(`merge-chunks: no ${MAIN_ENTRY}.js in ${dist}`);
  const written = await mergeChunks(dist);
  process.stdout.write(`merge-chunks: ${written.length} ESM files in ${relative(ROOT, dist) || '.'}\n`);
}
