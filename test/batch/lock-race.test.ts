import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = 40;

/** A child process taking the lock on command (test/batch/child/lock-racer.ts). */
interface Racer {
  child: ChildProcess;
  ask(command: string): Promise<string>;
}

function startRacer(): Racer {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/batch/child/lock-racer.ts'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else answers.push(line);
  });
  return {
    child,
    ask(command) {
      (child.stdin as NodeJS.WritableStream).write(`${command}\n`);
      const ready = answers.shift();
      return ready !== undefined ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

let dir: string;
let racers: Racer[];
let deadPid: number;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lock-race-'));
  racers = [startRacer(), startRacer(), startRacer()];
  // A pid that is surely gone: a process that has exited.
  const gone = spawn(process.execPath, ['-e', '0']);
  deadPid = gone.pid as number;
  await new Promise((resolve) => gone.on('exit', resolve));
  // Warm up: the first answer comes once tsx has loaded the module.
  writeFileSync(join(dir, 'warm'), '');
  for (const racer of racers) {
    expect(await racer.ask(`take ${join(dir, 'warm')}`)).toBe('won');
    expect(await racer.ask('release')).toBe('released');
  }
}, 60_000);
afterAll(() => {
  for (const racer of racers) racer.child.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('the journal lock, raced by three processes at once', () => {
  it(`over a lock a dead run left behind: exactly one run takes it over, ${ROUNDS} times over`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const journal = join(dir, `stale-${round}.journal`);
      writeFileSync(journal, '');
      const ino = statSync(journal, { bigint: true }).ino;
      writeFileSync(
        `${journal}.lock-${ino}-${1 + (round % 3)}`,
        JSON.stringify({ pid: deadPid, hostname: hostname(), at: 'then', nonce: `dead-${round}` }),
      );
      const answers = await Promise.all(racers.map((r) => r.ask(`take ${journal}`)));
      expect(
        answers.filter((a) => a === 'won'),
        `round ${round}: ${answers.join(', ')}`,
      ).toHaveLength(1);
      expect(answers.filter((a) => a !== 'won').every((a) => a === 'lost locked')).toBe(true);
      await Promise.all(racers.map((r) => r.ask('release')));
      expect(readdirSync(dir).filter((name) => name.startsWith(`stale-${round}.journal.lock`))).toEqual([]);
    }
  }, 120_000);

  it(`over a journal nobody holds: exactly one run takes it, ${ROUNDS} times over`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const journal = join(dir, `fresh-${round}.journal`);
      writeFileSync(journal, '');
      const answers = await Promise.all(racers.map((r) => r.ask(`take ${journal}`)));
      expect(
        answers.filter((a) => a === 'won'),
        `round ${round}: ${answers.join(', ')}`,
      ).toHaveLength(1);
      await Promise.all(racers.map((r) => r.ask('release')));
    }
  }, 120_000);
});
