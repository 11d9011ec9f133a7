import { vi } from 'vitest';
import { runCli } from '../../src/cli/program.js';

/** What a `claims` run printed, and its exit code. */
export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `claims <argv>` in this process (so coverage and mutation testing see the code it runs),
 * with the environment given (a value `undefined` removes the variable) and standard output and
 * error captured. One at a time: it swaps process-wide state. For what needs signals or a fresh
 * process, see run-claims.ts.
 */
export async function claimsInProcess(
  argv: string[],
  env: Record<string, string | undefined>,
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
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  try {
    const code = await runCli(argv);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    vi.unstubAllEnvs();
  }
}

/** {@link claimsInProcess} against the server at `baseUrl`, with a token `cli-token`. */
export function claimsHere(
  args: string[],
  baseUrl: string,
  env: Record<string, string | undefined> = {},
): Promise<CliOutput> {
  return claimsInProcess(args, { CLAIMS_BASE_URL: baseUrl, CLAIMS_TOKEN: 'cli-token', ...env });
}
