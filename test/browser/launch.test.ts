/** chromiumUnavailable: a missing browser skips locally (saying why) and fails under CI=true. */
import { afterEach, describe, expect, it, vi } from 'vitest';

async function loadWith(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value as string);
  return import('../helpers/browser.js');
}

describe('chromiumUnavailable', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('without Chromium, locally: the reason, also printed', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { chromiumUnavailable } = await loadWith({ CHROMIUM_PATH: '/nowhere/chromium', CI: '' });
    const reason =
      'no Chromium at /nowhere/chromium: install it (apt-get install -y chromium) or set CHROMIUM_PATH';
    expect(chromiumUnavailable()).toBe(reason);
    expect(warn).toHaveBeenCalledWith(`Skipping browser tests: ${reason}`);
  });

  it('without Chromium, under CI=true: fails', async () => {
    const { chromiumUnavailable } = await loadWith({ CHROMIUM_PATH: '/nowhere/chromium', CI: 'true' });
    expect(() => chromiumUnavailable()).toThrow(
      'browser tests cannot run under CI=true: no Chromium at /nowhere/chromium: install it (apt-get install -y chromium) or set CHROMIUM_PATH',
    );
  });

  it('with Chromium where it is looked for: undefined, nothing printed', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { chromiumUnavailable } = await loadWith({ CHROMIUM_PATH: process.execPath, CI: 'true' });
    expect(chromiumUnavailable()).toBeUndefined();
    expect(warn).not.toHaveBeenCalled();
  });
});
