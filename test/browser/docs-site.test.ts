/**
 * The API reference as a reader meets it: the site `npm run docs` builds (docs-site/), served
 * over HTTP on 127.0.0.1 and opened in Chromium. Every page loads without a console error or a
 * failed request, every internal link (and #anchor) lands on something, and the search finds
 * the incidents sub-client's `create`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumUnavailable, launchChromium } from '../helpers/browser.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = join(ROOT, 'docs-site');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
};

/** Serves docs-site/ read-only; anything outside it, or missing, is a 404. */
function serveSite(): Promise<Server> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    // Chromium asks for a favicon by itself; the site has none and links to none.
    if (path === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    let file = normalize(join(SITE, path));
    if (file.endsWith(sep)) file = join(file, 'index.html');
    if (!file.startsWith(SITE) || !existsSync(file) || statSync(file).isDirectory()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      // Each tab visits dozens of pages sharing the same scripts and styles: cached, as on a real host.
      'cache-control': 'max-age=600',
    });
    response.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Every HTML page of the site, as paths from its root ('index.html', 'classes/x.html'). */
function pages(dir = SITE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return pages(path);
    return entry.name.endsWith('.html') ? [relative(SITE, path).split(sep).join('/')] : [];
  });
}

describe.skipIf(chromiumUnavailable())('the API reference site (npm run docs)', () => {
  let browser: Browser;
  let server: Server;
  let origin = '';

  beforeAll(async () => {
    if (!existsSync(join(SITE, 'index.html'))) {
      const built = spawnSync('npm', ['run', 'docs', '--silent'], { cwd: ROOT, encoding: 'utf8' });
      if (built.status !== 0) throw new Error(`npm run docs failed:\n${built.stdout}${built.stderr}`);
    }
    server = await serveSite();
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A page that records console errors, page errors and failed or 4xx/5xx requests. */
  async function recordingPage(): Promise<{ page: Page; problems: string[]; at: { path: string } }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    const at = { path: '' };
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${at.path}: console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${at.path}: page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`${at.path}: request failed: ${request.url()}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${at.path}: ${response.status()} ${response.url()}`);
    });
    return { page, problems, at };
  }

  async function visit(opened: { page: Page; problems: string[]; at: { path: string } }, path: string) {
    opened.at.path = path;
    const response = await opened.page.goto(`${origin}/${path}`, { waitUntil: 'load' });
    if (response?.status() !== 200) opened.problems.push(`${path}: answered ${response?.status()}`);
  }

  it('every page loads with no console error, and every internal link and #anchor resolves', async () => {
    const all = pages();
    expect(all.length).toBeGreaterThan(50);
    expect(all).toEqual(expect.arrayContaining(['index.html', 'documents/calls-and-errors.html']));
    const ids = new Map<string, Set<string>>();
    const links: { from: string; to: string; hash: string }[] = [];
    const problems: string[] = [];
    const queue = [...all];
    // A few tabs at once: one page at a time takes minutes on a busy 2-core box.
    const tab = async () => {
      const opened = await recordingPage();
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        await visit(opened, path);
        const seen = await opened.page.evaluate(() => ({
          ids: [...document.querySelectorAll('[id]')].map((element) => element.id),
          hrefs: [...document.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href),
        }));
        ids.set(path, new Set(seen.ids));
        for (const href of seen.hrefs) {
          const url = new URL(href);
          if (url.origin !== origin) continue;
          links.push({
            from: path,
            to: url.pathname.replace(/^\//, '') || 'index.html',
            hash: url.hash.slice(1),
          });
        }
      }
      await opened.page.close();
      problems.push(...opened.problems);
    };
    await Promise.all([tab(), tab(), tab(), tab()]);
    expect(ids.size).toBe(all.length);
    expect(links.length).toBeGreaterThan(all.length);
    // Anchors are checked too: the pages link to their members by #anchor.
    expect(links.filter((link) => link.hash !== '').length).toBeGreaterThan(all.length);
    for (const { from, to, hash } of links) {
      const file = join(SITE, decodeURIComponent(to));
      if (!existsSync(file)) problems.push(`${from}: broken link to ${to}`);
      else if (hash !== '' && to.endsWith('.html') && !ids.get(to)?.has(decodeURIComponent(hash)))
        problems.push(`${from}: link to ${to}#${hash}, which has no such anchor`);
    }
    expect(problems).toEqual([]);
  });

  it("typing 'create' in the search lists the incidents sub-client's create", async () => {
    const opened = await recordingPage();
    const { page, problems } = opened;
    try {
      await visit(opened, 'index.html');
      await page.click('#tsd-search-trigger');
      await page.fill('#tsd-search-input', 'create');
      const results = page.locator('#tsd-search-results li a');
      await results.first().waitFor();
      const hrefs = await results.evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
      const texts = await results.allInnerTexts();
      expect(
        hrefs.some((href) =>
          /\/(classes|interfaces)\/claims-notification-sdk\.Incidents\.html#create$/.test(href),
        ),
      ).toBe(true);
      expect(texts.some((text) => /Incidents\.create/.test(text.replace(/\s+/g, '')))).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
