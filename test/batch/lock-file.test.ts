import { execFileSync, spawn } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JournalError } from '../../src/batch/errors.js';
import { Journal } from '../../src/batch/journal.js';

/** Hooks into node:fs/promises for the lock and the file store: a rival appearing, a link failing. */
const hooks = vi.hoisted(() => ({
  readdir: undefined as
    | undefined
    | ((folder: string, names: string[], call: number) => string[] | Promise<string[]>),
  readdirCalls: 0,
  link: undefined as undefined | ((from: string, to: string) => void),
  lstat: undefined as undefined | ((path: string) => unknown),
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const mocked = {
    ...real,
    readdir: async (folder: string) => {
      const names = (await real.readdir(folder)) as string[];
      hooks.readdirCalls++;
      return hooks.readdir ? hooks.readdir(folder, names, hooks.readdirCalls) : names;
    },
    link: async (from: string, to: string) => {
      hooks.link?.(from, to);
      return real.link(from, to);
    },
    lstat: async (path: string, options?: object) => {
      const faked = hooks.lstat?.(path);
      return faked ?? real.lstat(path, options as undefined);
    },
  };
  return { ...mocked, default: mocked };
});

let dir: string;
let path: string;
let ino: bigint;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lock-'));
  path = join(dir, 'claims.journal');
  writeFileSync(path, '');
  ino = statSync(path, { bigint: true }).ino;
  hooks.readdir = undefined;
  hooks.readdirCalls = 0;
  hooks.link = undefined;
  hooks.lstat = undefined;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const holder = (pid: number, host = hostname(), nonce = 'n') =>
  JSON.stringify({ pid, hostname: host, at: 'then', nonce });
const lockFiles = () => readdirSync(dir).filter((name) => name.includes('.lock-'));

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid as number;
}

async function refusal(promise: Promise<unknown>): Promise<JournalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalError);
  return error as JournalError;
}

describe('the lock: whose it is', () => {
  it('refuses a live process of this host, and one of another host even when its pid is gone here, naming them', async () => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
    try {
      writeFileSync(`${path}.lock-${ino}-1`, holder(sleeper.pid as number));
      const live = await refusal(Journal.open(path));
      expect(live.message).toBe(
        `The journal is in use by process ${sleeper.pid} on ${hostname()} since then (lock file ${path}.lock-${ino}-1). ` +
          'Two runs cannot share one journal file; if that process is gone, delete the lock file.',
      );
    } finally {
      sleeper.kill();
    }
    writeFileSync(`${path}.lock-${ino}-1`, holder(await deadPid(), 'another-host'));
    expect((await refusal(Journal.open(path))).message).toContain('on another-host since then');
  });

  it("refuses a process of this host that it may not signal (another user's: EPERM) as live, and takes one that is gone (ESRCH)", async () => {
    // The tests run as root, whom kill(pid, 0) never refuses: another user's process is played.
    const pid = await deadPid();
    const errno = (code: string) => Object.assign(new Error(`kill ${code}`), { code });
    const kill = vi.spyOn(process, 'kill').mockImplementation((target) => {
      if (target === pid) throw errno('EPERM');
      return true;
    });
    try {
      writeFileSync(`${path}.lock-${ino}-1`, holder(pid));
      expect((await refusal(Journal.open(path))).message).toContain(`by process ${pid} on ${hostname()}`);
      kill.mockImplementation(() => {
        throw errno('ESRCH');
      });
      const journal = await Journal.open(path);
      await journal.close();
    } finally {
      kill.mockRestore();
    }
  });

  it('refuses a lock file that is not one the SDK wrote (no pid, hostname or nonce of the right type)', async () => {
    for (const content of [
      JSON.stringify({ pid: '1', hostname: hostname(), nonce: 'n' }),
      JSON.stringify({ pid: await deadPid(), hostname: hostname() }),
      JSON.stringify({ pid: await deadPid(), nonce: 'n' }),
      JSON.stringify({ pid: await deadPid(), hostname: 7, nonce: 'n' }),
      JSON.stringify({ pid: await deadPid(), hostname: hostname(), nonce: 7 }),
    ]) {
      writeFileSync(`${path}.lock-${ino}-1`, content);
      expect((await refusal(Journal.open(path))).message, content).toMatch(
        /^The journal is in use by another run \(lock file /,
      );
    }
  });

  it("reads generations past 9, ignores other files' locks and leftover temporary files, and leaves none of its own", async () => {
    writeFileSync(`${path}.lock-${ino}-12`, holder(await deadPid()));
    writeFileSync(`${path}.lock-${ino + 1n}-1`, holder(1, 'another-host'));
    writeFileSync(`${path}.lock-${ino}-13.tmp-feedface`, holder(1, 'another-host'));
    const journal = await Journal.open(path);
    expect(lockFiles().sort()).toEqual(
      [
        `claims.journal.lock-${ino}-13`,
        `claims.journal.lock-${ino + 1n}-1`,
        `claims.journal.lock-${ino}-13.tmp-feedface`,
      ].sort(),
    );
    await journal.close();
    expect(lockFiles().sort()).toEqual(
      [`claims.journal.lock-${ino + 1n}-1`, `claims.journal.lock-${ino}-13.tmp-feedface`].sort(),
    );
  });

  it('skips a lock file that is gone by the time it is read', async () => {
    hooks.readdir = (_folder, names) => [...names, `claims.journal.lock-${ino}-7`];
    const journal = await Journal.open(path);
    await journal.close();
  });
});

describe('the lock: two runs at the same instant', () => {
  it('gives way to a live rival that took a generation at the same time, tries 5 times, then names it', async () => {
    const rival = `${path}.lock-${ino}-99`;
    // Each listing right after this run created its lock finds the rival; the next listing (before creating) does not.
    hooks.readdir = (_folder, _names, call) => {
      if (call % 2 === 0) writeFileSync(rival, holder(process.ppid, hostname(), 'rival'));
      else rmSync(rival, { force: true });
      return readdirSync(dir);
    };
    // The most each wait apart may be: 5 ms plus up to 39 ms of jitter.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const started = Date.now();
    const error = await refusal(Journal.open(path));
    vi.restoreAllMocks();
    expect(error.code).toBe('locked');
    expect(error.message).toContain(`process ${process.ppid} on ${hostname()}`);
    expect(hooks.readdirCalls).toBe(10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * (5 + 39));
    hooks.readdir = undefined;
    rmSync(rival, { force: true });
    expect(lockFiles()).toEqual([]);
  });

  it('takes the lock when the other lock it finds then is unreadable or stale, or its own', async () => {
    for (const content of ['not json', holder(await deadPid())]) {
      const other = `${path}.lock-${ino}-50`;
      hooks.readdir = (_folder, _names, call) => {
        if (call === 2) writeFileSync(other, content);
        return readdirSync(dir);
      };
      hooks.readdirCalls = 0;
      const journal = await Journal.open(path);
      await journal.close();
      rmSync(other, { force: true });
    }
  });

  it('a rival that took the same generation first: this run looks again, is refused, and leaves the rival its lock', async () => {
    const generation = `${path}.lock-${ino}-1`;
    hooks.link = (_from, to) => {
      if (to === generation) writeFileSync(generation, holder(process.ppid, hostname(), 'rival'));
    };
    const error = await refusal(Journal.open(path));
    expect([error.code, error.message]).toEqual([
      'locked',
      `The journal is in use by process ${process.ppid} on ${hostname()} since then (lock file ${generation}). ` +
        'Two runs cannot share one journal file; if that process is gone, delete the lock file.',
    ]);
    expect(lockFiles()).toEqual([`claims.journal.lock-${ino}-1`]);
    expect(readdirSync(dir).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('a link that fails for another reason than a taken name: the error, and no file left behind', async () => {
    hooks.link = () => {
      throw Object.assign(new Error('EACCES: permission denied, link'), { code: 'EACCES' });
    };
    const error = await refusal(Journal.open(path));
    expect(error.message).toBe(`Cannot lock the journal ${path}: EACCES (permission denied)`);
    expect(lockFiles()).toEqual([]);
  });
});

describe('the journal file changing under the open', () => {
  it('a journal replaced while it was being locked is refused, and its lock released', async () => {
    hooks.readdir = (_folder, names, call) => {
      if (call === 1) {
        renameSync(path, join(dir, 'moved.journal'));
        writeFileSync(path, '');
      }
      return names;
    };
    const error = await refusal(Journal.open(path));
    expect([error.code, error.message]).toEqual([
      'io',
      `The journal ${path} was replaced while it was being opened; try again`,
    ]);
    expect(lockFiles()).toEqual([]);
  });

  it('a journal removed, or replaced by a file of the same inode on another device, while it was being locked is refused', async () => {
    hooks.readdir = (_folder, names, call) => {
      if (call === 1) rmSync(path);
      return names;
    };
    const removed = await refusal(Journal.open(path));
    expect([removed.code, removed.message]).toEqual([
      'io',
      `The journal ${path} was replaced while it was being opened; try again`,
    ]);
    hooks.readdir = undefined;
    writeFileSync(path, '');
    let calls = 0;
    hooks.lstat = (p) => {
      if (p !== path || ++calls === 1) return undefined;
      const real = statSync(path, { bigint: true });
      return Object.assign(real, { dev: real.dev + 1n });
    };
    const otherDevice = await refusal(Journal.open(path));
    expect(otherDevice.message).toBe(`The journal ${path} was replaced while it was being opened; try again`);
    expect(lockFiles()).toEqual([]);
  });

  it('a path that was a regular file when checked but is a FIFO when opened is refused without blocking', async () => {
    const fifo = join(dir, 'fifo.journal');
    execFileSync('mkfifo', [fifo]);
    const regular = statSync(path);
    hooks.lstat = (p) => (p === fifo ? regular : undefined);
    for (const readOnly of [false, true]) {
      const error = await refusal(Journal.open(fifo, { readOnly }));
      expect([error.code, error.message]).toEqual([
        'not_a_file',
        `The journal ${fifo} is not a regular file: a journal must be a regular file with one name`,
      ]);
    }
  });

  it('a path that was a regular file when checked but is a symlink when opened is never followed', async () => {
    const target = join(dir, 'input.jsonl');
    writeFileSync(target, '{"claim":1}\n');
    const link = join(dir, 'link.journal');
    symlinkSync(target, link);
    const regular = statSync(target);
    hooks.lstat = (p) => (p === link ? regular : undefined);
    for (const readOnly of [false, true]) {
      const error = await refusal(Journal.open(link, { readOnly }));
      expect([error.code, error.message]).toEqual([
        'io',
        `Cannot open the journal ${link}: ELOOP (too many symbolic links encountered)`,
      ]);
    }
    expect(readFileSync(target, 'utf8')).toBe('{"claim":1}\n');
  });
});
