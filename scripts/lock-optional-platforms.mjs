// Adds lock entries for optional platform packages (rollup, biome, esbuild builds for other
// OSes) that `npm install` left out because the registry mirror it used lacks those versions.
// Without them `npm ci` refuses the lock ("Missing: … from lock file"); with their os/cpu
// recorded, npm skips them on a platform they are not for, as it does for any such package.
// Run after `npm install`: node scripts/lock-optional-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;
const OSES = [
  'android',
  'darwin',
  'freebsd',
  'openbsd',
  'openharmony',
  'linux',
  'win32',
  'aix',
  'sunos',
  'netbsd',
];
const CPUS = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el', 'mipsel'];

/** os, cpu and libc from a platform package's name, e.g. rollup-linux-arm-musleabihf. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OSES.includes(p));
  const cpu = parts.find((p) => CPUS.includes(p));
  if (!os || !cpu) return undefined;
  const libc = os === 'linux' ? (parts.some((p) => p.startsWith('musl')) ? 'musl' : 'glibc') : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (packages[key] || packages[`${path}/node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[key] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [platform.os],
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-optional-platforms: added ${added} entries`);
