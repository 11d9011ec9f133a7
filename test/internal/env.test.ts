import { afterEach, describe, expect, it, vi } from 'vitest';
import { envVar } from '../../src/internal/env.js';
import { RequestLog, resolveLog } from '../../src/logger.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

describe('envVar (CLAIMS_SDK_LOG on every runtime)', () => {
  it('reads the variable where there is a process.env', () => {
    vi.stubEnv('CLAIMS_SDK_LOG', 'debug');
    expect(envVar('CLAIMS_SDK_LOG')).toBe('debug');
  });

  it('is undefined where there is no process (workerd, browsers)', () => {
    vi.stubGlobal('process', undefined);
    expect(envVar('CLAIMS_SDK_LOG')).toBeUndefined();
  });

  it('is undefined where reading it is refused (Deno without --allow-env), and a client still gets its log', () => {
    const env = new Proxy(
      {},
      {
        get() {
          throw new Error('NotCapable: Requires env access to "CLAIMS_SDK_LOG"');
        },
      },
    );
    vi.stubGlobal('process', { env });
    expect(envVar('CLAIMS_SDK_LOG')).toBeUndefined();
    expect(resolveLog({})).toBe(RequestLog.off);
  });
});
