/**
 * Every relative link between README.md, CHANGELOG.md and the guides in docs/ resolves: the
 * file (or folder) exists, and a `#anchor` names a heading of the target, as GitHub makes it.
 * And every guide is one click from the README, so any topic is two clicks away.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { markdownFiles } from './readme-blocks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = [...markdownFiles(ROOT), 'CHANGELOG.md'];
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Markdown without its fenced code blocks (a `# comment` in a shell block is no heading). */
function prose(markdown: string): string {
  return markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
}

/** GitHub's anchor for a heading (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a file defines: its headings' slugs (repeats numbered as GitHub does) and `<a id>`s. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(text(file)).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text(file).matchAll(/<a (?:id|name)="([^"]+)"/g)) found.add(id as string);
  return found;
}

/** Relative links of a file: `[text](target)`, outside code. */
function links(file: string): string[] {
  const found: string[] = [];
  for (const [, target] of prose(text(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target as string)) found.push(target as string);
  }
  return found;
}

describe('links between the README and the guides', () => {
  it.each(FILES)('%s: every relative link and #anchor resolves', (file) => {
    const broken: string[] = [];
    for (const target of links(file)) {
      const [path = '', anchor] = target.split('#');
      const to = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(ROOT, to))) broken.push(`${target}: no file ${to}`);
      else if (anchor !== undefined && !anchors(to).has(anchor))
        broken.push(`${target}: no heading #${anchor} in ${to}`);
    }
    expect(broken).toEqual([]);
  });

  it('every guide is linked from the README', () => {
    const fromReadme = new Set(links('README.md').map((target) => target.split('#')[0]));
    const guides = markdownFiles(ROOT).filter((file) => file !== 'README.md');
    expect(guides.length).toBeGreaterThanOrEqual(10);
    expect(guides.filter((guide) => !fromReadme.has(guide))).toEqual([]);
  });

  it('the check can fail: a made-up anchor and a made-up file are not found', () => {
    expect(anchors('docs/calls-and-errors.md').has('retries')).toBe(true);
    expect(anchors('docs/calls-and-errors.md').has('retries-and-more')).toBe(false);
    expect(slug('`.withResponse()`: the status, headers and request id')).toBe(
      'withresponse-the-status-headers-and-request-id',
    );
    expect(slug('`client.subscriptions.create / list / update`')).toBe(
      'clientsubscriptionscreate--list--update',
    );
  });
});
