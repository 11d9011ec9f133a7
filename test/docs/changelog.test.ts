/** CHANGELOG.md: the released version has its section, and breaking entries are marked one way. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const sections = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({
  name: m[1] as string,
  date: m[2],
}));

describe('CHANGELOG.md', () => {
  it("has a dated section for package.json's version, below [Unreleased]", () => {
    expect(sections[0]).toEqual({ name: 'Unreleased', date: undefined });
    expect(sections[1]?.name).toBe(version);
    expect(sections[1]?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('lists releases newest first, each once, with dates that do not go forward', () => {
    const released = sections.slice(1);
    const key = (v: string) =>
      v
        .split('.')
        .map((part) => part.padStart(6, '0'))
        .join('.');
    expect(released.map((s) => s.name)).toEqual(
      [...released.map((s) => s.name)].sort((a, b) => (key(a) < key(b) ? 1 : -1)),
    );
    expect(new Set(released.map((s) => s.name)).size).toBe(released.length);
    const dates = released.map((s) => s.date as string);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('marks a breaking entry only as a bullet starting with **BREAKING**', () => {
    const entries = changelog.slice(changelog.indexOf('## [Unreleased]'));
    const mentions = entries.split('\n').filter((line) => line.includes('BREAKING'));
    expect(mentions.filter((line) => !/^- \*\*BREAKING\*\*[ :(]/.test(line))).toEqual([]);
    expect(mentions.length).toBeGreaterThan(0);
  });
});
