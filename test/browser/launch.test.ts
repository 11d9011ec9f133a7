/** launchChromium: a missing browser skips locally (saying why) and fails under CI=true. */
import { afterEach, describe, expect, it, vi } from 'vitest';

async function loadWith(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value as string);
  return import('../helpers/browser.js');
}

describe('launchChromium', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('without Chromium, locally: undefined, and says why', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { launchChromium } = await loadWith({ CHROMIUM_PATH: '/nowhere/chromium', CI: '' });
    await expect(launchChromium()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      'Skipping the browser tests: Chromium is not at /nowhere/chromium (apt-get install chromium, or set CHROMIUM_PATH).',
    );
  });

  it('without Chromium, under CI=true: fails', async () => {
    const { launchChromium } = await loadWith({ CHROMIUM_PATH: '/nowhere/chromium', CI: 'true' });
    await expect(launchChromium()).rejects.toThrow(
      'Chromium is not at /nowhere/chromium (apt-get install chromium, or set CHROMIUM_PATH): under CI=true the browser tests must run',
    );
  });
});
