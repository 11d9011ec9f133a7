// `npm run screenshot:inspector`: refreshes docs/images/inspector.png, the inspector page as it
// looks after `npm run demo` (run with --keep, so its sandbox stays up for the picture). Needs
// Chromium (see test/helpers/browser.ts). The tests take their own screenshots into
// test-artifacts/; this one is for the docs, and only this script changes it.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromiumUnavailable, launchChromium } from '../test/helpers/browser.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = fileURLToPath(new URL('../docs/images/inspector.png', import.meta.url));

const demo = spawn(process.execPath, ['--import', 'tsx', 'examples/run-demo.ts', '--keep'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const killer = setTimeout(() => demo.kill('SIGKILL'), 120_000);
try {
  const inspector = await new Promise<string>((resolve, reject) => {
    let text = '';
    demo.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /The sandbox stays up: inspector at (\S+)\. /.exec(text);
      if (found) resolve(found[1] as string);
    });
    demo.on('close', (code) =>
      reject(new Error(`the demo ended (exit ${code}) before its sandbox was up:\n${text}`)),
    );
  });
  const missing = chromiumUnavailable();
  if (missing) throw new Error(`Chromium is needed for the screenshot: ${missing}`);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(inspector);
    await page.getByText('Live', { exact: true }).waitFor();
    // An incident with events, and a delivery, opened as a reader would.
    await page
      .locator('#incident-list summary', { hasText: / [1-9]\d* events?$/ })
      .first()
      .click();
    await page.locator('#incident-list .detail h3').first().waitFor();
    await page.locator('#delivery-list summary').first().click();
    await page.locator('#delivery-list .detail h3').first().waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    mkdirSync(fileURLToPath(new URL('../docs/images/', import.meta.url)), { recursive: true });
    await page.screenshot({ path: output });
    console.log(`Wrote ${output}`);
  } finally {
    await browser.close();
  }
} finally {
  clearTimeout(killer);
  demo.kill('SIGTERM');
}
