import { describe, expect, it } from 'vitest';
import { startSandboxBin } from './helpers.js';

describe('claims-sandbox bin', () => {
  it('prints its url and token, serves the API, and stops on SIGTERM', async () => {
    const bin = await startSandboxBin('bin-token');
    try {
      expect(bin.output()).toContain('CLAIMS_TOKEN=bin-token');
      expect(bin.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${bin.url}/metadata/programmes`, {
        headers: { authorization: 'Bearer bin-token' },
      });
      expect(res.status).toBe(200);
      expect(await bin.stop()).toBe(0);
    } finally {
      bin.kill();
    }
  }, 25_000);
});
