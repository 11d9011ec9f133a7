/**
 * The inspector page in a real browser (Chromium): SDK calls and a webhook delivery appear
 * live; a fault injected by clicking marks the next call, whose claim is still there; every
 * control works from the keyboard; the layout holds at 1280 px and on a phone; no console
 * error; and the token and the webhook's header value are nowhere in the page or its feed.
 * Screenshots go to test-artifacts/ (ignored); `npm run screenshot:inspector` makes the docs'.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, outcomeOf } from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { chromiumUnavailable, launchChromium } from '../helpers/browser.js';
import { homeIncident, type LocalServer, startLocalServer } from '../testing/helpers.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const TOKEN = 'sbx_browser_t0ken_never_shown';
const HEADER_VALUE = 'hook-secret-never-shown';

describe.skipIf(chromiumUnavailable())('the inspector page in Chromium', () => {
  let browser: Browser;
  let sandbox: Sandbox;
  let receiver: LocalServer;
  let client: ClaimsClient;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    sandbox = await createSandbox({ token: TOKEN });
    receiver = await startLocalServer(() => ({
      body: '{"received":true}',
      headers: { 'content-type': 'application/json' },
    }));
    client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: TOKEN, maxRetries: 0, timeoutMs: 5_000 });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(sandbox.inspectorUrl);
    // A second feed, recorded in the page itself, to check what the stream carries.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { feed: string[] }).feed = seen;
      const source = new EventSource('events');
      for (const name of ['state', 'changes'])
        source.addEventListener(name, (e) => seen.push((e as MessageEvent).data));
    });
    await page.getByText('Live', { exact: true }).waitFor();
  });

  afterAll(async () => {
    await page?.close();
    await browser?.close();
    await client?.close();
    await receiver?.close();
    await sandbox?.close();
  });

  const calls = () => page.locator('#call-list > li');

  it('shows SDK calls, incidents and a webhook delivery as they happen', async () => {
    const { webhookId } = sandbox.createWebhook({
      url: `${receiver.url}/claims-hook`,
      headerName: 'X-Hook-Secret',
      headerValue: HEADER_VALUE,
    });
    await client.subscriptions.create(webhookId, { webhookEvent: 'New Event' });
    const { incidentId } = await client.incidents.create({
      ...homeIncident,
      description: 'Burst pipe in the loft',
    });
    await client.events.create(incidentId, {
      eventType: 'Event Log Entry',
      category: 'Other',
      detail: 'Plumber booked',
    });
    await client.attachments.upload({
      data: Buffer.from('photo bytes'),
      filename: 'ceiling.jpg',
      contentType: 'image/jpeg',
    });
    await sandbox.settled();

    await expect.poll(() => calls().count()).toBeGreaterThanOrEqual(4);
    await expect
      .poll(() => page.locator('#call-list').textContent())
      .toContain('/incidents/{incidentId}/events');
    await page.locator('#incident-list').getByText('Burst pipe in the loft').waitFor();
    await page.locator('#delivery-list').getByText('delivered').waitFor();
    expect(await page.locator('#counts').textContent()).toMatch(/Incidents\s*1/);
  });

  it('shows a call’s headers and bodies, the token redacted', async () => {
    const create = page
      .locator('#call-list summary', { hasText: 'POST' })
      .filter({ hasText: /\/incidents\s/ })
      .first();
    await create.click();
    const detail = page.locator('#call-list details[open] .detail');
    await detail.getByText('Bearer [REDACTED]').waitFor();
    expect(await detail.textContent()).toContain('"description": "Burst pipe in the loft"');
    await create.click();
  });

  it('injects a fault by clicking; the next create is marked, and its claim is there', async () => {
    await page.getByLabel('Route').selectOption('POST /incidents');
    await page.getByLabel('Fault', { exact: true }).selectOption('reset-after');
    await page.getByRole('button', { name: 'Queue fault' }).click();
    await page.locator('#fault-list').getByText('POST /incidents: reset after (1 more)').waitFor();
    expect(sandbox.faults.pending).toEqual([
      { route: 'POST /incidents', fault: { reset: 'after' }, remaining: 1 },
    ]);

    const error = await client.incidents
      .create({ ...homeIncident, description: 'Filed during a reset' })
      .catch((e: unknown) => e);
    expect(outcomeOf(error)).toBe('unknown');
    const marked = page.locator('#call-list > li', { hasText: 'fault: reset after' });
    await marked.waitFor();
    expect(await marked.textContent()).toContain('201');
    await page.locator('#incident-list').getByText('Filed during a reset').waitFor();
    await page.locator('#fault-list').getByText('None queued').waitFor();
  });

  it('works from the keyboard: choose a fault, queue it, open a call, redeliver, clear', async () => {
    await page.getByLabel('Route').focus();
    await page.keyboard.press('Home');
    expect(await page.getByLabel('Route').inputValue()).toBe('POST /attachments');
    await page.keyboard.press('Tab');
    await page.keyboard.press('End');
    expect(await page.getByLabel('Fault', { exact: true }).inputValue()).toBe('drip');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('bytes');
    await page.keyboard.press('Enter');
    await page
      .locator('#fault-list')
      .getByText('POST /attachments: drip 4 bytes every 250 ms (1 more)')
      .waitFor();

    const summary = page.locator('#call-list summary').first();
    await summary.focus();
    await page.keyboard.press('Enter');
    await page.locator('#call-list details[open]').first().waitFor();
    await page.keyboard.press('Enter');

    const delivery = page.locator('#delivery-list summary').first();
    await delivery.focus();
    await page.keyboard.press('Enter');
    const redeliver = page.getByRole('button', { name: 'Redeliver' });
    await redeliver.focus();
    await page.keyboard.press('Enter');
    await page.getByText(/Redelivered \(attempt 2\): delivered/).waitFor();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);

    await page.getByRole('button', { name: 'Clear queued faults' }).focus();
    await page.keyboard.press('Space');
    await page.locator('#fault-list').getByText('None queued').waitFor();
    expect(sandbox.faults.pending).toEqual([]);
  });

  it('downloads an attachment from an incident’s event log', async () => {
    const [file] = await client.attachments.upload({
      data: Buffer.from('report body'),
      filename: 'report.txt',
      contentType: 'text/plain',
    });
    await client.incidents.create({
      ...homeIncident,
      description: 'With a report',
      attachments: [{ attachmentId: file?.attachmentId as string }],
    });
    const incident = page.locator('#incident-list summary', { hasText: 'With a report' });
    await incident.click();
    const link = page.locator('#incident-list details[open]').getByRole('link', { name: /report\.txt/ });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('report.txt');
    const path = await download.path();
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(path, 'utf8')).toBe('report body');
  });

  it('names every control, and shows no token or header value in the page or its feed', async () => {
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, button, summary, a')]
        .filter((el) => !(el as HTMLElement).hidden && !el.closest('[hidden]'))
        .filter((el) => {
          const labelled =
            el instanceof HTMLInputElement || el instanceof HTMLSelectElement
              ? (el.labels?.length ?? 0) > 0
              : false;
          return !labelled && !(el.textContent ?? '').trim() && !el.getAttribute('aria-label');
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
    // Open everything, so every detail is in the DOM.
    await page.evaluate(() => {
      for (const details of document.querySelectorAll('details')) details.open = true;
    });
    await expect.poll(() => page.locator('.detail', { hasText: 'Loading…' }).count()).toBe(0);
    const html = await page.content();
    const feed = (await page.evaluate(() => (window as unknown as { feed: string[] }).feed)).join('\n');
    expect(feed).toContain('Burst pipe in the loft');
    for (const secret of [TOKEN, HEADER_VALUE]) {
      expect(html).not.toContain(secret);
      expect(feed).not.toContain(secret);
    }
    expect(html).toContain('[REDACTED]');
  });

  it('fits 1280 px and a phone’s width without sideways scrolling; screenshots for the record', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    await page.screenshot({ path: `${ARTIFACTS}inspector-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${ARTIFACTS}inspector-375.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('logged no console error or warning', () => {
    expect(problems).toEqual([]);
  });
});
