/**
 * undici is reached through its public entry only (#19): a private path may move in any release
 * the `^7` range admits, after our tests ran and on a user's machine. So no file of the SDK names
 * one, and what the SDK loads is what the package exports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { loadUndiciAgents } from '../../src/wire/undici-agents.js';

const SRC = new URL('../../src/', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('undici, from its public entry', () => {
  it('no source file imports a path inside the package', () => {
    const deep = sources(SRC).filter((file) => /['"]undici\/[^'"]+['"]/.test(readFileSync(file, 'utf8')));
    expect(deep).toEqual([]);
  });

  it('the range in package.json is a caret range of undici 7', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies.undici).toMatch(/^\^7\.\d+\.\d+$/);
  });

  it('loads the very classes the package exports, whose dispatchers have request()', async () => {
    const agents = await loadUndiciAgents();
    expect(agents.Agent).toBe(undici.Agent);
    expect(agents.EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
    const agent = new agents.Agent();
    expect(typeof agent.request).toBe('function');
    await agent.close();
  });
});
