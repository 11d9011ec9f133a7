/**
 * Ecosystem tests: the packed tarball installed into a small fixture project, and the same
 * cases (fixtures/cases.mjs: every call, through the runtime's own fetch on the edge entry)
 * run by each runtime that installs here from the npm registry, against the sandbox running
 * in this Node process. What each run did is then checked against what the sandbox received.
 *
 * Runtimes are npm packages (deno, bun, miniflare for workerd, node@22/24/26), installed once
 * into a cache directory (CLAIMS_ECOSYSTEM_CACHE, default ~/.cache/claims-notification-sdk/
 * ecosystem). A runtime that cannot be installed (offline, no binary for this platform) is
 * skipped with the reason. Run with `npm run ecosystem` after `npm run build`.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { Sandbox } from '../../src/testing/index.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const CACHE =
  process.env.CLAIMS_ECOSYSTEM_CACHE ?? join(homedir(), '.cache', 'claims-notification-sdk', 'ecosystem');
const INSTALL_TIMEOUT_MS = 5 * 60_000;
const RUN_TIMEOUT_MS = 90_000;

/** Exact versions, so a cached install is reused and a run is reproducible. */
const RUNTIME_PACKAGES = {
  deno: 'deno@2.9.6',
  bun: 'bun@1.4.5',
  miniflare: 'miniflare@4.20260426.0',
  node22: 'node@22.23.3',
  node24: 'node@24.21.0',
  node26: 'node@26.10.0',
} as const;
/** msw 3 (it needs Node 22.12 or later), for claimsHandlers() on Node 22. */
const MSW3 = 'msw@3.0.5';
type RuntimeName = keyof typeof RUNTIME_PACKAGES;

/** What each runtime ran, for the closing summary. */
const summary: string[] = [];

let work = '';
let app = '';
let sandbox: Sandbox;
let expectedUploads: Record<string, string> = {};
let tarball = '';

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/edge.js')))
    throw new Error('run `npm run build` first: dist/edge.js is missing');
  work = mkdtempSync(join(tmpdir(), 'claims-ecosystem-'));
  app = join(work, 'app');
  mkdirSync(app);
  const { stdout } = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], {
    cwd: ROOT,
  });
  tarball = join(work, stdout.trim().split('\n').pop() as string);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'claims-ecosystem-app', private: true }));
  await installTarball(tarball);
  cpSync(FIXTURES, app, { recursive: true });
  // The sandbox as the package ships it, from the installed tarball.
  const testing = join(app, 'node_modules/claims-notification-sdk/dist/testing/index.js');
  const { createSandbox } = (await import(
    pathToFileURL(testing).href
  )) as typeof import('../../src/testing/index.js');
  sandbox = await createSandbox();
  ({ UPLOADS: expectedUploads } = (await import(pathToFileURL(join(app, 'cases.mjs')).href)) as {
    UPLOADS: Record<string, string>;
  });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await sandbox?.close();
  if (work && !process.env.KEEP_ECOSYSTEM_DIR) rmSync(work, { recursive: true, force: true });
  console.log(`ecosystem runtimes:\n  ${summary.join('\n  ')}`);
});

/**
 * Installs the tarball as a user would (dependencies from the npm cache or the registry);
 * offline, lays it out by hand with the repo's dependencies linked, as scripts/smoke-pack.sh does.
 */
async function installTarball(tarball: string): Promise<void> {
  try {
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball],
      {
        cwd: app,
        timeout: INSTALL_TIMEOUT_MS,
      },
    );
  } catch {
    const target = join(app, 'node_modules/claims-notification-sdk');
    rmSync(join(app, 'node_modules'), { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // Linked, not copied: their own dependencies then resolve from the repo's node_modules.
    for (const dep of Object.keys(pkg.dependencies))
      symlinkSync(join(ROOT, 'node_modules', dep), join(app, 'node_modules', dep));
  }
}

/** The runtime package's directory in the cache, installed on first use; or why it cannot be. */
async function runtimeDir(name: RuntimeName): Promise<{ dir: string } | { skip: string }> {
  const spec = RUNTIME_PACKAGES[name];
  const dir = join(CACHE, spec);
  const done = join(dir, '.installed');
  if (!existsSync(done)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `runtime-${name}`, private: true }));
    try {
      await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', spec], {
        cwd: dir,
        timeout: INSTALL_TIMEOUT_MS,
      });
    } catch (error) {
      const lines = String((error as { stderr?: string }).stderr || (error as Error).message)
        .trim()
        .split('\n');
      // npm's own summary ("npm error code ECONNREFUSED", "npm error FetchError: request to … failed"), not its advice.
      const telling = lines.filter((l) => /npm error (code |FetchError|notarget|network)/.test(l));
      const detail = (telling.length > 0 ? telling : lines.slice(-1)).join('; ');
      return {
        skip: `npm install ${spec} failed (offline, or no build for ${process.platform}-${process.arch}): ${detail}`,
      };
    }
    writeFileSync(done, new Date().toISOString());
  }
  return { dir };
}

/** A runtime's binary and its version, or why it cannot run here. */
async function binary(name: RuntimeName, bin: string, versionArgs: string[]) {
  const found = await runtimeDir(name);
  if ('skip' in found) return found;
  const path = join(found.dir, 'node_modules/.bin', bin);
  try {
    const { stdout } = await run(path, versionArgs, { timeout: 30_000 });
    // `v22.23.3`, `1.4.5`, `deno 2.9.6 (stable, ...)`: the version number alone.
    const version = /\d+\.\d+\.\d+/.exec(stdout)?.[0] ?? stdout.trim();
    return { path, version };
  } catch (error) {
    return {
      skip: `${RUNTIME_PACKAGES[name]} installed, but its binary does not run here: ${(error as Error).message}`,
    };
  }
}

interface CaseResult {
  entry: 'node' | 'edge';
  incidentId: string;
  attachmentIds: string[];
  subscriptionId: number | string;
  done: string[];
}

function config(expectEntry: 'node' | 'edge') {
  const { webhookId } = sandbox.createWebhook({ url: 'http://127.0.0.1:9/never-called', isActive: false });
  return { baseUrl: sandbox.url, token: sandbox.token, webhookId, expectEntry };
}

/** Runs a fixture file with a runtime's command line; the cases print their result as one line. */
async function runFixture(
  command: string,
  args: string[],
  expectEntry: 'node' | 'edge',
): Promise<CaseResult> {
  const env = { ...process.env, CLAIMS_ECOSYSTEM: JSON.stringify(config(expectEntry)), NO_COLOR: '1' };
  let stdout: string;
  try {
    ({ stdout } = await run(command, args, { cwd: app, env, timeout: RUN_TIMEOUT_MS }));
  } catch (error) {
    const { stdout: out, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} failed:\n${out ?? ''}\n${stderr ?? (error as Error).message}`,
    );
  }
  const line = stdout.split('\n').find((l) => l.startsWith('ECOSYSTEM_RESULT '));
  if (!line) throw new Error(`no result from ${command} ${args.join(' ')}:\n${stdout}`);
  return JSON.parse(line.slice('ECOSYSTEM_RESULT '.length)) as CaseResult;
}

/** What the sandbox received from one run: the incident, its event and attachments, the uploaded bytes. */
function expectReceived(result: CaseResult): void {
  const incident = sandbox.incident(result.incidentId);
  expect(incident?.description).toBe('Burst pipe above the kitchen');
  expect(incident?.extendedFields).toEqual([
    { identifier: 'claim_form:Cause_Of_Loss', value: 'Escape of water' },
  ]);
  // The sandbox logs the attachments given at creation as an event of its own, before ours.
  expect(incident?.events.map((e) => e.detail)).toContain('Photos requested');
  const refs = incident?.body.attachments as Array<{ attachmentId: string }>;
  expect(refs).toHaveLength(2);
  const uploaded = [...result.attachmentIds, refs[1]?.attachmentId as string];
  const stored = uploaded.map((id) => sandbox.attachment(id));
  expect(Object.fromEntries(stored.map((a) => [a?.filename, a?.data?.toString('utf8')]))).toEqual(
    expectedUploads,
  );
  expect(result.done).toEqual(
    expect.arrayContaining([
      'attachments.upload',
      'incidents.create',
      'events.create',
      'subscriptions.update',
      'errors',
    ]),
  );
}

function skip(ctx: TestContext, label: string, reason: string): void {
  summary.push(`${label}: SKIPPED (${reason})`);
  console.log(`ecosystem: ${label} skipped: ${reason}`);
  ctx.skip(reason);
}

async function nodeCases(ctx: TestContext, label: string, node: string | { skip: string }, version: string) {
  if (typeof node !== 'string') return skip(ctx, label, node.skip);
  for (const [file, kind] of [
    ['esm.mjs', 'ESM'],
    ['cjs.cjs', 'CommonJS'],
  ] as const) {
    const result = await runFixture(node, [file], 'node');
    expect(result.entry).toBe('node');
    expectReceived(result);
    summary.push(`Node ${version} (${kind}, Node entry): ${result.done.length} case groups passed`);
  }
}

describe('ecosystem: the packed package on each runtime', () => {
  it(
    'Node (this process): ESM and CommonJS',
    async (ctx) => {
      await nodeCases(ctx, 'Node (this)', process.execPath, process.versions.node);
    },
    RUN_TIMEOUT_MS * 2,
  );

  for (const name of ['node22', 'node24', 'node26'] as const) {
    it(
      `${RUNTIME_PACKAGES[name]} from npm: ESM and CommonJS`,
      async (ctx) => {
        const found = await binary(name, 'node', ['--version']);
        if ('skip' in found) return skip(ctx, RUNTIME_PACKAGES[name], found.skip);
        await nodeCases(ctx, RUNTIME_PACKAGES[name], found.path, found.version);
      },
      INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS * 2,
    );
  }

  it(
    `claimsHandlers() with ${MSW3} on ${RUNTIME_PACKAGES.node22}`,
    async (ctx) => {
      const node = await binary('node22', 'node', ['--version']);
      if ('skip' in node) return skip(ctx, `${MSW3} on Node 22`, node.skip);
      const mswApp = join(work, 'msw3');
      mkdirSync(mswApp);
      writeFileSync(join(mswApp, 'package.json'), JSON.stringify({ name: 'claims-msw3-app', private: true }));
      cpSync(join(FIXTURES, 'msw.mjs'), join(mswApp, 'msw.mjs'));
      try {
        await run(
          'npm',
          ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, MSW3],
          {
            cwd: mswApp,
            timeout: INSTALL_TIMEOUT_MS,
          },
        );
      } catch (error) {
        return skip(
          ctx,
          `${MSW3} on Node 22`,
          `npm install ${MSW3} failed: ${(error as Error).message.split('\n')[0]}`,
        );
      }
      const { stdout } = await run(node.path, ['msw.mjs'], { cwd: mswApp, timeout: RUN_TIMEOUT_MS });
      const line = stdout.split('\n').find((l) => l.startsWith('MSW_RESULT '));
      expect(line, stdout).toBeDefined();
      const result = JSON.parse((line as string).slice('MSW_RESULT '.length));
      expect(result).toMatchObject({
        msw: MSW3.slice('msw@'.length),
        node: node.version,
        events: ['msw'],
        refused: 422,
        unhandled: [],
      });
      expect(result.fields).toBeGreaterThan(0);
      summary.push(
        `${MSW3} on Node ${node.version}: claimsHandlers() served create, events, metadata, a 422`,
      );
    },
    INSTALL_TIMEOUT_MS * 2 + RUN_TIMEOUT_MS,
  );

  it(
    'Deno (deno package): ESM, edge entry through the deno condition',
    async (ctx) => {
      const deno = await binary('deno', 'deno', ['--version']);
      if ('skip' in deno) return skip(ctx, 'Deno', deno.skip);
      // Only what the SDK needs: the sandbox's address and the settings variable.
      const args = [
        'run',
        '--no-prompt',
        '--allow-net=127.0.0.1',
        '--allow-env=CLAIMS_ECOSYSTEM',
        '--allow-read=.',
        'esm.mjs',
      ];
      const result = await runFixture(deno.path, args, 'edge');
      expectReceived(result);
      summary.push(`Deno ${deno.version} (ESM, edge entry): ${result.done.length} case groups passed`);
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );

  it(
    'Bun (bun package): ESM and CommonJS, edge entry through the bun condition',
    async (ctx) => {
      const bun = await binary('bun', 'bun', ['--version']);
      if ('skip' in bun) return skip(ctx, 'Bun', bun.skip);
      for (const [file, kind] of [
        ['esm.mjs', 'ESM'],
        ['cjs.cjs', 'CommonJS'],
      ] as const) {
        const result = await runFixture(bun.path, [file], 'edge');
        expectReceived(result);
        summary.push(`Bun ${bun.version} (${kind}, edge entry): ${result.done.length} case groups passed`);
      }
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS * 2,
  );

  it(
    'workerd (miniflare package): a Worker bundled with the workerd/worker/browser conditions',
    async (ctx) => {
      const found = await runtimeDir('miniflare');
      if ('skip' in found) return skip(ctx, 'workerd', found.skip);
      const require = createRequire(join(found.dir, 'package.json'));
      const { Miniflare } = (await import(pathToFileURL(require.resolve('miniflare')).href)) as {
        Miniflare: new (
          options: Record<string, unknown>,
        ) => {
          dispatchFetch(url: string): Promise<{ status: number; text(): Promise<string> }>;
          dispose(): Promise<void>;
        };
      };
      const version = (
        JSON.parse(readFileSync(require.resolve('miniflare/package.json'), 'utf8')) as { version: string }
      ).version;
      const workerd = await run(join(found.dir, 'node_modules/.bin/workerd'), ['--version']).then(
        (r) => r.stdout.trim(),
        () => 'workerd (version unknown)',
      );
      // Bundled as wrangler bundles a Worker: the package resolved with workerd's conditions.
      const { build } = await import('esbuild');
      const bundle = await build({
        entryPoints: [join(app, 'worker.mjs')],
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        conditions: ['workerd', 'worker', 'browser'],
        mainFields: ['module', 'main'],
        write: false,
        logLevel: 'silent',
      });
      const script = bundle.outputFiles[0]?.text as string;
      expect(script).not.toMatch(/["']node:/);
      const mf = new Miniflare({
        modules: true,
        script,
        compatibilityDate: '2026-01-01',
        bindings: { CLAIMS_ECOSYSTEM: JSON.stringify(config('edge')) },
      });
      try {
        const res = await mf.dispatchFetch('http://worker.local/');
        const text = await res.text();
        if (res.status !== 200) throw new Error(`the Worker failed (${res.status}):\n${text}`);
        const result = JSON.parse(text) as CaseResult;
        expectReceived(result);
        summary.push(
          `${workerd} via miniflare ${version} (ESM Worker, edge entry): ${result.done.length} case groups passed`,
        );
      } finally {
        await mf.dispose();
      }
    },
    INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
  );
});
