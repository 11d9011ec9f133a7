import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('claims-sandbox bin', () => {
  it('prints its url and token, serves the API, and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/bin/claims-sandbox.ts', '--token', 'bin-token'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /CLAIMS_BASE_URL=(\S+)/.exec(output);
          if (match && output.includes('CLAIMS_TOKEN=')) resolve(match[1] as string);
        });
        child.on('close', () => reject(new Error(`exited early: ${output}`)));
      });
      expect(output).toContain('CLAIMS_TOKEN=bin-token');
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/metadata/programmes`, {
        headers: { authorization: 'Bearer bin-token' },
      });
      expect(res.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  }, 25_000);
});
