import { vi } from 'vitest';
import { runCli } from '../../src/cli/program.js';

/** What a `claims` run printed, and its exit code. */
export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `claims <args>` in this process (so coverage and Stryker see the CLI), with the
 * server's address and a token in the environment and standard output and error captured.
 * For what needs signals or a fresh process, see run-claims.ts.
 */
export async function claimsHere(
  args: string[],
  baseUrl: string,
  env: Record<string, string | undefined> = {},
): Promise<CliOutput> {
  const out: string[] = [];
  const err: string[] = [];
  const capture = (into: string[]) => (chunk: unknown) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const stdout = vi
    .spyOn(process.stdout, 'write')
    .mockImplementation(capture(out) as typeof process.stdout.write);
  const stderr = vi
    .spyOn(process.stderr, 'write')
    .mockImplementation(capture(err) as typeof process.stderr.write);
  const vars = { CLAIMS_BASE_URL: baseUrl, CLAIMS_TOKEN: 'cli-token', ...env };
  for (const [name, value] of Object.entries(vars)) vi.stubEnv(name, value);
  try {
    const code = await runCli(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    vi.unstubAllEnvs();
  }
}

/**
 * Runs `claims <argv>` in this process (so mutation testing sees the code it runs), with the
 * environment given and stdout/stderr captured. One at a time: it swaps process-wide state.
 */
export async function claimsInProcess(
  argv: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = { ...process.env };
  const out = process.stdout.write;
  const err = process.stderr.write;
  let stdout = '';
  let stderr = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  }) as typeof process.stderr.write;
  Object.assign(process.env, env);
  try {
    const code = await runCli(argv);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    for (const key of Object.keys(env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}
