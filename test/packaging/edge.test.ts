/**
 * The edge entry (workerd, Deno, Bun, browsers) must run where there is no Node: no `node:`
 * module (nor a bare builtin such as `stream`), no undici and no form-data may be reachable
 * from it, statically or through `import()`. Checked on the bundle esbuild makes of the
 * current source for the neutral platform, the way tsup builds `dist/edge.js`, by reading the
 * metafile's import graph, so a failure names the file that brought the import in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as edge from '../../src/edge.js';
import * as node from '../../src/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE_ONLY_PACKAGES = new Set(['undici', 'form-data']);
/** The files whose `import()` of a package named in a variable only a bundle of the Node entry may hold. */
const RUN_TIME_LOADERS = new Set(['src/wire/undici-agents.ts', 'src/telemetry/call-span.ts']);
const EDGE_CONDITIONS = ['workerd', 'edge-light', 'worker', 'deno', 'bun', 'browser'];

const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] as string);

/** Imports of Node modules or Node-only packages reachable from `entry`, as `importer -> import`. */
async function nodeImportsFrom(entry: string): Promise<string[]> {
  return offending(await importGraph(entry));
}

/** The import graph esbuild makes of `entry` for the neutral platform, bare imports kept as they are. */
async function importGraph(entry: string): Promise<Metafile> {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    outdir: join(ROOT, '.edge-check'),
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        // Kept in the graph as external imports (instead of failing to resolve), to be listed.
        name: 'node-builtins-external',
        setup(b) {
          // Builtins and packages (zod too) stay imports in the graph; our own files are followed.
          b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  });
  return result.metafile;
}

function offending(metafile: Metafile): string[] {
  const found: string[] = [];
  for (const [file, input] of Object.entries(metafile.inputs)) {
    for (const imported of input.imports) {
      const name = imported.path.startsWith('@')
        ? imported.path.split('/').slice(0, 2).join('/')
        : (imported.path.split('/')[0] as string);
      if (isBuiltin(imported.path) || NODE_ONLY_PACKAGES.has(name)) {
        found.push(`${file} -> ${imported.path} (${imported.kind})`);
      }
    }
  }
  return found.sort();
}

describe('edge entry', () => {
  it('reaches no node: module, no Node builtin, no undici and no form-data', async () => {
    expect(await nodeImportsFrom('src/edge.ts')).toEqual([]);
  });

  it('reaches no @opentelemetry/api: wrangler/miniflare refuse the import of an absent optional peer (the Node entry loads it at run time only)', async () => {
    const peerImports = async (entry: string) =>
      Object.values((await importGraph(entry)).inputs)
        .flatMap((input) => input.imports)
        .filter((i) => i.path === '@opentelemetry/api');
    // Its import() names the peer in a variable: no bundler sees it, in either entry.
    expect(await peerImports('src/edge.ts')).toEqual([]);
    expect(await peerImports('src/index.ts')).toEqual([]);
    // The modules that load undici and the peer at run time: the Node entry's, never the edge's.
    expect(Object.keys((await importGraph('src/index.ts')).inputs)).toEqual(
      expect.arrayContaining([...RUN_TIME_LOADERS]),
    );
    expect(
      Object.keys((await importGraph('src/edge.ts')).inputs).filter((f) => RUN_TIME_LOADERS.has(f)),
    ).toEqual([]);
  });

  it('the check finds them where they are: the Node entry reaches node:stream and node:http', async () => {
    const found = await nodeImportsFrom('src/index.ts');
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringContaining('-> node:stream'),
        expect.stringContaining('-> node:http'),
      ]),
    );
    // undici and form-data: in no bundle's graph (undici is loaded at run time, form-data is gone).
    expect(found.filter((line) => /-> (?:undici|form-data)\b/.test(line))).toEqual([]);
  });

  it('exports every value the Node entry does, except the two webhook receivers that need Node', () => {
    const nodeOnly = ['receiveWebhook', 'verifyWebhook'];
    expect(Object.keys(edge).sort()).toEqual(
      Object.keys(node)
        .filter((name) => !nodeOnly.includes(name))
        .sort(),
    );
    // Same classes of errors and constants, so code written for one entry works on the other.
    expect(edge.ClaimsError.name).toBe('ClaimsError');
    expect(edge.EventTypes).toEqual(node.EventTypes);
  });

  it('is what the edge export conditions pick, for import and require; TypeScript gets the Node types first', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: { '.': Record<'import' | 'require', Record<string, string>> };
    };
    for (const [kind, ext] of [
      ['import', 'js'],
      ['require', 'cjs'],
    ] as const) {
      const conditions = pkg.exports['.'][kind];
      const keys = Object.keys(conditions);
      expect(keys[0]).toBe('types');
      expect(keys[keys.length - 1]).toBe('default');
      for (const condition of EDGE_CONDITIONS) expect(conditions[condition]).toBe(`./dist/edge.${ext}`);
      expect(conditions.default).toBe(`./dist/index.${ext}`);
    }
  });

  it.skipIf(!existsSync(join(ROOT, 'dist/edge.js')))(
    'dist/edge.js, dist/edge.cjs and their chunks load no node: module',
    () => {
      const files = ['dist/edge.js', 'dist/edge.cjs'];
      for (const file of files) {
        const code = readFileSync(join(ROOT, file), 'utf8');
        for (const chunk of code.matchAll(/(?:from|import\(|require\()\s*["']\.\/([^"']+)["']/g)) {
          if (!files.includes(`dist/${chunk[1]}`)) files.push(`dist/${chunk[1]}`);
        }
        expect(code).not.toMatch(/\b(?:from|import\(|require\()\s*["']node:/);
        expect(code).not.toMatch(/\b(?:from|import\(|require\()\s*["'](?:undici|form-data)["']/);
      }
    },
  );
});
