/**
 * The CLI's libraries (commander, cli-progress, csv-parse) are for the `claims` bin only:
 * importing the SDK (root or ./batch) and making its first call must not load them.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI_LIBRARIES = /^(commander|cli-progress|csv-parse)(\/|$)/;

describe('the CLI libraries', () => {
  it('are not in the import graph (static or dynamic) of the root or ./batch entries', async () => {
    for (const entry of ['src/index.ts', 'src/batch/index.ts']) {
      const result = await build({
        entryPoints: [join(ROOT, entry)],
        bundle: true,
        platform: 'node',
        format: 'esm',
        packages: 'external',
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      const imported = Object.values(result.metafile.inputs).flatMap((input) =>
        input.imports.map((i) => i.path),
      );
      expect(imported.length, entry).toBeGreaterThan(0);
      expect(
        imported.filter((path) => CLI_LIBRARIES.test(path)),
        entry,
      ).toEqual([]);
      const sources = Object.keys(result.metafile.inputs);
      expect(
        sources.filter((path) => path.includes('src/cli/')),
        entry,
      ).toEqual([]);
    }
  });

  it('are not loaded by importing the SDK and making a first call (incidents.create, a batch)', () => {
    const script = `
      import { createServer } from 'node:http';
      import { createRequire } from 'node:module';
      import { mkdtempSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      const server = createServer((req, res) => { req.resume(); req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' }); res.end('{"incidentId":"INC-1"}'); }); });
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      const { ClaimsClient } = await import('./src/index.ts');
      const { fileClaims } = await import('./src/batch/index.ts');
      const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:' + server.address().port, accessToken: 't' });
      const incident = { programmeCode: 'P', policyCountry: 'GB', policyTypeCode: 'T', incidentDate: '2026-01-01', description: 'd' };
      await client.incidents.create(incident);
      const journal = join(mkdtempSync(join(tmpdir(), 'lazy-')), 'j');
      for await (const r of fileClaims(client, [{ key: 'a', incident }], { journal })) if (r.state !== 'filed') throw new Error(r.state);
      server.close();
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ cjs: loaded.length, cli: loaded.filter((p) => /node_modules.(commander|cli-progress|csv-parse)/.test(p)) }));
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stderr).toBe('');
    const { cjs, cli } = JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as {
      cjs: number;
      cli: string[];
    };
    // form-data and its CommonJS dependencies are in the cache: the check can see CJS packages.
    expect(cjs).toBeGreaterThan(0);
    expect(cli).toEqual([]);
  });
});
