// A run taking a journal's lock on command, for the lock race tests: reads lines from standard
// input, `take <journal>` tries to take the lock (answers `won` or `lost <code>`), `release`
// lets it go (answers `released`). Two of these, told `take` at the same instant, race.
import { statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { acquireLock } from '../../../src/batch/lock-file.js';

let release: (() => Promise<void>) | undefined;
const say = (line: string) => process.stdout.write(`${line}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const [command, path] = line.split(' ');
  if (command === 'take') {
    try {
      release = await acquireLock(path as string, statSync(path as string, { bigint: true }).ino);
      say('won');
    } catch (error) {
      say(`lost ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
  } else if (command === 'release') {
    await release?.();
    release = undefined;
    say('released');
  }
}
