/**
 * A serverless function's first `incidents.create` must not load zod: the hand-written checks
 * (src/checks/) validate the body and the answer, and zod loads only to explain a refusal or
 * for other operations. Checked on the built package in a fresh Node process per case, ESM
 * (a module-load hook logs every module) and CJS (`require.cache`), against a local server.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incident } from '../helpers/fixtures.js';
import { type BuiltEntry, builtEntry } from './built-entry.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let built: BuiltEntry;
/** The child scripts, the hook and its log: beside the build, not in it. */
let work: string;
let server: Server;
let baseUrl: string;
beforeAll(async () => {
  built = await builtEntry();
  mkdirSync(join(ROOT, '.bench-tmp'), { recursive: true });
  work = mkdtempSync(join(ROOT, '.bench-tmp', 'first-call-'));
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"incidentId":"INC-1"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The hook runs on the loader's thread: it appends each loaded URL to the file it is given.
  writeFileSync(
    join(work, 'load-log-hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOAD_LOG, url + '\\n');
  return next(url, context);
}`,
  );
  writeFileSync(
    join(work, 'load-log.mjs'),
    `import { register } from 'node:module';\nregister('./load-log-hooks.mjs', import.meta.url);`,
  );
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
  built.remove();
});

/** The first call of a fresh process, each as a line of the child's code. */
const CALLS = {
  plain: `client.incidents.create(${JSON.stringify(incident)})`,
  'extended fields unchecked, url attachment, extraBody': `client.incidents.create(${JSON.stringify({
    ...incident,
    extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Fire' }],
    attachments: [{ url: 'https://files.example.com/a.jpg', description: 'Kitchen' }],
  })}, { checkExtendedFields: false, extraBody: { brokerReference: 'BR-1' } })`,
  'an invalid body (control: zod explains it)': `client.incidents.create(${JSON.stringify({
    ...incident,
    policyCountry: 'GBR',
  })}).catch((e) => e.name)`,
};

/** Runs `call` as the first call of a fresh process; the answer and the packages it loaded. */
async function firstCall(
  format: 'esm' | 'cjs',
  call: string,
): Promise<{ result: unknown; packages: string[] }> {
  const log = join(work, 'loaded.log');
  rmSync(log, { force: true });
  const body = `const client = new ClaimsClient({ baseUrl: process.env.BASE_URL, accessToken: 't', maxRetries: 0 });
const result = await ${call};`;
  const script =
    format === 'esm'
      ? `const { ClaimsClient } = await import(${JSON.stringify(pathToFileURL(join(built.dir, 'index.js')).href)});
${body}
process.stdout.write(JSON.stringify({ result }));`
      : `(async () => {
const { ClaimsClient } = require(${JSON.stringify(join(built.dir, 'index.cjs'))});
${body}
process.stdout.write(JSON.stringify({ result, loaded: Object.keys(require.cache) }));
})();`;
  const file = join(work, format === 'esm' ? 'child.mjs' : 'child.cjs');
  writeFileSync(file, script);
  const args = format === 'esm' ? ['--import', './load-log.mjs', file] : [file];
  const { stdout } = await run(process.execPath, args, {
    cwd: work,
    env: { ...process.env, BASE_URL: baseUrl, LOAD_LOG: log },
  });
  const out = JSON.parse(stdout) as { result: unknown; loaded?: string[] };
  const loaded = out.loaded ?? readFileSync(log, 'utf8').split('\n');
  const packages = new Set(loaded.map((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1]));
  packages.delete(undefined);
  return { result: out.result, packages: [...packages].sort() as string[] };
}

describe.each(['esm', 'cjs'] as const)('the first incidents.create of a process (%s, built)', (format) => {
  it.each(Object.keys(CALLS).slice(0, 2))(
    '%s: resolves without loading zod',
    async (name) => {
      const { result, packages } = await firstCall(format, CALLS[name as keyof typeof CALLS]);
      expect(result).toEqual({ incidentId: 'INC-1' });
      expect(packages).not.toContain('zod');
    },
    30_000,
  );

  it('an invalid body loads zod to say what is wrong (the probe sees zod when it loads)', async () => {
    const { result, packages } = await firstCall(format, CALLS['an invalid body (control: zod explains it)']);
    expect(result).toBe('ClaimsValidationError');
    expect(packages).toContain('zod');
  }, 30_000);
});
