import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchInputError, BatchStoppedError } from '../../src/batch/errors.js';
import { fileClaims } from '../../src/batch/file-claims.js';
import { StoreGaveNoAnswer, storeGrace } from '../../src/batch/grace.js';
import { Journal } from '../../src/batch/journal.js';
import type { JournalRecord } from '../../src/batch/record.js';
import type { JournalStore } from '../../src/batch/store.js';
import { ClaimsClient } from '../../src/index.js';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from './claims-server.js';

// fileClaims' own duties around the run: whose journal it closes, what it hands validateClaims,
// what a caller who stops reading still gets recorded, a store that opens after the grace.
let server: ClaimsServer;
let dir: string;
let client: ClaimsClient;
beforeEach(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'file-claims-own-'));
  client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
});
afterEach(async () => {
  storeGrace.ms = 5_000;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function memoryStore(change: Partial<JournalStore> = {}) {
  const records: JournalRecord[] = [];
  let closes = 0;
  const store: JournalStore = {
    shared: false,
    open: async () => {},
    async *load() {
      yield* records;
    },
    claim: async (record) => {
      records.push(record);
      return { taken: true };
    },
    append: async (record) => {
      records.push(record);
    },
    close: async () => {
      closes++;
    },
    ...change,
  };
  return { store, records, closes: () => closes };
}

describe('fileClaims and the journal', () => {
  it('an open Journal given is left open for the caller: a second batch runs on it', async () => {
    const { store, closes } = memoryStore();
    const journal = await Journal.open(store);
    for await (const _ of fileClaims(client, [claimLine('K1')], { journal })) {
    }
    for await (const _ of fileClaims(client, [claimLine('K2')], { journal })) {
    }
    expect(closes()).toBe(0);
    expect(journal.get('K2')?.state).toBe('filed');
    await journal.close();
    expect(closes()).toBe(1);
  });

  it('a caller who stops reading: the claims in flight are recorded before the loop ends', async () => {
    server.answer = (key) => (key === 'K1' ? defaultAnswer(key) : { ...defaultAnswer(key), delayMs: 300 });
    const { store, records } = memoryStore();
    for await (const _ of fileClaims(client, [claimLine('K1'), claimLine('K2')], {
      journal: store,
      concurrency: 2,
    })) {
      break;
    }
    const latest = new Map(records.map((r) => [r.key, r.state]));
    expect([...latest.values()]).not.toContain('sending');
    expect(latest.get('K2')).toBe('filed');
  });

  it('a store that opens after the grace is closed once it opens; the stop says why, with the cause', async () => {
    storeGrace.ms = 1;
    let open!: () => void;
    const { store, closes } = memoryStore({ open: () => new Promise<void>((resolve) => (open = resolve)) });
    const error = await (async () => {
      for await (const _ of fileClaims(client, [claimLine('K1')], {
        journal: store,
        signal: AbortSignal.abort(),
      })) {
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchStoppedError);
    expect((error as BatchStoppedError).cause).toBeInstanceOf(StoreGaveNoAnswer);
    expect(closes()).toBe(0);
    const closed = new Promise<void>((resolve) => {
      store.close = async () => resolve();
    });
    open();
    await closed;
    expect(server.received).toEqual([]);
  });
});

describe('fileClaims and the files root', () => {
  it('reads relative paths from filesRelativeTo, confined to filesRoot', async () => {
    const root = join(dir, 'root');
    mkdirSync(join(root, 'sub'), { recursive: true });
    writeFileSync(join(root, 'sub', 'a.txt'), 'a');
    const { store } = memoryStore();
    const error = await (async () => {
      for await (const _ of fileClaims(
        client,
        [
          claimLine('K1', { attachments: [{ file: 'a.txt' }] }),
          claimLine('K2', { attachments: [{ file: 'b.txt' }] }),
        ],
        { journal: store, filesRoot: root, filesRelativeTo: join(root, 'sub') },
      )) {
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchInputError);
    expect((error as BatchInputError).problems.map((p) => [p.line, p.message])).toEqual([
      [2, '"b.txt" cannot be read (ENOENT)'],
    ]);
    expect(server.received).toEqual([]);
  });
});
