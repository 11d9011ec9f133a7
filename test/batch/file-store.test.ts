import { spawn } from 'node:child_process';
import fs, { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { crc32InJs } from '../../src/batch/crc32.js';
import { JournalError } from '../../src/batch/errors.js';
import { FileJournalStore } from '../../src/batch/file-store.js';
import { Journal } from '../../src/batch/journal.js';
import { decodeRecord, encodeRecord, type JournalRecord } from '../../src/batch/record.js';

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
  ...extra,
});

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
    expect(decodeRecord(line.subarray(0, -1))).toEqual(record);
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

  it('writes records written at the same time together (group commit), each complete', async () => {
    const journal = await Journal.open(path);
    await Promise.all(Array.from({ length: 50 }, (_, i) => journal.write(rec(`K${i}`, 'sending'))));
    await journal.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(50);
    const again = await Journal.open(path);
    expect([...again.records()].length).toBe(50);
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

  it('drops a torn last line and cuts it off, so the next record starts on a clean line', async () => {
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

  it('drops a torn `sending` line: that POST never left, the key is as before', async () => {
    const journal = await Journal.open(path);
    await journal.write(rec('A', 'filed', { incidentId: 'INC-1' }));
    await journal.close();
    const torn = encodeRecord(rec('Z', 'sending'));
    appendFileSync(path, torn.subarray(0, 12));
    const again = await Journal.open(path);
    expect(again.get('Z')).toBeUndefined();
    await again.close();
  });

  it('a complete line with a wrong checksum at the end counts as torn; in the middle it refuses', async () => {
    const good = encodeRecord(rec('A', 'filed', { incidentId: 'INC-1' }));
    const bad = Buffer.from(good.toString('latin1').replace('INC-1', 'INC-9'), 'latin1');
    writeFileSync(path, Buffer.concat([good, bad]));
    const journal = await Journal.open(path);
    expect(journal.get('A')?.incidentId).toBe('INC-1');
    await journal.close();
    writeFileSync(path, Buffer.concat([bad, good]));
    const error = await Journal.open(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalError);
    expect((error as JournalError).code).toBe('corrupt');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('refuses a second run on the same journal while the first holds it', async () => {
    const first = await Journal.open(path);
    const error = await Journal.open(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalError);
    expect((error as JournalError).code).toBe('locked');
    expect((error as Error).message).toContain(String(process.pid));
    await first.close();
    const second = await Journal.open(path);
    await second.close();
  });

  it('takes over the lock of a run that died on this host', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    const deadPid = child.pid as number;
    await new Promise((resolve) => child.on('exit', resolve));
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: deadPid, hostname: hostname(), at: 'then' }));
    const journal = await Journal.open(path);
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid);
    await journal.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('does not take over a lock held on another host', async () => {
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, hostname: 'elsewhere', at: 'then' }));
    await expect(Journal.open(path)).rejects.toMatchObject({ code: 'locked' });
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

  it('says JournalError io (the system error as cause) for a journal in a missing directory', async () => {
    const error = await Journal.open(join(dir, 'missing', 'j')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalError);
    expect(error).toMatchObject({ code: 'io' });
    expect((error as Error).message).toContain('ENOENT');
  });

  it('refuses appends once closed', async () => {
    const store = new FileJournalStore(path);
    await store.open();
    await store.close();
    await expect(store.append(rec('A', 'sending'))).rejects.toMatchObject({ code: 'closed' });
  });
});
