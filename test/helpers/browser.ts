/**
 * Chromium for the browser tests (`npm run test:browser`), driven by playwright-core with
 * Debian's build (playwright cannot download its own browsers here). Missing locally, the
 * tests are skipped with a message; under `CI=true` a missing Chromium fails them instead.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, no sandbox (containers), and nothing that reaches the network by itself. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A headless Chromium, or `undefined` (with the reason on stderr) when none is installed and
 * this is not CI.
 * @throws Error under `CI=true` when Chromium is missing.
 */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM_PATH)) {
    const reason = `Chromium is not at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
    if (process.env.CI === 'true') throw new Error(`${reason}: under CI=true the browser tests must run`);
    console.warn(`Skipping the browser tests: ${reason}.`);
    return undefined;
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
