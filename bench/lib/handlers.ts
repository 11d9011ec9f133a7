/**
 * The serverless handlers of issue #25, as a user writes them: a client built once per cold
 * start, outside the handler. `create` only files an incident (the size budget's handler);
 * `upload` also uploads a file and files an incident with `{ file }` (measured and published).
 * Both import the SDK by its package name, so a bundler resolves it through `exports`.
 */
import { build, type Metafile } from 'esbuild';

export const CREATE_HANDLER = `import { ClaimsClient } from 'claims-notification-sdk';

const client = new ClaimsClient({ baseUrl: process.env.CLAIMS_URL ?? '', accessToken: process.env.CLAIMS_TOKEN ?? '' });

export async function handler(event) {
  return client.incidents.create(event.incident);
}
`;

export const UPLOAD_HANDLER = `import { ClaimsClient } from 'claims-notification-sdk';

const client = new ClaimsClient({ baseUrl: process.env.CLAIMS_URL ?? '', accessToken: process.env.CLAIMS_TOKEN ?? '' });

export async function handler(event) {
  const bytes = new TextEncoder().encode(event.text);
  const { incidentId } = await client.incidents.create(event.incident);
  const [uploaded] = await client.attachments.upload([{ data: bytes, filename: 'note.txt' }]);
  const filed = await client.incidents.create({
    ...event.incident,
    attachments: [{ file: { data: bytes, filename: 'photo.txt' } }],
  });
  return { incidentId, uploaded, filed };
}
`;

/** The size budget of the minified create-only handler bundle (issue #25), in bytes. */
export const BUDGET = { bytes: 150_000, gzipBytes: 45_000 } as const;

export interface BundleFigures {
  bytes: number;
  gzipBytes: number;
  /** Bytes in the output by package (`claims-notification-sdk` for the SDK), largest first. */
  byPackage: Array<{ name: string; bytes: number }>;
}

/**
 * Bundles `entry` with esbuild's defaults for a function (`--bundle --platform=node`, the
 * format, `--minify`): no external, no banner, as a user types it.
 */
export async function esbuildHandler(
  entry: string,
  outfile: string,
  format: 'esm' | 'cjs',
  options: { minify?: boolean; absWorkingDir?: string; alias?: Record<string, string> } = {},
): Promise<BundleFigures> {
  const { gzipSync } = await import('node:zlib');
  const { readFileSync } = await import('node:fs');
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format,
    minify: options.minify ?? true,
    metafile: true,
    logLevel: 'error',
    tsconfigRaw: '{}',
    ...(options.absWorkingDir ? { absWorkingDir: options.absWorkingDir } : {}),
    ...(options.alias ? { alias: options.alias } : {}),
  });
  const code = readFileSync(outfile);
  return {
    bytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
    byPackage: byPackage(result.metafile, outfile),
  };
}

function byPackage(metafile: Metafile, outfile: string): BundleFigures['byPackage'] {
  const output = Object.entries(metafile.outputs).find(([path]) => outfile.endsWith(path))?.[1];
  if (!output) return [];
  const sums = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    const found = [...path.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].at(-1);
    const name = found?.[1] ?? (/handler/.test(path) ? 'the handler' : 'claims-notification-sdk');
    sums.set(name, (sums.get(name) ?? 0) + input.bytesInOutput);
  }
  return [...sums].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}
