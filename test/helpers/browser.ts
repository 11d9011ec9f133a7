/**
 * Debian's Chromium, driven by playwright-core (which cannot download a browser here). Browser
 * tests call `chromiumUnavailable()` to skip when there is none, and `launchChromium()`.
 * Under CI=true a missing Chromium is a failure, not a skip: `.ci/run` installs it.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
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
 * Why browser tests cannot run here, or `undefined` when they can. Prints the reason once, so
 * a skipped run says why; throws under `CI=true`.
 */
export function chromiumUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `no Chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`;
  if (process.env.CI === 'true') throw new Error(`browser tests cannot run under CI=true: ${reason}`);
  console.warn(`Skipping browser tests: ${reason}`);
  return reason;
}

/** A headless Chromium; close it when done. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, headless: true });
}
