import fs, {
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open as openHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JournalError } from '../../src/batch/errors.js';
import { FileJournalStore } from '../../src/batch/file-store.js';
import { Journal } from '../../src/batch/journal.js';
import { encodeRecord, type JournalRecord } from '../../src/batch/record.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'store-internals-'));
  path = join(dir, 'claims.journal');
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const rec = (key: string, state: JournalRecord['state'] = 'sending'): JournalRecord => ({
  key,
  state,
  bodyHash: `h-${key}`,
  at: '2026-11-26T10:00:00.000Z',
  ...(state === 'filed' ? { incidentId: `INC-${key}` } : {}),
});

async function refusal(promise: Promise<unknown>): Promise<JournalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalError);
  return error as JournalError;
}

/** The prototype of fs/promises' FileHandle, to count its datasync and sync calls. */
async function fileHandlePrototype(): Promise<{ datasync(): Promise<void>; sync(): Promise<void> }> {
  const handle = await openHandle(join(dir), 'r');
  await handle.close();
  return Object.getPrototypeOf(handle);
}

describe('opening', () => {
  it('twice is once', async () => {
    const store = new FileJournalStore(path);
    await store.open();
    await store.open();
    await store.append(rec('A'));
    await store.close();
    const reader = new FileJournalStore(path);
    await reader.open({ readOnly: true });
    await reader.open({ readOnly: true });
    const loaded: JournalRecord[] = [];
    for await (const r of reader.load()) loaded.push(r);
    expect(loaded.map((r) => r.key)).toEqual(['A']);
    await reader.close();
  });

  it('says what went wrong, word for word, with the system error as cause', async () => {
    const inMissing = join(dir, 'missing', 'j');
    const missing = await refusal(Journal.open(inMissing));
    expect(missing.message).toBe(`Cannot open the journal ${inMissing}: ENOENT (no such file or directory)`);
    expect((missing.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    writeFileSync(join(dir, 'input.jsonl'), '{}');
    const underFile = join(dir, 'input.jsonl', 'j');
    for (const readOnly of [false, true]) {
      const error = await refusal(Journal.open(underFile, { readOnly }));
      expect([error.code, error.message]).toEqual([
        'io',
        `Cannot open the journal ${underFile}: ENOTDIR (not a directory)`,
      ]);
    }
    const notFound = await refusal(Journal.open(path, { readOnly: true }));
    expect(notFound.message).toBe(`There is no journal at ${path}`);
    expect((notFound.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    symlinkSync(join(dir, 'elsewhere'), path);
    expect((await refusal(Journal.open(path))).message).toBe(
      `The journal ${path} is a symbolic link: a journal must be a regular file with one name`,
    );
    expect((await refusal(Journal.open(dir))).message).toBe(
      `The journal ${dir} is not a regular file: a journal must be a regular file with one name`,
    );
  });

  it('reads a journal with two names (a hard link) read-only: reading is harmless', async () => {
    const journal = await Journal.open(path);
    await journal.write(rec('A', 'filed'));
    await journal.close();
    linkSync(path, join(dir, 'other.journal'));
    const reader = await Journal.open(join(dir, 'other.journal'), { readOnly: true });
    expect(reader.get('A')?.state).toBe('filed');
    await reader.close();
  });

  it('syncs the folder of a journal it created, and the file after mending it; nothing for a clean one', async () => {
    const proto = await fileHandlePrototype();
    const sync = vi.spyOn(proto, 'sync');
    const datasync = vi.spyOn(proto, 'datasync');
    // Each open also syncs its lock file once (taking the lock): counted as `lock` below.
    const counts = async (open: () => Promise<void>) => {
      sync.mockClear();
      datasync.mockClear();
      await open();
      return [sync.mock.calls.length, datasync.mock.calls.length];
    };
    const lock = 1;
    const created = new FileJournalStore(path);
    expect(await counts(() => created.open())).toEqual([lock + 1, 0]);
    await created.append(rec('A'));
    await created.close();
    const clean = new FileJournalStore(path);
    expect(await counts(() => clean.open())).toEqual([lock, 0]);
    await clean.close();
    fs.appendFileSync(path, encodeRecord(rec('B')).subarray(0, 10));
    const torn = new FileJournalStore(path);
    expect(await counts(() => torn.open())).toEqual([lock, 1]);
    await torn.close();
    fs.truncateSync(path, readFileSync(path).length - 1); // the last record without its newline
    const unfinished = new FileJournalStore(path);
    expect(await counts(() => unfinished.open())).toEqual([lock, 1]);
    await unfinished.close();
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
  });
});

describe('what it says about a file that is not a journal', () => {
  it('before any record, and after some', async () => {
    writeFileSync(path, 'hello\n');
    expect((await refusal(Journal.open(path))).message).toBe(
      `The journal ${path} is damaged at line 1: it does not start with \`<length> <checksum> \`. Nothing in it was changed, nothing was sent. It holds no journal record before that line: is it the right file?`,
    );
    writeFileSync(path, Buffer.concat([encodeRecord(rec('A')), Buffer.from('hello\n')]));
    expect((await refusal(Journal.open(path))).message).toBe(
      `The journal ${path} is damaged at line 2: it does not start with \`<length> <checksum> \`. Nothing in it was changed, nothing was sent. Only a last line cut short by a crash is ever dropped; restore the journal from a copy, or mend that line by hand.`,
    );
    writeFileSync(path, encodeRecord(rec('A')).subarray(0, 20));
    expect((await refusal(Journal.open(path))).message).toBe(
      `The journal ${path} holds no complete record, only the start of one (a crash during its first write?). It was not changed. If it is this batch's journal, nothing was sent after that record: delete the file and run again.`,
    );
  });
});

describe('a write that fails', () => {
  /** fs.writeSync that writes `part` bytes of the next call and throws `error` on the call after. */
  function failingWrite(part: number, error: NodeJS.ErrnoException) {
    const real = fs.writeSync;
    let calls = 0;
    return vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buffer: Buffer, offset: number) => {
      calls++;
      if (calls === 1) return real(fd, buffer, offset, part);
      throw error;
    }) as typeof fs.writeSync);
  }
  const efbig = () => Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG' });

  it('is cut off again, rejects its appends and every later one with the system code, and writes nothing more', async () => {
    const store = new FileJournalStore(path);
    await store.open();
    await store.append(rec('A'));
    await store.append(rec('A', 'filed'));
    const before = readFileSync(path);
    const write = failingWrite(30, efbig());
    const failed = await Promise.allSettled([store.append(rec('B')), store.append(rec('C'))]);
    for (const result of failed) {
      expect(result.status).toBe('rejected');
      const error = (result as PromiseRejectedResult).reason as JournalError;
      expect([error.code, error.message]).toEqual([
        'io',
        `Writing the journal ${path} failed: EFBIG (file too large)`,
      ]);
      expect((error.cause as Error).message).toBe('EFBIG: file too large, write');
    }
    expect(readFileSync(path)).toEqual(before);
    write.mockClear();
    await expect(store.append(rec('D'))).rejects.toBe((failed[0] as PromiseRejectedResult).reason);
    expect(write).not.toHaveBeenCalled();
    await store.close();
  });

  it('is cut off to the newline open added to a last record', async () => {
    writeFileSync(path, encodeRecord(rec('A')).subarray(0, -1));
    const store = new FileJournalStore(path);
    await store.open();
    const mended = readFileSync(path);
    expect(mended.at(-1)).toBe(0x0a);
    failingWrite(10, efbig());
    await expect(store.append(rec('B'))).rejects.toMatchObject({ code: 'io' });
    expect(readFileSync(path)).toEqual(mended);
    await store.close();
  });

  it('names the system error as it can', async () => {
    for (const [error, said] of [
      [
        Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
        ': ENOSPC (no space left on device)',
      ],
      [Object.assign(new Error('disk says ENOSPC: full'), { code: 'ENOSPC' }), ': ENOSPC'],
      [Object.assign(new Error('E: odd, really'), { code: 'EIO' }), ': EIO (odd)'],
      [new Error('no code at all'), ''],
    ] as const) {
      const store = new FileJournalStore(join(dir, `j-${said.length}-${error.message.length}`));
      await store.open();
      failingWrite(0, error as NodeJS.ErrnoException);
      const refused = await refusal(store.append(rec('A')));
      expect(refused.message).toBe(`Writing the journal ${store.path} failed${said}`);
      vi.restoreAllMocks();
      await store.close();
    }
  });

  it('an fdatasync that fails: the appends it was for are not durable, and say so', async () => {
    vi.spyOn(fs, 'fdatasync').mockImplementation(((_fd: number, callback: (error: Error | null) => void) =>
      callback(
        Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }),
      )) as typeof fs.fdatasync);
    const store = new FileJournalStore(path);
    await store.open();
    const error = await refusal(store.append(rec('A')));
    expect(error.message).toBe(`Writing the journal ${path} failed: EIO (i/o error)`);
    vi.restoreAllMocks();
    await store.close();
  });
});

describe('group commit', () => {
  /** Counts fdatasync calls and how many ran at once. */
  function watchSyncs() {
    const real = fs.fdatasync;
    const seen = { calls: 0, running: 0, most: 0 };
    vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, callback: (error: Error | null) => void) => {
      seen.calls++;
      seen.running++;
      seen.most = Math.max(seen.most, seen.running);
      real(fd, (error) => {
        seen.running--;
        callback(error);
      });
    }) as typeof fs.fdatasync);
    return seen;
  }

  it('close() while a sync runs does not start a second one at once', async () => {
    const store = new FileJournalStore(path);
    await store.open();
    const seen = watchSyncs();
    const first = store.append(rec('A'));
    await Promise.resolve();
    const second = store.append(rec('B', 'filed'));
    const closing = store.close();
    await Promise.all([first, second, closing]);
    expect(seen).toMatchObject({ calls: 2, most: 1 });
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });

  it("after a sending record's sync, a final record alone still waits a turn to share the next sync", async () => {
    const store = new FileJournalStore(path);
    await store.open();
    await store.append(rec('S0'));
    const seen = watchSyncs();
    const final = store.append(rec('S0', 'filed'));
    await Promise.resolve();
    const sending = store.append(rec('S1'));
    await Promise.all([final, sending]);
    expect(seen.calls).toBe(1);
    await store.close();
  });

  it('final records queued during a sync wait a turn after it, so a sending record appended then joins them', async () => {
    const store = new FileJournalStore(path);
    await store.open();
    const seen = watchSyncs();
    const first = store.append(rec('A'));
    await Promise.resolve();
    const final = store.append(rec('B', 'filed'));
    const joined = first.then(() => store.append(rec('C')));
    await Promise.all([first, final, joined]);
    expect(seen.calls).toBe(2);
    await store.close();
  });

  it('says which journal is closed or read-only', async () => {
    const closed = new FileJournalStore(path);
    expect((await refusal(closed.append(rec('A')))).message).toBe('The journal is not open');
    writeFileSync(path, '');
    const reader = new FileJournalStore(path);
    await reader.open({ readOnly: true });
    expect((await refusal(reader.append(rec('A')))).message).toBe(`The journal ${path} was opened read-only`);
    await reader.close();
    expect(readdirSync(dir)).toEqual(['claims.journal']);
  });
});
