// Both ends of every range: resolves, from package.json as it is now, the lowest and the highest
// version that each runtime dependency and peer dependency range allows (`npm view`), then runs
// the smoke test (scripts/smoke-pack.sh) with all the lowest installed, on this Node (the oldest
// supported), and with all the highest, on the newest Node the ecosystem tests installed.
// Prints the exact versions it used; --update-docs also writes them into docs/development.md.
//
//   node scripts/dependency-ends.mjs [--update-docs]     (after npm run build and npm run ecosystem)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import semver from 'semver';
import { ROOT } from './entry-points.mjs';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
/** `npm view … --json`; `undefined` when npm prints nothing (a field the package does not have). */
function npmJson(args) {
  const out = execFileSync('npm', ['view', ...args, '--json'], { encoding: 'utf8' }).trim();
  return out === '' ? undefined : JSON.parse(out);
}

/** Every dependency and peer with its range, and the two ends of the range (no prereleases). */
const ranges = [
  ...Object.entries(pkg.dependencies ?? {}).map(([name, range]) => ({ name, range, kind: 'dependency' })),
  ...Object.entries(pkg.peerDependencies ?? {}).map(([name, range]) => ({ name, range, kind: 'peer' })),
].map((dep) => {
  const versions = [npmJson([dep.name, 'versions'])].flat();
  const lowest = semver.minSatisfying(versions, dep.range);
  const highest = semver.maxSatisfying(versions, dep.range);
  if (!lowest || !highest) throw new Error(`no published version of ${dep.name} satisfies "${dep.range}"`);
  const engines = (version) => npmJson([`${dep.name}@${version}`, 'engines'])?.node ?? 'any';
  return { ...dep, lowest, highest, lowestNode: engines(lowest), highestNode: engines(highest) };
});

/** The newest Node the ecosystem tests installed (node@X packages in their cache), if any. */
function newestCachedNode() {
  const cache =
    process.env.CLAIMS_ECOSYSTEM_CACHE ?? join(homedir(), '.cache', 'claims-notification-sdk', 'ecosystem');
  if (!existsSync(cache)) return undefined;
  const found = readdirSync(cache)
    .filter((name) => /^node@\d+\.\d+\.\d+$/.test(name) && existsSync(join(cache, name, '.installed')))
    .map((name) => ({
      version: name.slice('node@'.length),
      bin: join(cache, name, 'node_modules/.bin/node'),
    }))
    .filter((node) => existsSync(node.bin))
    .sort((a, b) => semver.rcompare(a.version, b.version));
  return found[0];
}

/**
 * Runs the smoke test with these versions on this Node binary; resolves to its exit code. Both
 * ends run at once (each in its own temp project: mostly npm installs and child processes, so
 * together they take little more than one); each end's output is printed whole when it ends.
 */
function smoke(end, node) {
  const specs = (kind) => ranges.filter((d) => kind(d)).map((d) => `${d.name}@${d[end]}`);
  const env = {
    ...process.env,
    // msw and pg are installed by the smoke test at their own steps: it first checks the
    // package without them.
    SMOKE_DEPS: specs((d) => d.name !== 'msw' && d.name !== 'pg').join(' '),
    SMOKE_MSW: specs((d) => d.name === 'msw').join(' '),
    SMOKE_PG: specs((d) => d.name === 'pg').join(' '),
    PATH: `${dirname(node.bin)}:${process.env.PATH}`,
    // The dependencies' declarations are type-checked in one setup: the others test our own.
    SMOKE_TYPE_SETUPS: 'nodenext',
  };
  const title = `dependency-ends: the ${end} versions on Node ${node.version}: ${env.SMOKE_DEPS} ${env.SMOKE_MSW} ${env.SMOKE_PG}`;
  console.log(`${title} (started)`);
  const child = spawn('bash', [join(ROOT, 'scripts/smoke-pack.sh')], { cwd: ROOT, env, stdio: 'pipe' });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      process.stdout.write(`\n${title}\n${Buffer.concat(output).toString()}`);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

const thisNode = { version: process.versions.node, bin: process.execPath };
const newest = newestCachedNode();
const runs = [{ end: 'lowest', node: thisNode }];
// Some highest versions need a newer Node than the oldest supported (msw 3: Node 22.12).
const highestNeeds = ranges.map((d) => d.highestNode);
const highestNode = [newest, thisNode].find(
  (node) => node && highestNeeds.every((range) => range === 'any' || semver.satisfies(node.version, range)),
);
if (highestNode) runs.push({ end: 'highest', node: highestNode });
else {
  const why = `no Node here satisfies every highest version's engines (${highestNeeds.join(', ')}): run npm run ecosystem first, it installs Node 22 and 24`;
  if (process.env.CI === 'true') throw new Error(why);
  console.warn(`dependency-ends: skipping the highest versions: ${why}`);
}

const table = [
  '| package | kind | range | lowest | highest | `engines.node` (lowest / highest) |',
  '|---|---|---|---|---|---|',
  ...ranges.map(
    (d) =>
      `| \`${d.name}\` | ${d.kind} | \`${d.range.replaceAll('|', '\\|')}\` | ${d.lowest} | ${d.highest} | \`${d.lowestNode}\` / \`${d.highestNode}\` |`,
  ),
].join('\n');
const nodes = runs.map((r) => `the ${r.end} on Node ${r.node.version}`).join(', ');
const results = await Promise.all(runs.map(async (r) => ({ ...r, code: await smoke(r.end, r.node) })));
const date = new Date().toISOString().slice(0, 10);
const summary = `Run on ${date}: ${nodes}.\n\n${table}\n`;
console.log(`\ndependency-ends: ${summary}`);
for (const r of results)
  console.log(
    `dependency-ends: the ${r.end} versions: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`}`,
  );

if (process.argv.includes('--update-docs') && results.every((r) => r.code === 0)) {
  const file = join(ROOT, 'docs/development.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- dependency-ends:start -->';
  const end = '<!-- dependency-ends:end -->';
  if (!text.includes(start) || !text.includes(end))
    throw new Error(`docs/development.md has no ${start} … ${end}`);
  writeFileSync(file, text.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${summary}${end}`));
  console.log('dependency-ends: docs/development.md updated');
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
