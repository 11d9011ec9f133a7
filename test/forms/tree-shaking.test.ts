/**
 * Forms cost nothing to a handler that does not use them: a bundle of `ClaimsClient` alone
 * holds none of the diff, the programmes reader, the generator or the JSON Schemas;
 * `checkForms` brings the diff but never the generator, which lives only behind the CLI.
 * Bundled as a serverless function is (esbuild, minified, tree-shaken, dependencies external).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function bundle(code: string): Promise<string> {
  const result = await build({
    stdin: { contents: code, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    minify: true,
    treeShaking: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles.map((f) => f.text).join('\n');
}

/** A string from each file of src/forms/, none of which a plain handler may carry. */
const MARKS = {
  diff: 'list_value_removed',
  check: 'form_removed',
  programmes: 'Cannot list the forms',
  generator: 'biome-ignore-all',
  jsonSchema: 'json-schema.org/draft/2020-12',
  files: 'claims-forms.json',
  pull: 'Cannot pull the forms',
};

describe('what forms add to a bundle', () => {
  it('nothing of src/forms/ in a handler that imports ClaimsClient only', async () => {
    const code = await bundle(`import { ClaimsClient } from './src/index.ts';
      const client = new ClaimsClient({ baseUrl: process.env.URL, accessToken: 't' });
      export const handler = (event) => client.incidents.create(event.incident);`);
    expect(code).toContain('form_not_in_snapshot'); // the formSnapshot option lives in the client
    for (const mark of Object.values(MARKS)) expect(code).not.toContain(mark);
    expect(code).not.toMatch(/node:crypto|from"crypto"/);
  });

  it('checkForms brings the diff and the programmes reader, never the generator, the schemas or node:crypto', async () => {
    const code = await bundle(`import { ClaimsClient, checkForms } from './src/index.ts';
      export const run = (snapshot) => checkForms(new ClaimsClient({ baseUrl: 'https://x', accessToken: 't' }), snapshot);`);
    for (const mark of [MARKS.diff, MARKS.check, MARKS.programmes]) expect(code).toContain(mark);
    for (const mark of [MARKS.generator, MARKS.jsonSchema, MARKS.files, MARKS.pull])
      expect(code).not.toContain(mark);
    expect(code).not.toMatch(/node:crypto|from"crypto"/);
  });

  it('the claims bin carries all of it', async () => {
    const code = await bundle(`import { runCli } from './src/cli/program.ts'; export { runCli };`);
    for (const mark of Object.values(MARKS)) expect(code).toContain(mark);
  });

  it('marks are real: each is in its file', async () => {
    const { readFileSync } = await import('node:fs');
    const read = (file: string) => readFileSync(join(ROOT, 'src', 'forms', file), 'utf8');
    expect(read('changes.ts')).toContain(MARKS.diff);
    expect(read('programmes.ts')).toContain(MARKS.programmes);
    expect(read('generate.ts')).toContain(MARKS.generator);
    expect(read('json-schema.ts')).toContain(MARKS.jsonSchema);
    expect(read('snapshot-file.ts')).toContain(MARKS.files);
    expect(read('pull.ts')).toContain(MARKS.pull);
  });
});
