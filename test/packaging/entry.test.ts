/**
 * What the main entry drags in when imported. A user's `import { ClaimsClient }` must not load
 * test code (msw, the sandbox) nor open `node:fs` until a path upload needs it (serverless cold
 * starts pay for every module). Node loads `fs` for itself anyway, so this is checked on the
 * bundled code: the entry is bundled the way tsup bundles it (esbuild, dependencies external),
 * from the current source, and its static imports are read. What tsup ships is checked too:
 * `dist/` when it was built from the current source, else a fresh tsup build (never a silent
 * skip). With code splitting, an entry's static imports include
 * local chunks: those are followed, since they load at import time too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtEntry } from './built-entry.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** Module specifiers imported at the top level (static `import`/`require`), not `import()`. */
function staticImports(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/^\s*import\s[^;]*?from\s*["']([^"']+)["']/gm))
    found.add(match[1] as string);
  for (const match of code.matchAll(/^\s*import\s*["']([^"']+)["']/gm)) found.add(match[1] as string);
  for (const match of code.matchAll(/\brequire\(["']([^"']+)["']\)/g)) found.add(match[1] as string);
  return [...found];
}

function dynamicImports(code: string): string[] {
  return [...code.matchAll(/\bimport\(["']([^"']+)["']\)/g)].map((m) => m[1] as string);
}

const bare = (specifier: string): string => specifier.replace(/^node:/, '');
const isBuiltin = (specifier: string): boolean =>
  builtinModules.includes(bare(specifier).split('/')[0] as string);
const packageName = (specifier: string): string =>
  specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : (specifier.split('/')[0] as string);

/** The code that loads with `entry`: it and every local chunk it statically imports. */
function withStaticChunks(entry: string, read: (path: string) => string | undefined): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  const visit = (path: string) => {
    const code = read(path);
    if (code === undefined || seen.has(path)) return;
    seen.add(path);
    parts.push(code);
    for (const s of staticImports(code)) if (s.startsWith('.')) visit(join(path, '..', s));
  };
  visit(entry);
  return parts.join('\n');
}

const bundles: Record<string, string> = {};
/** The ESM entry as tsup splits it (schemas in a chunk of their own): what `import` loads. */
let splitEntry = '';
beforeAll(async () => {
  const split = await build({
    entryPoints: [join(ROOT, 'src/index.ts')],
    bundle: true,
    splitting: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    outdir: join(ROOT, '.entry-check'),
    write: false,
    logLevel: 'silent',
  });
  const files = new Map(split.outputFiles.map((f) => [f.path, f.text]));
  splitEntry = withStaticChunks(join(ROOT, '.entry-check', 'index.js'), (p) => files.get(p));
  for (const format of ['esm', 'cjs'] as const) {
    const result = await build({
      entryPoints: [join(ROOT, 'src/index.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format,
      packages: 'external',
      write: false,
      logLevel: 'silent',
    });
    bundles[`source bundle (${format})`] = result.outputFiles[0]?.text ?? '';
  }
  // What tsup ships: dist/ when fresh, else a fresh tsup build of the entry. Never skipped.
  const built = await builtEntry();
  for (const file of ['index.js', 'index.cjs']) {
    const path = join(built.dir, file);
    bundles[`${built.label}/${file}`] = withStaticChunks(path, (p) =>
      existsSync(p) ? readFileSync(p, 'utf8') : undefined,
    );
  }
  built.remove();
}, 120_000);

describe('the main entry', () => {
  it('was bundled, and the tsup output checked (dist/ when fresh, else a fresh build)', () => {
    const shipped = Object.keys(bundles).filter((name) => /^(dist|tsup build)\//.test(name));
    expect(shipped).toHaveLength(2);
    for (const code of Object.values(bundles)) expect(code).toContain('ClaimsClient');
  });

  it('imports nothing at load time but node builtins and its declared dependencies', () => {
    const allowed = new Set(Object.keys(pkg.dependencies));
    for (const [name, code] of Object.entries(bundles)) {
      const outside = staticImports(code).filter(
        (s) => !s.startsWith('.') && !isBuiltin(s) && !allowed.has(packageName(s)),
      );
      expect(outside, name).toEqual([]);
    }
  });

  it('loads zod and undici on the first call, not on import', () => {
    expect(splitEntry).toContain('ClaimsClient');
    const loaded = staticImports(splitEntry).map(packageName);
    expect(loaded).not.toContain('zod');
    expect(loaded).not.toContain('undici');
    for (const [name, code] of Object.entries(bundles)) {
      if (name.startsWith('source bundle')) continue;
      expect(staticImports(code).map(packageName), name).not.toContain('zod');
      expect(staticImports(code).map(packageName), name).not.toContain('undici');
    }
  });

  it('uses zod/mini, never zod’s classic API (447 of a bundle’s KiB, against 31)', () => {
    // The source bundles hold the schemas inline (no splitting): every zod specifier is there.
    for (const format of ['esm', 'cjs']) {
      const code = bundles[`source bundle (${format})`] ?? '';
      const zod = [...staticImports(code), ...dynamicImports(code)].filter((s) => packageName(s) === 'zod');
      expect(new Set(zod), format).toEqual(new Set(['zod/mini', 'zod/locales']));
    }
  });

  it('does not load node:fs (or fs/promises) until a path upload asks for it', () => {
    for (const [name, code] of Object.entries(bundles)) {
      const fsImports = staticImports(code).filter((s) => bare(s) === 'fs' || bare(s).startsWith('fs/'));
      expect(fsImports, name).toEqual([]);
    }
    // ...and it is there, lazily, for uploads from a path.
    const lazy = dynamicImports(bundles['source bundle (esm)'] ?? '');
    expect(lazy.some((s) => bare(s) === 'fs' || bare(s).startsWith('fs/'))).toBe(true);
  });

  it('holds no test code: no msw, no sandbox server, no devDependency', () => {
    for (const [name, code] of Object.entries(bundles)) {
      const imports = [...staticImports(code), ...dynamicImports(code)];
      expect(
        imports.filter((s) => /msw|busboy|vitest|sandbox|testing/.test(s)),
        name,
      ).toEqual([]);
      expect(code, name).not.toMatch(/\bcreateSandbox\b|\bclaimsHandlers\b/);
      // Nor the sandbox's inspector page, its feed or its faults.
      expect(code, name).not.toMatch(
        /Claims sandbox inspector|\/_sandbox\/|EventSource|text\/event-stream|injected_fault|playwright/,
      );
    }
  });
});
