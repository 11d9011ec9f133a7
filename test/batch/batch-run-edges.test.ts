import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchStoppedError, JournalError } from '../../src/batch/errors.js';
import { fileClaims } from '../../src/batch/file-claims.js';
import { storeGrace } from '../../src/batch/grace.js';
import type { JournalRecord } from '../../src/batch/record.js';
import type { ClaimResult } from '../../src/batch/result.js';
import type { JournalStore } from '../../src/batch/store.js';
import { ClaimsClient } from '../../src/index.js';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from './claims-server.js';

let server: ClaimsServer;
let dir: string;
let client: ClaimsClient;
beforeEach(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'batch-edges-'));
  client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${i + 1}`);

async function runAll(
  lines: ReturnType<typeof claimLine>[],
  options: Partial<Parameters<typeof fileClaims>[2]> = {},
): Promise<{ results: Map<string, ClaimResult>; error: unknown }> {
  const results = new Map<string, ClaimResult>();
  try {
    for await (const r of fileClaims(client, lines, { journal: join(dir, 'j'), concurrency: 4, ...options }))
      results.set(r.key, r);
    return { results, error: undefined };
  } catch (error) {
    return { results, error };
  }
}

/** A store of yours, in memory, single-run, with what a test changes. */
function memoryStore(change: Partial<JournalStore> = {}): JournalStore & { records: JournalRecord[] } {
  const records: JournalRecord[] = [];
  return {
    shared: false,
    records,
    open: async () => {},
    async *load() {},
    claim: async (record) => {
      records.push(record);
      return { taken: true };
    },
    append: async (record) => {
      records.push(record);
    },
    close: async () => {},
    ...change,
  };
}

describe('a shared store that keeps changing a key', () => {
  it('is decided on again, then counted as taken elsewhere after three rounds; nothing sent', async () => {
    let round = 0;
    const store = memoryStore({
      shared: true,
      claim: async (record) => ({
        taken: false,
        latest: { key: record.key, state: 'not_sent', bodyHash: 'h', at: `round ${++round}` },
      }),
    });
    const { results } = await runAll([claimLine('K1')], { journal: store });
    expect(results.get('K1')).toEqual({
      key: 'K1',
      line: 1,
      state: 'unknown',
      note: 'taken_elsewhere',
      error: 'other runs sharing this journal kept changing this key; not sent',
    });
    expect(round).toBe(3);
    expect(server.received).toEqual([]);
  });
});

describe('final records the journal could not keep, by what the server said', () => {
  it('says how to resolve each, and lists each with its state and request id', async () => {
    server.answer = (key) =>
      key === 'K1'
        ? { status: 422, body: { message: 'bad' }, headers: { 'x-request-id': 'req-1' } }
        : key === 'K2'
          ? { status: 503, body: { message: 'down' } }
          : key === 'K3'
            ? { status: 429, headers: { 'retry-after': '0' }, body: {} }
            : defaultAnswer(key);
    const full = new Error('ENOSPC');
    const store = memoryStore({ append: () => Promise.reject(full) });
    const { results, error } = await runAll(
      keys(4).map((k) => claimLine(k)),
      {
        journal: store,
        concurrency: 1,
        maxRetries: 0,
      },
    );
    expect(error).toBeInstanceOf(BatchStoppedError);
    const stopped = error as BatchStoppedError;
    expect(stopped.message).toBe('The journal could not be written: ENOSPC');
    expect(stopped.cause).toBe(full);
    // K2's sending record was written (the worker took it while K1's result was being written), its not_sent one was not.
    expect(stopped.unrecorded).toEqual([
      { key: 'K1', state: 'rejected', requestId: 'req-1' },
      { key: 'K2', state: 'not_sent' },
    ]);
    expect(results.get('K1')?.error).toBe(
      `422 POST ${server.url}/incidents: bad; its rejected record could not be written: the journal still says sending, so it is not sent again until resolved (as not filed: the server refused it)`,
    );
    // The batch stopped after K1: the others were not sent.
    for (const key of ['K2', 'K3', 'K4'])
      expect(results.get(key)).toMatchObject({ state: 'not_sent', note: 'stopped' });
  });

  it.each([
    [
      'K2',
      { status: 503, body: { message: 'down' } },
      'unknown',
      'look it up first: the server may have filed it',
    ],
    [
      'K3',
      { status: 429, headers: { 'retry-after': '0' }, body: {} },
      'not_sent',
      'as not filed: it was not sent',
    ],
  ] as const)('%s: %j', async (key, answer, state, how) => {
    server.answer = () => answer;
    const store = memoryStore({ append: () => Promise.reject(new Error('EFBIG')) });
    const { results, error } = await runAll([claimLine(key)], { journal: store, maxRetries: 0 });
    expect((error as BatchStoppedError).unrecorded).toEqual([{ key, state }]);
    expect(results.get(key)?.error).toMatch(
      new RegExp(
        `could not be written: the journal still says sending, so it is not sent again until resolved \\(${how.replace(/[()]/g, '\\$&')}\\)$`,
      ),
    );
  });
});

describe('the options', () => {
  it('sends 8 at once by default, and at least 1 whatever is asked', async () => {
    server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 60 });
    await runAll(
      keys(24).map((k) => claimLine(k)),
      { concurrency: undefined },
    );
    expect(server.maxInFlight).toBe(8);
    const again = await startClaimsServer();
    const slow = new ClaimsClient({ baseUrl: again.url, accessToken: 'tok' });
    again.answer = (key) => ({ ...defaultAnswer(key), delayMs: 30 });
    for await (const _ of fileClaims(
      slow,
      keys(4).map((k) => claimLine(k)),
      { journal: join(dir, 'j2'), concurrency: 0.5 },
    )) {
      // drain
    }
    expect(again.maxInFlight).toBe(1);
    await again.close();
  });

  it('sends a claim refused with 429 again up to 5 times by default', async () => {
    const answers = (limit: number) => (key: string, n: number) =>
      n < limit ? { status: 429, headers: { 'retry-after': '0' }, body: {} } : defaultAnswer(key);
    server.answer = answers(5);
    expect((await runAll([claimLine('K1')])).results.get('K1')).toMatchObject({ state: 'filed' });
    expect(server.received).toHaveLength(6);
    server.received.length = 0;
    server.answer = (_key, n) =>
      n < 6 ? { status: 429, headers: { 'retry-after': '0' }, body: {} } : defaultAnswer('x');
    expect((await runAll([claimLine('K2')])).results.get('K2')).toMatchObject({
      state: 'not_sent',
      status: 429,
    });
    expect(server.received).toHaveLength(6);
  });
});

describe('opening and closing the store', () => {
  it('a store that refuses to open: its own error, even with a signal', async () => {
    const refused = new JournalError('locked', 'in use');
    const { error } = await runAll([claimLine('K1')], {
      journal: memoryStore({ open: () => Promise.reject(refused) }),
      signal: new AbortController().signal,
    });
    expect(error).toBe(refused);
  });

  it('after a batch that ran to its end, a slow close is waited for; a close that fails says so', async () => {
    storeGrace.ms = 20;
    try {
      let closed = false;
      const slowClose = memoryStore({
        close: () =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              closed = true;
              resolve();
            }, 150),
          ),
      });
      const { error } = await runAll([claimLine('K1')], {
        journal: slowClose,
        signal: new AbortController().signal,
      });
      expect(error).toBeUndefined();
      expect(closed).toBe(true);
      const broken = new Error('close failed');
      const failing = await runAll([claimLine('K2')], {
        journal: memoryStore({ close: () => Promise.reject(broken) }),
      });
      expect(failing.error).toBe(broken);
    } finally {
      storeGrace.ms = 5_000;
    }
  });

  it('after a batch that failed, a close that fails too does not hide why it failed', async () => {
    const thrown = new Error('progress bar broke');
    const { error } = await runAll([claimLine('K1')], {
      journal: memoryStore({ close: () => Promise.reject(new Error('close failed')) }),
      onProgress: () => {
        throw thrown;
      },
    });
    expect(error).toBe(thrown);
  });
});

describe('{ file } edges', () => {
  it('allows a name starting with two dots inside the folder, keeps a given filename and content type, and refuses all from a folder that is not there', async () => {
    const root = join(dir, 'inbox');
    mkdirSync(root);
    writeFileSync(join(root, '..hidden.jpg'), 'jpeg');
    writeFileSync(join(root, 'scan.bin'), 'pdf');
    const { results, error } = await runAll(
      [
        claimLine('K1', {
          attachments: [
            { file: '..hidden.jpg' },
            { file: { path: 'scan.bin', filename: 'scan.pdf', contentType: 'application/pdf' } },
          ],
        }),
      ],
      { filesRoot: root },
    );
    expect(error).toBeUndefined();
    expect(results.get('K1')).toMatchObject({ state: 'filed' });
    expect(server.uploadNames).toEqual([['..hidden.jpg', 'scan.pdf']]);
    const missing = await runAll([claimLine('K2', { attachments: [{ file: 'a.jpg' }] })], {
      filesRoot: join(dir, 'nowhere'),
    });
    expect((missing.error as { problems: { message: string }[] }).problems[0]?.message).toBe(
      '"a.jpg" cannot be read (ENOENT)',
    );
  });
});
