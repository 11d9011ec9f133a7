import { spawn } from 'node:child_process';
import fs, {
  appendFileSync,
  existsSync,
  linkSync,
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
import { crc32InJs } from '../../src/batch/crc32.js';
import { JournalError } from '../../src/batch/errors.js';
import { FileJournalStore } from '../../src/batch/file-store.js';
import { Journal } from '../../src/batch/journal.js';
import { decodeRecord, encodeRecord, isTornLine, type JournalRecord } from '../../src/batch/record.js';
import { mountSmallDisk } from './small-disk.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'journal-'));
  path = join(dir, 'claims.journal');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rec = (
  key: string,
  state: JournalRecord['state'],
  extra: Partial<JournalRecord> = {},
): JournalRecord => ({
  key,
  state,
  bodyHash: `h-${key}`,
  at: '2026-11-23T10:00:00.000Z',
  ...(state === 'filed' ? { incidentId: `INC-${key}` } : {}),
  ...extra,
});

/** The lock files of the journal in `dir`. */
const lockFiles = () => readdirSync(dir).filter((name) => /\.lock-\d+-\d+$/.test(name));

async function refusal(promise: Promise<unknown>): Promise<JournalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalError);
  return error as JournalError;
}

describe('journal lines', () => {
  it('are `<UTF-8 bytes> <crc32 of them, 8 hex> <json>\\n`, and decode back to the record', () => {
    const record = rec('Schadensfall-ü€', 'filed', { incidentId: 'INC-7' });
    const json = JSON.stringify(record);
    const bytes = Buffer.from(json, 'utf8');
    const line = encodeRecord(record);
    expect(line.toString('utf8')).toBe(
      `${bytes.length} ${crc32InJs(bytes).toString(16).padStart(8, '0')} ${json}\n`,
    );
    expect(bytes.length).toBeGreaterThan(json.length);
    expect(decodeRecord(line.subarray(0, -1))).toEqual({ record });
  });

  it('say what is wrong with a line that is not a record', () => {
    const good = encodeRecord(rec('A', 'sending')).subarray(0, -1);
    const problem = (line: Buffer | string) => {
      const decoded = decodeRecord(Buffer.from(line));
      return 'problem' in decoded ? decoded.problem : 'a record';
    };
    expect(problem('hello')).toBe('it does not start with `<length> <checksum> `');
    expect(problem(Buffer.concat([good, Buffer.from('x')]))).toMatch(
      /^it holds \d+ bytes of record where its head says \d+$/,
    );
    expect(problem(Buffer.from(good.toString('latin1').replace('"A"', '"B"'), 'latin1'))).toBe(
      'its checksum does not match',
    );
    const notJson = '{"key":';
    expect(
      problem(
        `${notJson.length} ${crc32InJs(Buffer.from(notJson)).toString(16).padStart(8, '0')} ${notJson}`,
      ),
    ).toBe('its record is not JSON');
    const numeric = JSON.stringify({ ...rec('x', 'filed'), key: 7001 });
    expect(
      problem(
        `${numeric.length} ${crc32InJs(Buffer.from(numeric)).toString(16).padStart(8, '0')} ${numeric}`,
      ),
    ).toBe('its key 7001 (number) is not a non-empty string');
  });

  it('tell a line cut short by a crash from anything else', () => {
    const whole = encodeRecord(rec('A', 'sending')).subarray(0, -1);
    for (let cut = 1; cut < whole.length; cut++)
      expect(isTornLine(whole.subarray(0, cut)), `cut at ${cut}`).toBe(true);
    expect(isTornLine(whole)).toBe(false);
    expect(isTornLine(Buffer.from('hello'))).toBe(false);
    expect(isTornLine(Buffer.from('12 0badc0de ['))).toBe(false);
    expect(isTornLine(Buffer.from('12 0badc0dx'))).toBe(false);
    expect(isTornLine(Buffer.from('1234567890'))).toBe(false);
  });
});

describe('FileJournalStore', () => {
  it('keeps every record across close and open, the latest per key being its state', async () => {
    const journal = await Journal.open(path);
    await journal.write(rec('A', 'sending'));
    await journal.write(rec('A', 'filed', { incidentId: 'INC-1' }));
    await journal.write(rec('B', 'sending'));
    await journal.close();
    const again = await Journal.open(path);
    expect(again.get('A')).toMatchObject({ state: 'filed', incidentId: 'INC-1' });
    expect(again.get('B')?.state).toBe('sending');
    expect(again.needingReview().map((r) => r.key)).toEqual(['B']);
    await again.close();
  });

  it('runs one fdatasync at a time: records written during it go out together in the next one', async () => {
    const datasync = vi.spyOn(fs, 'fdatasync');
    try {
      const store = new FileJournalStore(path);
      await store.open();
      const first = store.append(rec('F', 'sending'));
      await Promise.resolve(); // its commit started: one sync in flight
      expect(datasync).toHaveBeenCalledTimes(1);
      const during = Array.from({ length: 20 }, (_, i) =>
        store.append(rec(`K${i}`, i % 2 ? 'sending' : 'filed', { incidentId: 'INC-1' })),
      );
      await Promise.all([first, ...during]);
      expect(datasync).toHaveBeenCalledTimes(2);
      await store.close();
      expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(21);
    } finally {
      datasync.mockRestore();
    }
  });

  it('lets a final record written alone share the sync of the sending record that follows it', async () => {
    const store = new FileJournalStore(path);
    await store.open();
    const datasync = vi.spyOn(fs, 'fdatasync');
    try {
      const final = store.append(rec('A', 'filed', { incidentId: 'INC-1' }));
      await Promise.resolve();
      const sending = store.append(rec('B', 'sending'));
      await Promise.all([final, sending]);
      expect(datasync).toHaveBeenCalledTimes(1);
    } finally {
      datasync.mockRestore();
    }
    await store.close();
    const again = await Journal.open(path);
    expect(again.get('A')?.state).toBe('filed');
    expect(again.get('B')?.state).toBe('sending');
    await again.close();
  });

  describe('what it reads back', () => {
    it('drops a last line cut short, cuts it off, and the next record starts on a clean line', async () => {
      const journal = await Journal.open(path);
      await journal.write(rec('A', 'sending'));
      await journal.write(rec('A', 'filed', { incidentId: 'INC-1' }));
      await journal.write(rec('B', 'sending'));
      await journal.close();
      // A crash mid-write: B's final record half on disk, no newline.
      const whole = encodeRecord(rec('B', 'filed', { incidentId: 'INC-2' }));
      appendFileSync(path, whole.subarray(0, whole.length - 9));
      const again = await Journal.open(path);
      // B's `sending` was durable, its final record was not: it stays `sending`, for review.
      expect(again.get('B')?.state).toBe('sending');
      expect(again.get('A')?.state).toBe('filed');
      await again.write(rec('C', 'sending'));
      await again.close();
      const third = await Journal.open(path);
      expect(third.get('C')?.state).toBe('sending');
      expect([...third.records()].map((r) => r.key)).toEqual(['A', 'B', 'C']);
      await third.close();
    });

    it('drops a torn `sending` line (that POST never left), and NUL bytes a crash left after it', async () => {
      const journal = await Journal.open(path);
      await journal.write(rec('A', 'filed', { incidentId: 'INC-1' }));
      await journal.close();
      const good = readFileSync(path);
      const torn = encodeRecord(rec('Z', 'sending'));
      for (const tail of [
        torn.subarray(0, 12),
        Buffer.concat([torn.subarray(0, 30), Buffer.alloc(4096)]),
        Buffer.alloc(100),
      ]) {
        writeFileSync(path, Buffer.concat([good, tail]));
        const again = await Journal.open(path);
        expect(again.get('Z')).toBeUndefined();
        expect(again.get('A')?.state).toBe('filed');
        await again.close();
        expect(readFileSync(path)).toEqual(good);
      }
    });

    it('keeps a last record complete but for its newline, and gives it one', async () => {
      writeFileSync(
        path,
        Buffer.concat([encodeRecord(rec('A', 'filed')), encodeRecord(rec('B', 'sending')).subarray(0, -1)]),
      );
      const journal = await Journal.open(path);
      expect(journal.get('B')?.state).toBe('sending');
      await journal.write(rec('C', 'sending'));
      await journal.close();
      const again = await Journal.open(path);
      expect([...again.records()].map((r) => [r.key, r.state])).toEqual([
        ['A', 'filed'],
        ['B', 'sending'],
        ['C', 'sending'],
      ]);
      await again.close();
    });

    it('refuses a complete last line that fails its check, naming the line, and changes nothing (a `sending` there is not sent again)', async () => {
      const good = encodeRecord(rec('A', 'filed'));
      const sending = encodeRecord(rec('B', 'sending'));
      const damaged = Buffer.from(sending.toString('latin1').replace('"B"', '"C"'), 'latin1');
      for (const content of [
        Buffer.concat([good, damaged]),
        Buffer.concat([damaged, good]),
        Buffer.concat([good, Buffer.from('a line someone appended by hand\n')]),
        Buffer.concat([good, Buffer.from('a line someone appended by hand')]),
      ]) {
        writeFileSync(path, content);
        const error = await refusal(Journal.open(path));
        expect(error.code).toBe('corrupt');
        expect(error.message).toMatch(/is damaged at line [12]: /);
        expect(readFileSync(path)).toEqual(content);
        expect(lockFiles()).toEqual([]);
      }
    });

    it('reads a CRLF line ending (an editor, git autocrlf) as the record it holds, and a damaged CRLF line as damaged', async () => {
      const crlf = (r: JournalRecord) => Buffer.from(encodeRecord(r).toString('utf8').replace(/\n$/, '\r\n'));
      writeFileSync(
        path,
        Buffer.concat([crlf(rec('A', 'sending')), crlf(rec('A', 'filed')), crlf(rec('B', 'sending'))]),
      );
      const journal = await Journal.open(path);
      expect(journal.get('A')?.state).toBe('filed');
      expect(journal.get('B')?.state).toBe('sending');
      await journal.write(rec('C', 'sending'));
      await journal.close();
      const again = await Journal.open(path, { readOnly: true });
      expect([...again.records()].map((r) => r.key)).toEqual(['A', 'B', 'C']);
      await again.close();
      const damaged = Buffer.from(
        crlf(rec('D', 'sending')).toString('latin1').replace('"D"', '"E"'),
        'latin1',
      );
      writeFileSync(path, Buffer.concat([crlf(rec('A', 'filed')), damaged]));
      expect((await refusal(Journal.open(path))).message).toContain('line 2: its checksum does not match');
    });

    it('never truncates or rewrites a file that holds no journal record: an input file, a report, a torn first record', async () => {
      const files = [
        `${JSON.stringify({ key: 'A-1', incident: { description: 'x' } })}\n{"key":"A-2"}`,
        '[\n  {"key":"A-1","state":"filed"}\n]\n',
        'key,programmeCode\nA-1,PRG\n',
        encodeRecord(rec('A', 'sending')).subarray(0, 25).toString('utf8'),
      ];
      for (const content of files) {
        writeFileSync(path, content);
        const before = statSync(path);
        const error = await refusal(Journal.open(path));
        expect(error.code).toBe('corrupt');
        expect(readFileSync(path, 'utf8')).toBe(content);
        expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
        expect(lockFiles()).toEqual([]);
      }
    });

    it('takes an empty file for a new journal', async () => {
      writeFileSync(path, '');
      const journal = await Journal.open(path);
      expect([...journal.records()]).toEqual([]);
      await journal.write(rec('A', 'sending'));
      await journal.close();
      expect(readFileSync(path)).toEqual(encodeRecord(rec('A', 'sending')));
    });
  });

  describe('which files it opens', () => {
    it('refuses a symlink (to the input, to another journal), a folder and a device, changing none of them', async () => {
      const input = join(dir, 'claims.jsonl');
      writeFileSync(input, '{"key":"A"}\n');
      symlinkSync(input, path);
      expect((await refusal(Journal.open(path))).code).toBe('not_a_file');
      expect((await refusal(Journal.open(path, { readOnly: true }))).code).toBe('not_a_file');
      expect(readFileSync(input, 'utf8')).toBe('{"key":"A"}\n');
      rmSync(path);
      symlinkSync(join(dir, 'nowhere'), path);
      expect((await refusal(Journal.open(path))).code).toBe('not_a_file');
      expect(existsSync(join(dir, 'nowhere'))).toBe(false);
      expect((await refusal(Journal.open(dir))).code).toBe('not_a_file');
      expect((await refusal(Journal.open('/dev/null'))).code).toBe('not_a_file');
    });

    it('refuses a journal with two names (a hard link): two runs could use it at once', async () => {
      const journal = await Journal.open(path);
      await journal.write(rec('A', 'filed'));
      await journal.close();
      linkSync(path, join(dir, 'other-name.journal'));
      const error = await refusal(Journal.open(join(dir, 'other-name.journal')));
      expect(error.code).toBe('not_a_file');
      expect(error.message).toContain('2 names (hard links)');
      expect((await refusal(Journal.open(path))).code).toBe('not_a_file');
    });

    it('says JournalError io, with the system code, for a journal in a missing folder', async () => {
      const error = await refusal(Journal.open(join(dir, 'missing', 'j')));
      expect(error.code).toBe('io');
      expect(error.message).toContain('ENOENT');
    });
  });

  describe('read-only', () => {
    it('reads while a run holds the journal, takes no lock, and writes nothing, not even a torn line', async () => {
      const run = await Journal.open(path);
      await run.write(rec('A', 'sending'));
      await run.write(rec('B', 'unknown', { error: 'no answer' }));
      const torn = encodeRecord(rec('C', 'filed')).subarray(0, 20);
      appendFileSync(path, torn); // a write under way, as a reader may see it
      const content = readFileSync(path);
      const locks = lockFiles();
      const reader = await Journal.open(path, { readOnly: true });
      expect(reader.needingReview().map((r) => r.key)).toEqual(['A', 'B']);
      await expect(reader.write(rec('D', 'sending'))).rejects.toMatchObject({ code: 'read_only' });
      await expect(reader.begin(rec('D', 'sending'))).rejects.toMatchObject({ code: 'read_only' });
      await expect(reader.resolve('A', { notFiled: true })).rejects.toMatchObject({ code: 'read_only' });
      await expect(reader.store.append(rec('D', 'sending'))).rejects.toMatchObject({ code: 'read_only' });
      await reader.close();
      expect(readFileSync(path)).toEqual(content);
      expect(lockFiles()).toEqual(locks);
      await run.close();
    });

    it('refuses a journal that is not there (not_found), creating nothing', async () => {
      expect((await refusal(Journal.open(path, { readOnly: true }))).code).toBe('not_found');
      expect(readdirSync(dir)).toEqual([]);
    });

    const disk = mountSmallDisk(256);
    it.skipIf(typeof disk === 'string')(
      `reads a journal on a read-only mount${typeof disk === 'string' ? ` (skipped: ${disk})` : ''}`,
      async () => {
        if (typeof disk === 'string') return;
        try {
          const onDisk = join(disk.dir, 'claims.journal');
          const journal = await Journal.open(onDisk);
          await journal.write(rec('A', 'sending'));
          await journal.close();
          disk.readOnly();
          const reader = await Journal.open(onDisk, { readOnly: true });
          expect(reader.needingReview().map((r) => r.key)).toEqual(['A']);
          await reader.close();
          expect((await refusal(Journal.open(onDisk))).message).toMatch(/EROFS/);
        } finally {
          disk.unmount();
        }
      },
    );
  });

  describe('the lock', () => {
    it('refuses a second run on the same journal while the first holds it, naming it', async () => {
      const first = await Journal.open(path);
      const error = await refusal(Journal.open(path));
      expect(error.code).toBe('locked');
      expect(error.message).toContain(`process ${process.pid} on ${hostname()}`);
      await first.close();
      expect(lockFiles()).toEqual([]);
      const second = await Journal.open(path);
      await second.close();
    });

    it('is keyed by the file, not its name: renamed while a run holds it, still refused', async () => {
      const first = await Journal.open(path);
      const renamed = join(dir, 'renamed.journal');
      renameSync(path, renamed);
      expect((await refusal(Journal.open(renamed))).code).toBe('locked');
      await first.close();
      const again = await Journal.open(renamed);
      await again.close();
    });

    it('takes over the lock of a run that died on this host, and removes it', async () => {
      const child = spawn(process.execPath, ['-e', '0']);
      const deadPid = child.pid as number;
      await new Promise((resolve) => child.on('exit', resolve));
      writeFileSync(path, '');
      const stale = `${path}.lock-${statSync(path, { bigint: true }).ino}-4`;
      writeFileSync(stale, JSON.stringify({ pid: deadPid, hostname: hostname(), at: 'then', nonce: 'dead' }));
      const journal = await Journal.open(path);
      const [mine] = lockFiles();
      expect(mine).toMatch(/-5$/);
      expect(JSON.parse(readFileSync(join(dir, mine as string), 'utf8'))).toMatchObject({ pid: process.pid });
      expect(existsSync(stale)).toBe(false);
      await journal.close();
      expect(lockFiles()).toEqual([]);
    });

    it("takes a lock with this process's own pid that this process does not hold for stale (a restarted container)", async () => {
      writeFileSync(path, '');
      const ino = statSync(path, { bigint: true }).ino;
      writeFileSync(
        `${path}.lock-${ino}-1`,
        JSON.stringify({ pid: process.pid, hostname: hostname(), at: 'before the restart', nonce: 'old' }),
      );
      const journal = await Journal.open(path);
      await journal.close();
    });

    it('does not take over a lock held on another host, nor one it cannot read', async () => {
      writeFileSync(path, '');
      const ino = statSync(path, { bigint: true }).ino;
      writeFileSync(
        `${path}.lock-${ino}-1`,
        JSON.stringify({ pid: 1, hostname: 'elsewhere', at: 'then', nonce: 'n' }),
      );
      const error = await refusal(Journal.open(path));
      expect(error).toMatchObject({ code: 'locked' });
      expect(error.message).toContain('process 1 on elsewhere since then');
      writeFileSync(`${path}.lock-${ino}-1`, 'not json');
      expect((await refusal(Journal.open(path))).message).toContain('in use by another run');
    });
  });

  it('resolves a key under review as filed or not filed, and only such a key', async () => {
    const journal = await Journal.open(path);
    await journal.write(rec('U', 'unknown', { error: '503' }));
    await journal.write(rec('S', 'sending'));
    await journal.write(rec('F', 'filed', { incidentId: 'INC-1' }));
    await journal.resolve('U', { filed: 'INC-7' });
    await journal.resolve('S', { notFiled: true });
    await expect(journal.resolve('F', { notFiled: true })).rejects.toMatchObject({ code: 'not_resolvable' });
    await expect(journal.resolve('nope', { notFiled: true })).rejects.toMatchObject({ code: 'unknown_key' });
    await journal.close();
    const again = await Journal.open(path);
    expect(again.get('U')).toMatchObject({ state: 'filed', incidentId: 'INC-7', resolvedBy: 'user' });
    expect(again.get('S')).toMatchObject({ state: 'not_sent', resolvedBy: 'user', bodyHash: 'h-S' });
    await again.close();
  });

  it('refuses appends once closed', async () => {
    const store = new FileJournalStore(path);
    await store.open();
    await store.close();
    await expect(store.append(rec('A', 'sending'))).rejects.toMatchObject({ code: 'closed' });
  });
});
