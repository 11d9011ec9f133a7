import { runCli } from '../../src/cli/program.js';

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
