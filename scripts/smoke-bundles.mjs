#!/usr/bin/env node
/**
 * Part of the smoke test (scripts/smoke-pack.sh): a serverless handler that creates an
 * incident, uploads a file and files an incident with `{ file }`, bundled from the installed
 * tarball the way a user does it, with no flag beyond the defaults:
 *
 *   esbuild --bundle --platform=node [--format=esm]   (ESM and CJS)
 *   Rollup with @rollup/plugin-node-resolve and @rollup/plugin-commonjs as they come (ESM and CJS)
 *
 * The project it bundles in has only the SDK and its schemas' zod installed: no undici and no
 * optional peer (@opentelemetry/api, msw, pg), which must neither break a build nor be loaded.
 * Each bundle then runs in a fresh Node process against the sandbox, twice: copied alone to a
 * folder with no node_modules above it (a function deployed as its bundle), and beside the
 * app's node_modules (undici and @opentelemetry/api installed), where only undici may load.
 * Last, the create-only handler bundled and minified must fit the budget (bench/lib/handlers.ts).
 *
 *   node scripts/smoke-bundles.mjs <work dir> <app dir with the tarball installed>
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [work, app] = process.argv.slice(2);
if (!work || !app) throw new Error('usage: smoke-bundles.mjs <work dir> <app dir>');
const fromRoot = createRequire(join(ROOT, 'package.json'));
const esbuild = fromRoot('esbuild');
const { rollup } = await import(pathToFileURL(fromRoot.resolve('rollup')).href);
const { nodeResolve } = await import(pathToFileURL(fromRoot.resolve('@rollup/plugin-node-resolve')).href);
const commonjs = (await import(pathToFileURL(fromRoot.resolve('@rollup/plugin-commonjs')).href)).default;
// Handlers and budget as the benches use them (plain data in a .ts file: read, not imported).
const handlersSource = readFileSync(join(ROOT, 'bench/lib/handlers.ts'), 'utf8');
const UPLOAD_HANDLER = templateOf('UPLOAD_HANDLER');
const CREATE_HANDLER = templateOf('CREATE_HANDLER');
const budget = /BUDGET = \{ bytes: ([\d_]+), gzipBytes: ([\d_]+) \}/.exec(handlersSource);
const BUDGET = {
  bytes: Number(budget[1].replaceAll('_', '')),
  gzipBytes: Number(budget[2].replaceAll('_', '')),
};
const OPTIONAL_PEERS = ['@opentelemetry/api', 'msw', 'pg'];

const say = (line) => console.log(`smoke: ${line}`);

// A function's project: the SDK and zod (its one dependency a handler's code path needs).
const fn = join(work, 'fn');
for (const name of ['claims-notification-sdk', 'zod']) {
  cpSync(join(app, 'node_modules', name), join(fn, 'node_modules', name), {
    recursive: true,
    dereference: true,
  });
}
writeFileSync(join(fn, 'package.json'), '{ "name": "claims-function", "private": true }\n');
writeFileSync(join(fn, 'handler.mjs'), UPLOAD_HANDLER);
writeFileSync(join(fn, 'create.mjs'), CREATE_HANDLER);
for (const name of ['undici', ...OPTIONAL_PEERS]) {
  if (existsSync(join(fn, 'node_modules', name))) throw new Error(`${name} must not be installed in ${fn}`);
}

const bundles = [];
for (const format of ['esm', 'cjs']) {
  const outfile = join(fn, 'out', `esbuild-${format}`, `handler.${format === 'esm' ? 'mjs' : 'cjs'}`);
  // `--format=esm` for ESM; for CJS nothing at all: esbuild's format on the node platform is cjs.
  const result = esbuild.buildSync({
    entryPoints: [join(fn, 'handler.mjs')],
    bundle: true,
    platform: 'node',
    ...(format === 'esm' ? { format: 'esm' } : {}),
    outfile,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: fn,
  });
  checkInputs(`esbuild ${format}`, Object.keys(result.metafile.inputs));
  bundles.push({ name: `esbuild ${format}`, file: outfile });
}
for (const format of ['es', 'cjs']) {
  const inputs = [];
  const warnings = [];
  const build = await rollup({
    input: join(fn, 'handler.mjs'),
    plugins: [nodeResolve(), commonjs()],
    onwarn: (warning) => warnings.push(warning),
  });
  for (const module of build.watchFiles) inputs.push(module);
  // Rollup splits at import(): a folder of chunks, as its output for a function always is.
  const ext = format === 'es' ? 'mjs' : 'cjs';
  const outDir = join(fn, 'out', `rollup-${ext}`);
  await build.write({
    dir: outDir,
    format,
    entryFileNames: `[name].${ext}`,
    chunkFileNames: `[name]-[hash].${ext}`,
  });
  await build.close();
  const outfile = join(outDir, `handler.${ext}`);
  // Rollup leaves a package it cannot find external with a warning: none may be needed.
  const unresolved = warnings.filter((w) => w.code === 'UNRESOLVED_IMPORT');
  if (unresolved.length > 0)
    throw new Error(`rollup ${format}: unresolved ${unresolved.map((w) => w.exporter ?? w.message)}`);
  checkInputs(`rollup ${format}`, inputs);
  bundles.push({ name: `rollup ${format === 'es' ? 'esm' : 'cjs'}`, file: outfile });
}
say(`built ${bundles.map((b) => b.name).join(', ')} with no flag, no undici, no optional peer installed`);

// The sandbox from the installed package's ./testing entry, in this process.
const testing = await import(
  pathToFileURL(join(app, 'node_modules/claims-notification-sdk/dist/testing/index.js')).href
);
const sandbox = await testing.createSandbox();
try {
  const deploy = join(work, 'deploy');
  const beside = join(app, 'deploy');
  for (const dir of [deploy, beside]) mkdirSync(dir, { recursive: true });
  if (findUp(deploy, 'node_modules')) throw new Error(`${deploy} has a node_modules above it`);
  for (const bundle of bundles) {
    for (const [where, dir, mayLoad] of [
      ['alone', deploy, []],
      ['beside node_modules', beside, ['undici']],
    ]) {
      // The bundle's folder as it is (Rollup's chunks beside its entry).
      const folder = join(dir, bundle.name.replace(' ', '-'));
      cpSync(dirname(bundle.file), folder, { recursive: true });
      const copy = join(folder, bundle.file.split('/').at(-1));
      const out = await runHandler(copy, dir);
      const label = `${bundle.name} bundle, ${where}`;
      checkFiled(label, out.result);
      const unexpected = out.loaded.filter((name) => !mayLoad.includes(name));
      if (unexpected.length > 0) throw new Error(`${label}: loaded ${unexpected.join(', ')}`);
      say(
        `${label}: create, upload and { file } ok; loaded ${out.loaded.length ? out.loaded.join(', ') : 'no package'}`,
      );
    }
  }
} finally {
  await sandbox.close();
}

// The budget: the create-only handler, `esbuild --bundle --platform=node --format=esm --minify`.
for (const [name, entry] of [
  ['create-only', 'create.mjs'],
  ['upload', 'handler.mjs'],
]) {
  const outfile = join(fn, 'out', `${name}.min.mjs`);
  esbuild.buildSync({
    entryPoints: [join(fn, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: true,
    outfile,
    logLevel: 'silent',
    absWorkingDir: fn,
  });
  const code = readFileSync(outfile);
  const gzip = gzipSync(code, { level: 9 }).byteLength;
  say(`${name} handler, esbuild --minify: ${code.byteLength} B (${gzip} B gzip)`);
  if (name === 'create-only' && (code.byteLength > BUDGET.bytes || gzip > BUDGET.gzipBytes)) {
    throw new Error(
      `the create-only handler bundle is ${code.byteLength} B (${gzip} B gzip), over the budget of ` +
        `${BUDGET.bytes} B (${BUDGET.gzipBytes} B gzip): see docs/serverless-and-runtimes.md`,
    );
  }
}

function templateOf(name) {
  const match = new RegExp(`export const ${name} = \`([\\s\\S]*?)\`;`).exec(handlersSource);
  if (!match) throw new Error(`no ${name} in bench/lib/handlers.ts`);
  return match[1];
}

/** Neither undici nor an optional peer may be in a bundle's graph. */
function checkInputs(label, inputs) {
  const found = inputs.filter((path) =>
    /node_modules[\\/](undici|@opentelemetry[\\/]api|msw|pg|form-data|mime-db)[\\/]/.test(path),
  );
  if (found.length > 0) throw new Error(`${label}: the bundle holds ${found.join(', ')}`);
}

function findUp(dir, name) {
  for (let at = dirname(dir); ; at = dirname(at)) {
    if (existsSync(join(at, name))) return join(at, name);
    if (dirname(at) === at) return undefined;
  }
}

/** Runs the bundle's handler in a fresh process; what it returned and which packages loaded. */
async function runHandler(bundle, cwd) {
  const runner = join(cwd, 'run-handler.mjs');
  writeFileSync(
    runner,
    `import { createRequire, register } from 'node:module';
const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (name) => loaded.add(name));
port1.unref();
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolveHook())}), { data: { port: port2 }, transferList: [port2] });
const mod = await import(process.argv[2]);
const handler = mod.handler ?? mod.default?.handler;
const result = await handler({ incident: JSON.parse(process.env.SMOKE_INCIDENT), text: 'claim photo' });
await new Promise((r) => setTimeout(r, 50));
for (const path of Object.keys(createRequire(import.meta.url).cache)) {
  const m = /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(path);
  if (m) loaded.add(m[1].replace('\\\\', '/'));
}
loaded.delete('claims-notification-sdk');
loaded.delete('zod');
console.log(JSON.stringify({ result, loaded: [...loaded].sort() }));
`,
  );
  // Async: the sandbox answers from this process meanwhile.
  const run = await promisify(execFile)(process.execPath, [runner, bundle], {
    cwd,
    timeout: 60_000,
    env: {
      ...process.env,
      CLAIMS_URL: sandbox.url,
      CLAIMS_TOKEN: sandbox.token,
      SMOKE_INCIDENT: JSON.stringify({
        programmeCode: 'PRG-HOME',
        policyTypeCode: 'HOME-STD',
        policyCountry: 'GB',
        incidentDate: '2026-11-02',
        description: 'bundled',
      }),
    },
  }).catch((error) => {
    throw new Error(`${bundle} failed (exit ${error.code}):\n${error.stderr}`);
  });
  return JSON.parse(run.stdout.trim().split('\n').at(-1));
}

/** A resolve hook that reports every package an `import` found in a node_modules (ESM; CJS is read from require.cache). */
function resolveHook() {
  return `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const m = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(resolved.url);
  if (m) port.postMessage(m[1]);
  return resolved;
}`;
}

function checkFiled(label, result) {
  const first = sandbox.incident(result?.incidentId);
  if (first?.description !== 'bundled')
    throw new Error(`${label}: the sandbox has no incident ${result?.incidentId}`);
  const uploaded = sandbox.attachment(result.uploaded?.attachmentId);
  if (uploaded?.data?.toString() !== 'claim photo' || uploaded.filename !== 'note.txt') {
    throw new Error(`${label}: the upload did not arrive whole: ${JSON.stringify(result.uploaded)}`);
  }
  const filed = sandbox.incident(result.filed?.incidentId);
  const linked = filed?.attachments?.[0] ?? filed?.body?.attachments?.[0];
  const file = linked && sandbox.attachment(linked.attachmentId);
  if (file?.data?.toString() !== 'claim photo' || file.filename !== 'photo.txt') {
    throw new Error(
      `${label}: the incident filed with { file } has no such attachment: ${JSON.stringify(filed?.body)}`,
    );
  }
}
