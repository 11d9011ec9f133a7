/**
 * `claims-notification-sdk/webhooks` must load no framework (importing it costs a handler
 * nothing it does not use) and nothing of Node (Hono on workerd, Next.js edge routes, Deno,
 * Bun): checked on the import graph esbuild makes of the source for the neutral platform,
 * dynamic imports included, and on the real module when imported.
 */
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function externalImports(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'bare-imports-external',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  });
  return Object.values(result.metafile.inputs)
    .flatMap((input) => input.imports)
    .filter((i) => i.external)
    .map((i) => i.path);
}

describe('the ./webhooks entry', () => {
  it('reaches no Node builtin, no framework, no package at all but zod types (erased)', async () => {
    const imports = await externalImports('src/webhooks/index.ts');
    const builtin = imports.filter(
      (p) => p.startsWith('node:') || builtinModules.includes(p.split('/')[0] ?? ''),
    );
    expect(builtin).toEqual([]);
    expect(imports).toEqual([]);
  });

  it('the check sees imports where they are: the Node receiver of the main entry reaches node:module', async () => {
    expect(await externalImports('src/webhook-receiver.ts')).toContain('node:module');
  });

  it('exports the adapters, the store and the rotation helper, and nothing that needs a framework', async () => {
    const webhooks = await import('../../src/webhooks/index.js');
    expect(Object.keys(webhooks).sort()).toEqual([
      'MemoryDeliveryStore',
      'createLambdaHandler',
      'createNodeMiddleware',
      'createWebMiddleware',
      'fastifyWebhooks',
      'generateHeaderValue',
    ]);
  });
});
