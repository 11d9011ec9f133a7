import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs a script under tsx from the repository root; killed after `timeoutMs`. */
function runScript(
  script: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('examples', () => {
  it('npm run demo runs every example against the sandbox and passes', async () => {
    const { code, output } = await runScript('examples/run-demo.ts', process.env, 55_000);
    expect(output).toContain('All 4 examples passed.');
    for (const example of [
      '01-notify-incident',
      '02-event-url-attachment',
      '03-webhook-subscription',
      '04-serverless-handler',
    ]) {
      expect(output).toMatch(new RegExp(`PASS  ${example}\\.ts`));
    }
    expect(output).toContain('Caught before sending (ClaimsValidationError)');
    expect(output).toContain('Refused by the server (422');
    expect(output).toMatch(/1 webhook deliveries/);
    expect(code).toBe(0);
  }, 60_000);

  it('an example without CLAIMS_BASE_URL / CLAIMS_TOKEN says what to set', async () => {
    const env = { ...process.env, CLAIMS_BASE_URL: '', CLAIMS_TOKEN: '' };
    const { code, output } = await runScript('examples/01-notify-incident.ts', env, 20_000);
    expect(code).toBe(2);
    expect(output).toContain('Set CLAIMS_BASE_URL and CLAIMS_TOKEN');
  }, 25_000);
});
