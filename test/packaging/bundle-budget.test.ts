/**
 * The size budget of a serverless handler (issue #25), checked on every `npm test` in about a
 * second: the create-only handler bundled from the current source as a user bundles the
 * package (`esbuild --bundle --platform=node --format=esm --minify`), against the budget in
 * bench/lib/handlers.ts. The smoke test checks the same on the packed tarball.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { BUDGET, CREATE_HANDLER, esbuildHandler, UPLOAD_HANDLER } from '../../bench/lib/handlers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(ROOT, '.bench-tmp'), { recursive: true });
const dir = mkdtempSync(join(ROOT, '.bench-tmp', 'budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(name: string, source: string) {
  writeFileSync(join(dir, `handler-${name}.mjs`), source);
  return esbuildHandler(join(dir, `handler-${name}.mjs`), join(dir, `${name}.bundle.mjs`), 'esm', {
    alias: { 'claims-notification-sdk': join(ROOT, 'src/index.ts') },
  });
}

it(`the create-only handler bundles to at most ${BUDGET.bytes} B, ${BUDGET.gzipBytes} B gzip, with no undici, MIME database or optional peer`, async () => {
  const figures = await bundle('create', CREATE_HANDLER);
  const packages = figures.byPackage.map((p) => p.name);
  expect(packages.filter((name) => name !== 'claims-notification-sdk' && name !== 'the handler')).toEqual([
    'zod',
  ]);
  expect(figures.bytes, 'over the budget: see docs/serverless-and-runtimes.md').toBeLessThanOrEqual(
    BUDGET.bytes,
  );
  expect(figures.gzipBytes, 'over the budget: see docs/serverless-and-runtimes.md').toBeLessThanOrEqual(
    BUDGET.gzipBytes,
  );
});

it('the upload handler holds the same packages: uploads bring no multipart library', async () => {
  const figures = await bundle('upload', UPLOAD_HANDLER);
  expect(figures.byPackage.map((p) => p.name).sort()).toEqual([
    'claims-notification-sdk',
    'the handler',
    'zod',
  ]);
});
