/**
 * A held, settled call promise keeps only what `.withResponse()` may still ask for: the
 * answer's status and headers (#27.5). Not the request: its body, its headers (the token) or
 * the wire's objects. Measured by heap in a child process (`--expose-gc`), not by time: 200
 * calls each sending a different 256 KiB body, every promise held; before, each kept its
 * request (256 KiB and more), now 0.1 to 4 KiB (the headers as the wire gave them).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./child/held-promises.ts', import.meta.url));

describe.each(['undici', 'http', 'fetch'])('the %s wire', (wire) => {
  it('a held promise keeps a few KiB at most, whatever the request body', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', SCRIPT, wire, '200'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      calls: number;
      bytesPerPromise: number;
      status: number;
      requestId: string;
    };
    expect(result).toMatchObject({ calls: 200, status: 201, requestId: 'req-1' });
    // A body is 256 KiB: anything near it means the request is still held.
    expect(result.bytesPerPromise).toBeLessThan(8 * 1024);
  }, 90_000);
});
