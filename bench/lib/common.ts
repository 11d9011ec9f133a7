/**
 * Shared bench helpers: CPU pinning with `taskset`, medians, a fresh build of `dist/`, and a
 * local server in its own process.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { builtFromSource } from './newest-mtime.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Whether `taskset` exists and this machine has at least two CPUs to pin to. */
export const CAN_PIN: boolean = (() => {
  if (cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** `[command, args]` running `command args` on one CPU when pinning is possible. */
export function pinned(cpu: number, command: string, args: string[]): [string, string[]] {
  return CAN_PIN ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, args];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A line describing the machine, for the figures in docs/benchmarks.md. */
export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu}, ${cpus().length} CPUs, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/**
 * Runs `npm run build` when `dist/` is missing or older than `src/`: the benches measure what
 * users install, and `npm run bench` must work from a fresh clone after `npm ci`.
 */
export function ensureBuilt(): void {
  if (builtFromSource(ROOT, ['dist/index.js'])) return;
  process.stdout.write('bench: building dist/ (missing or older than src/)...\n');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Starts `node <script>` (pinned to `cpu`); resolves once it prints its port. */
export function startServerProcess(
  script: string,
  cpu: number,
): Promise<{ url: string; child: ChildProcess }> {
  const [command, args] = pinned(cpu, process.execPath, [script]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench server did not start in 10 s')), 10_000);
    child.once('error', reject);
    child.stdout?.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve({ url: `http://127.0.0.1:${chunk.toString().trim()}`, child });
    });
  });
}

/** Stops a child process started here and waits for it to be gone. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
