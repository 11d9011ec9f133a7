/**
 * The help of the forms and subscriptions-as-code commands, run in this process, is what
 * api/cli.md pins (test/cli/cli-surface.test.ts checks the whole file from a child process,
 * where mutation testing cannot see the code that prints it).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claimsInProcess } from './in-process.js';

const SURFACE = readFileSync(fileURLToPath(new URL('../../api/cli.md', import.meta.url)), 'utf8');

/** The ```text block under `### \`claims <command> --help\`` in api/cli.md. */
function pinnedHelp(command: string): string {
  const heading = `### \`claims ${command} --help\`\n`;
  const at = SURFACE.indexOf(heading);
  if (at < 0) throw new Error(`api/cli.md has no section for claims ${command} --help`);
  const start = SURFACE.indexOf('```text\n', at) + '```text\n'.length;
  return SURFACE.slice(start, SURFACE.indexOf('```\n', start));
}

describe('help as api/cli.md pins it', () => {
  for (const command of ['forms', 'forms pull', 'forms check', 'subscriptions plan', 'subscriptions apply']) {
    it(`claims ${command} --help`, async () => {
      const result = await claimsInProcess([...command.split(' '), '--help'], {});
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(pinnedHelp(command));
    });
  }
});
