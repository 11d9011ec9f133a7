/**
 * Bundles a tiny Lambda-like handler that imports the SDK by its package name, the way a
 * function is deployed (`esbuild --bundle --platform=node --format=esm|cjs --minify`), and
 * reads the bundle's composition from esbuild's metafile.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

// A client built once per cold start, outside the handler, as functions are written.
const HANDLER = `import { ClaimsClient } from 'claims-notification-sdk';

const client = new ClaimsClient({ baseUrl: process.env.CLAIMS_BENCH_URL ?? '', accessToken: ${JSON.stringify('tok_bench_0123456789abcdef')} });

export async function handler(event) {
  return client.incidents.create(event.incident);
}
`;

export interface BundleInfo {
  file: string;
  bytes: number;
  /** Bytes in the output by package (`claims-notification-sdk` for the SDK's own code), largest first. */
  byPackage: Array<{ name: string; bytes: number }>;
}

/**
 * Builds `handler.mjs` in `dir` into `bundle-<format>.<ext>`. `dir` must sit inside the
 * package, so `claims-notification-sdk` resolves to it by self-reference (its `exports`, i.e.
 * `dist/`); the repository's tsconfig `paths` (which point at `src/`) are ignored.
 * No flag beyond these: undici and `@opentelemetry/api` are not in the graph (the SDK loads
 * them at run time, from node_modules, where it needs them).
 */
export async function bundleHandler(dir: string, format: 'esm' | 'cjs'): Promise<BundleInfo> {
  const entry = join(dir, 'handler.mjs');
  await writeFile(entry, HANDLER);
  const outfile = join(dir, `bundle-${format}.${format === 'esm' ? 'mjs' : 'cjs'}`);
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format,
    minify: true,
    metafile: true,
    logLevel: 'error',
    tsconfigRaw: '{}',
  });
  const output = Object.entries(result.metafile.outputs).find(([path]) => outfile.endsWith(path))?.[1];
  if (!output) throw new Error(`esbuild wrote no ${outfile}`);
  const byPackage = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    const name = packageOf(path);
    byPackage.set(name, (byPackage.get(name) ?? 0) + input.bytesInOutput);
  }
  return {
    file: outfile,
    bytes: output.bytes,
    byPackage: [...byPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes),
  };
}

/** The package an input path belongs to: the innermost `node_modules/<name>`, else the SDK. */
function packageOf(path: string): string {
  const found = [...path.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].at(-1);
  if (found?.[1]) return found[1];
  return path.endsWith('handler.mjs') ? 'the handler' : 'claims-notification-sdk';
}
