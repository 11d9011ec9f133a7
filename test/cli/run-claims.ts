import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { binArgs } from '../helpers/bin-command.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  child: ChildProcess;
  /** What it wrote to standard error so far. */
  stderr(): string;
  /** Resolves when the process ended. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Starts `claims <args>` (built when `dist/` is fresh, else from the source: see `binArgs`), as its own process, with the server's address and a
 * token. `fileSizeLimitKib`: under `ulimit -f` (a write past it fails with EFBIG).
 */
export function startClaims(
  args: string[],
  baseUrl: string,
  env: Record<string, string | undefined> = {},
  fileSizeLimitKib?: number,
): CliRun {
  const command = [process.execPath, ...binArgs('claims'), ...args];
  const [file, argv] =
    fileSizeLimitKib === undefined
      ? [command[0] as string, command.slice(1)]
      : ['bash', ['-c', `ulimit -f ${fileSizeLimitKib} && exec "$@"`, 'claims', ...command]];
  const child = spawn(file, argv, {
    cwd: ROOT,
    env: { ...process.env, CLAIMS_BASE_URL: baseUrl, CLAIMS_TOKEN: 'cli-token', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, done, stderr: () => stderr };
}

export function runClaims(args: string[], baseUrl: string, env: Record<string, string | undefined> = {}) {
  return startClaims(args, baseUrl, env).done;
}

/** Waits (bounded) until `test` holds. */
export async function until(test: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
