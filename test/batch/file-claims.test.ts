import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchInputError, BatchStoppedError } from '../../src/batch/errors.js';
import { fileClaims } from '../../src/batch/file-claims.js';
import { Journal } from '../../src/batch/journal.js';
import type { JournalRecord } from '../../src/batch/record.js';
import type { BatchProgress, ClaimResult } from '../../src/batch/result.js';
import type { ClaimAnswer, JournalStore } from '../../src/batch/store.js';
import { ClaimsClient } from '../../src/index.js';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from './claims-server.js';
import { MemorySharedStore } from './memory-shared-store.js';

// Every wait begun with node:timers/promises (the batch's pause, `RateGate.ready`), passed
// through and recorded with how it ended: a test sees a wait cut short without timing it.
const waits = vi.hoisted(() => [] as { ms: number; end: Promise<'waited out' | 'cut short'> }[]);
vi.mock('node:timers/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:timers/promises')>();
  return {
    ...real,
    setTimeout: (ms: number, value?: unknown, options?: { signal?: AbortSignal }) => {
      const waiting = real.setTimeout(ms, value, options);
      waits.push({
        ms,
        end: waiting.then(
          () => 'waited out' as const,
          () => 'cut short' as const,
        ),
      });
      return waiting;
    },
  };
});

let server: ClaimsServer;
let dir: string;
let journal: string;
let client: ClaimsClient;
beforeEach(async () => {
  waits.length = 0;
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'batch-'));
  journal = join(dir, 'claims.journal');
  client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(
  lines: ReturnType<typeof claimLine>[],
  options: Partial<Parameters<typeof fileClaims>[2]> = {},
): Promise<Map<string, ClaimResult>> {
  const results = new Map<string, ClaimResult>();
  for await (const r of fileClaims(client, lines, { journal, concurrency: 4, ...options }))
    results.set(r.key, r);
  return results;
}

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${i + 1}`);

describe('fileClaims', () => {
  it('files every claim once, records it, and skips it on the next run with its incidentId', async () => {
    const first = await run(keys(10).map((k) => claimLine(k)));
    expect([...first.values()].every((r) => r.state === 'filed' && r.note === 'sent')).toBe(true);
    // The request id of the POST that filed it (from .withResponse()), for the operator's logs.
    expect(first.get('K3')).toMatchObject({ incidentId: 'INC-K3', line: 3, requestId: 'req-K3' });
    expect(server.received.sort()).toEqual(keys(10).sort());

    const second = await run(keys(10).map((k) => claimLine(k)));
    expect(server.received).toHaveLength(10);
    expect(second.get('K7')).toMatchObject({ state: 'filed', note: 'already_filed', incidentId: 'INC-K7' });
  });

  it('keeps at most `concurrency` POSTs in flight and reports progress per state', async () => {
    server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 20 });
    const progress: BatchProgress[] = [];
    await run(
      keys(20).map((k) => claimLine(k)),
      { concurrency: 3, onProgress: (p) => progress.push(p) },
    );
    expect(server.maxInFlight).toBeLessThanOrEqual(3);
    expect(server.maxInFlight).toBeGreaterThan(1);
    expect(progress).toHaveLength(20);
    expect(progress.at(-1)).toMatchObject({ done: 20, total: 20, inFlight: 0, counts: { filed: 20 } });
  });

  it('records a refusal, and sends it again only once its body changed', async () => {
    server.answer = (key) =>
      key === 'K2'
        ? { status: 422, body: { message: 'bad date', field: 'incidentDate' } }
        : defaultAnswer(key);
    const first = await run(keys(3).map((k) => claimLine(k)));
    expect(first.get('K2')).toMatchObject({
      state: 'rejected',
      status: 422,
      problems: { message: 'bad date', field: 'incidentDate' },
    });
    const same = await run(keys(3).map((k) => claimLine(k)));
    expect(same.get('K2')).toMatchObject({ state: 'rejected', note: 'unchanged_rejection', status: 422 });
    expect(server.received.filter((k) => k === 'K2')).toHaveLength(1);

    server.answer = defaultAnswer;
    const changed = await run(
      keys(3).map((k) => claimLine(k, k === 'K2' ? { incidentDate: '2026-02-01' } : {})),
    );
    expect(changed.get('K2')).toMatchObject({ state: 'filed', note: 'sent', incidentId: 'INC-K2' });
    expect(server.received.filter((k) => k === 'K2')).toHaveLength(2);
  });

  it('never sends again a claim whose answer was lost (5xx, bad 2xx) until it is resolved', async () => {
    server.answer = (key) =>
      key === 'K1'
        ? { status: 503, body: { message: 'down' } }
        : key === 'K2'
          ? { status: 201, body: { nothing: 'useful' } }
          : defaultAnswer(key);
    const first = await run(keys(3).map((k) => claimLine(k)));
    expect(first.get('K1')).toMatchObject({ state: 'unknown', status: 503 });
    expect(first.get('K2')).toMatchObject({ state: 'unknown' });
    expect(first.get('K1')?.error).toContain('may have been processed');

    server.answer = defaultAnswer;
    const second = await run(keys(3).map((k) => claimLine(k)));
    expect(second.get('K1')).toMatchObject({ state: 'unknown', note: 'needs_review' });
    expect(second.get('K2')).toMatchObject({ state: 'unknown', note: 'needs_review' });
    expect(server.received.filter((k) => k === 'K1' || k === 'K2')).toHaveLength(2);

    const open = await Journal.open(journal);
    expect(
      open
        .needingReview()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['K1', 'K2']);
    await open.resolve('K1', { notFiled: true });
    await open.resolve('K2', { filed: 'INC-found' });
    await open.close();
    const third = await run(keys(3).map((k) => claimLine(k)));
    expect(third.get('K1')).toMatchObject({ state: 'filed', note: 'sent' });
    expect(third.get('K2')).toMatchObject({ state: 'filed', note: 'already_filed', incidentId: 'INC-found' });
    expect(server.received.filter((k) => k === 'K1')).toHaveLength(2);
    expect(server.received.filter((k) => k === 'K2')).toHaveLength(1);
  });

  it('reports the same key with another body after it was filed as a conflict, and does not send it', async () => {
    await run([claimLine('K1')]);
    const again = await run([claimLine('K1', { description: 'K1', incidentDate: '2026-03-03' })]);
    expect(again.get('K1')).toMatchObject({ state: 'filed', note: 'conflict', incidentId: 'INC-K1' });
    expect(server.received).toEqual(['K1']);
  });

  it('validates every line, extended fields against one metadata look-up per form, before sending any', async () => {
    const ext = (value: string) => ({ extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value }] });
    const lines = [
      claimLine('K1', ext('Fire')),
      claimLine('K2', ext('Lava')),
      claimLine('K3', { policyCountry: 'Britain' }),
      claimLine('K1'),
      claimLine('K5', ext('Flood')),
    ];
    const error = await run(lines).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchInputError);
    const problems = (error as BatchInputError).problems;
    expect(problems.map((p) => [p.line, p.key, p.path])).toEqual([
      [2, 'K2', 'incident.extendedFields[0]'],
      [3, 'K3', 'incident.policyCountry'],
      [4, 'K1', 'key'],
    ]);
    expect(problems[0]).toMatchObject({ code: 'not_in_list' });
    expect(server.received).toEqual([]);
    expect(server.metadataLookups).toBe(1);
  });

  it('lets one 429 with Retry-After pause the whole batch, then sends the refused claim again', async () => {
    server.answer = (key, n) =>
      n === 2
        ? { status: 429, headers: { 'retry-after': '1' }, body: {} }
        : { ...defaultAnswer(key), delayMs: 10 };
    const started = Date.now();
    const results = await run(
      keys(12).map((k) => claimLine(k)),
      { concurrency: 2 },
    );
    expect([...results.values()].every((r) => r.state === 'filed')).toBe(true);
    const limited = server.arrivals[2] as number;
    // After the 429 arrived, no new POST (beyond the one already in flight) left within the pause.
    const during = server.arrivals.filter((t) => t > limited + 50 && t < limited + 900);
    expect(during).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.received).toHaveLength(13);
  });

  it('an abort during a 429 pause leaves the refused claim not_sent in the journal, sent on the next run', async () => {
    const controller = new AbortController();
    server.answer = (key, n) => {
      if (n === 0) {
        setTimeout(() => controller.abort(), 200);
        return { status: 429, headers: { 'retry-after': '30' }, body: {} };
      }
      return defaultAnswer(key);
    };
    const results = await run([claimLine('K1'), claimLine('K2')], {
      concurrency: 1,
      signal: controller.signal,
    });
    // The batch began the 30 s pause the 429 asked for, and the abort cut it short.
    const pauses = waits.filter((w) => w.ms > 25_000);
    expect(pauses).toHaveLength(1);
    expect(pauses[0]?.ms).toBeLessThanOrEqual(30_000);
    expect(await pauses[0]?.end).toBe('cut short');
    expect(results.get('K1')).toMatchObject({ state: 'not_sent', note: 'aborted' });
    expect(results.get('K2')).toMatchObject({ state: 'not_sent', note: 'aborted' });
    expect(server.received).toEqual(['K1']);
    const again = await run([claimLine('K1'), claimLine('K2')]);
    expect(again.get('K1')).toMatchObject({ state: 'filed', note: 'sent' });
  });

  it('stops taking claims on abort: those in flight settle and are recorded, queued ones are not_sent', async () => {
    const controller = new AbortController();
    server.answer = (key, n) => {
      if (n === 3) controller.abort();
      return { ...defaultAnswer(key), delayMs: 50 };
    };
    const results = await run(
      keys(20).map((k) => claimLine(k)),
      { concurrency: 4, signal: controller.signal },
    );
    expect(results.size).toBe(20);
    const filed = [...results.values()].filter((r) => r.state === 'filed');
    expect(filed.map((r) => r.key).sort()).toEqual([...server.received].sort());
    expect(server.received.length).toBe(4);
    const aborted = [...results.values()].filter((r) => r.note === 'aborted');
    expect(aborted).toHaveLength(16);
    expect(aborted.every((r) => r.state === 'not_sent')).toBe(true);
    const open = await Journal.open(journal);
    for (const key of server.received) expect(open.get(key)?.state).toBe('filed');
    await open.close();
  });

  it('uploads { file } attachments inside the item; a failed upload leaves the claim not_sent', async () => {
    const path = join(dir, 'photo.jpg');
    writeFileSync(path, 'jpeg bytes');
    const results = await run([claimLine('K1', { attachments: [{ file: path, description: 'photo' }] })]);
    expect(results.get('K1')).toMatchObject({ state: 'filed' });
    expect(server.uploads).toBe(1);

    const broken = await startClaimsServer();
    const brokenClient = new ClaimsClient({ baseUrl: broken.url, accessToken: 'tok' });
    await broken.close();
    const out: ClaimResult[] = [];
    for await (const r of fileClaims(brokenClient, [claimLine('K2', { attachments: [{ file: path }] })], {
      journal,
      maxRetries: 0,
    }))
      out.push(r);
    expect(out[0]).toMatchObject({ key: 'K2', state: 'not_sent', note: 'upload_failed' });
    const open = await Journal.open(journal);
    expect(open.get('K2')?.state).toBe('not_sent');
    await open.close();
  });

  it('with a shared store: a key another run holds is not sent (taken_elsewhere); one another run filed meanwhile is already_filed', async () => {
    class SharedStore implements JournalStore {
      readonly shared = true;
      readonly rows = new Map<string, JournalRecord>();
      readonly claimed: [string, JournalRecord | undefined][] = [];
      async open() {}
      async *load() {}
      async append(record: JournalRecord) {
        this.rows.set(record.key, record);
      }
      async claim(record: JournalRecord, previous: JournalRecord | undefined): Promise<ClaimAnswer> {
        this.claimed.push([record.key, previous]);
        // Other runs got there first: K2 is in flight there, K3 was filed there.
        if (record.key === 'K2') {
          return { taken: false, latest: { ...record, bodyHash: 'theirs', heldElsewhere: true } };
        }
        if (record.key === 'K3') {
          return { taken: false, latest: { ...record, state: 'filed', incidentId: 'INC-there' } };
        }
        this.rows.set(record.key, record);
        return { taken: true };
      }
      async close() {}
    }
    const store = new SharedStore();
    const results = await run(
      keys(3).map((k) => claimLine(k)),
      { journal: store },
    );
    expect(results.get('K2')).toMatchObject({ state: 'unknown', note: 'taken_elsewhere' });
    expect(results.get('K3')).toMatchObject({
      state: 'filed',
      note: 'already_filed',
      incidentId: 'INC-there',
    });
    expect(server.received.sort()).toEqual(['K1']);
    expect(store.claimed.sort()).toEqual([
      ['K1', undefined],
      ['K2', undefined],
      ['K3', undefined],
    ]);
    expect(store.rows.get('K1')).toMatchObject({ state: 'filed', incidentId: 'INC-K1' });
  });

  it('fails the batch with the error of a store of yours that throws instead of rejecting', async () => {
    const broken = new Error('disk full');
    const store: JournalStore = {
      shared: false,
      open: async () => {},
      load: async function* () {},
      claim: () => Promise.resolve({ taken: true }),
      append: () => {
        throw broken;
      },
      close: async () => {},
    };
    const results: ClaimResult[] = [];
    const error = await (async () => {
      for await (const r of fileClaims(client, [claimLine('K1')], { journal: store })) results.push(r);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchStoppedError);
    expect(error).toMatchObject({
      reason: 'journal_failed',
      cause: broken,
      unrecorded: [{ key: 'K1', incidentId: 'INC-K1', requestId: 'req-K1' }],
    });
    expect(server.received).toEqual(['K1']);
    expect(results).toEqual([expect.objectContaining({ key: 'K1', state: 'filed', incidentId: 'INC-K1' })]);
  });

  it('fails the batch with the error of an onProgress that throws, once the claims in flight are recorded', async () => {
    const thrown = new Error('progress bar broke');
    const error = await run(
      keys(6).map((k) => claimLine(k)),
      {
        concurrency: 2,
        onProgress: ({ done }) => {
          if (done === 2) throw thrown;
        },
      },
    ).catch((e: unknown) => e);
    expect(error).toBe(thrown);
    const open = await Journal.open(journal);
    for (const key of server.received) expect(open.get(key)?.state).toBe('filed');
    await open.close();
  });
});

describe('bounded: what a record and a message keep of a large value', () => {
  it("keeps a refusal's 1 MiB body as its size and first characters, in the result and the journal", async () => {
    const huge = { message: 'refused', detail: 'x'.repeat(200 * 1024) };
    server.answer = (key) => (key === 'K2' ? { status: 422, body: huge } : defaultAnswer(key));
    const results = await run(keys(3).map((k) => claimLine(k)));
    const problems = results.get('K2')?.problems as { truncated: boolean; bytes: number; start: string };
    expect(problems).toEqual({
      truncated: true,
      bytes: Buffer.byteLength(JSON.stringify(huge)),
      start: expect.stringMatching(/^\{"message":"refused","detail":"x+…$/),
    });
    expect(problems.start).toHaveLength(2_048);
    expect(results.get('K2')?.error?.length).toBeLessThanOrEqual(1_000);
    const open = await Journal.open(journal, { readOnly: true });
    expect(open.get('K2')?.problems).toEqual(problems);
    await open.close();
    // A body within the bound is kept whole.
    server.answer = (key) =>
      key === 'K4' ? { status: 422, body: { message: 'bad', errors: ['a'] } } : defaultAnswer(key);
    expect((await run([claimLine('K4')])).get('K4')?.problems).toEqual({ message: 'bad', errors: ['a'] });
  });

  it('quotes a 5 MB key in a problem bounded, with its control characters escaped', async () => {
    const key = `\u001b]0;pwned\u0007${'k'.repeat(5_000_000)}`;
    const error = await run([claimLine(key), claimLine(key)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchInputError);
    const message = (error as Error).message;
    expect(message.length).toBeLessThan(400);
    expect(message).toContain('(key "\\u001b]0;pwned\\u0007kkk');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what must never reach a terminal
    expect(message).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('{ file } attachments confined to a folder (filesRoot)', () => {
  it('refuses paths that lead outside it (../.., absolute, a symlink out), naming each line; sends nothing', async () => {
    const root = join(dir, 'inbox');
    mkdirSync(root);
    writeFileSync(join(root, 'photo.jpg'), 'jpeg');
    symlinkSync('/etc/passwd', join(root, 'innocent.jpg'));
    const lines = [
      claimLine('K1', { attachments: [{ file: '/etc/passwd' }] }),
      claimLine('K2', { attachments: [{ file: '../../../../../../etc/passwd' }] }),
      claimLine('K3', { attachments: [{ file: 'innocent.jpg' }] }),
      claimLine('K4', { attachments: [{ file: { path: join(dir, 'outside.txt') } }] }),
      claimLine('K5', { attachments: [{ file: 'missing.jpg' }] }),
      claimLine('K6', { attachments: [{ file: 'photo.jpg' }] }),
    ];
    writeFileSync(join(dir, 'outside.txt'), 'secret');
    const error = await run(lines, { filesRoot: root }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchInputError);
    const problems = (error as BatchInputError).problems;
    expect(problems.map((p) => [p.line, p.path, p.message])).toEqual([
      [
        1,
        'incident.attachments[0].file',
        expect.stringMatching(/^"\/etc\/passwd" is outside the folder files are read from/),
      ],
      [2, 'incident.attachments[0].file', expect.stringMatching(/is outside the folder files are read from/)],
      [
        3,
        'incident.attachments[0].file',
        '"innocent.jpg" is outside the folder files are read from ("' +
          realpathSync(root) +
          '"); name another with --files-root',
      ],
      [4, 'incident.attachments[0].file', expect.stringMatching(/outside\.txt" is outside the folder/)],
      [5, 'incident.attachments[0].file', '"missing.jpg" cannot be read (ENOENT)'],
    ]);
    expect(server.received).toEqual([]);
    expect(server.uploads).toBe(0);
  });

  it('reads a relative path from the folder, not the working directory, and keeps its name', async () => {
    const root = join(dir, 'inbox');
    mkdirSync(join(root, 'photos'), { recursive: true });
    writeFileSync(join(root, 'photos', 'ceiling.jpg'), 'jpeg bytes');
    symlinkSync(join(root, 'photos', 'ceiling.jpg'), join(root, 'alias.jpg'));
    const results = await run(
      [
        claimLine('K1', {
          attachments: [{ file: 'photos/ceiling.jpg', description: 'ceiling' }, { file: 'alias.jpg' }],
        }),
      ],
      { filesRoot: root },
    );
    expect(results.get('K1')).toMatchObject({ state: 'filed' });
    expect(server.uploads).toBe(1);
    expect(server.uploadNames).toEqual([['ceiling.jpg', 'alias.jpg']]);
    // The journal's hash is of the claim as given (a later run with the same line matches it).
    const again = await run(
      [
        claimLine('K1', {
          attachments: [{ file: 'photos/ceiling.jpg', description: 'ceiling' }, { file: 'alias.jpg' }],
        }),
      ],
      { filesRoot: root },
    );
    expect(again.get('K1')).toMatchObject({ state: 'filed', note: 'already_filed' });
  });

  it('a file swapped for a symlink out of the folder after the check is not uploaded', async () => {
    const root = join(dir, 'inbox');
    mkdirSync(join(root, 'photos'), { recursive: true });
    writeFileSync(join(root, 'photos', 'passwd'), 'my own file named passwd');
    server.answer = (key) => {
      if (key === 'K0') {
        // While K0 is being sent (after every line was checked): the folder becomes a symlink to /etc.
        rmSync(join(root, 'photos'), { recursive: true });
        symlinkSync('/etc', join(root, 'photos'));
      }
      return defaultAnswer(key);
    };
    const lines = [claimLine('K0'), claimLine('K1', { attachments: [{ file: 'photos/passwd' }] })];
    const results = new Map<string, ClaimResult>();
    for await (const r of fileClaims(client, lines, { journal, concurrency: 1, filesRoot: root }))
      results.set(r.key, r);
    expect(results.get('K1')).toMatchObject({ state: 'not_sent', note: 'upload_failed' });
    expect(results.get('K1')?.error).toMatch(/changed since it was checked/);
    expect(server.uploads).toBe(0);
  });
});

describe('two runs sharing one journal (a shared store)', () => {
  it('file each claim once between them, and each reports every key', async () => {
    const name = `shared-${Date.now()}`;
    server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 5 });
    const lines = keys(120).map((k) => claimLine(k));
    const runOnce = async () => {
      const results = new Map<string, ClaimResult>();
      for await (const r of fileClaims(client, lines, {
        journal: new MemorySharedStore(name, 60_000),
        concurrency: 6,
      })) {
        results.set(r.key, r);
      }
      return results;
    };
    const [a, b] = await Promise.all([runOnce(), runOnce()]);
    expect(new Set(server.received).size).toBe(server.received.length);
    expect(server.received).toHaveLength(120);
    expect([a.size, b.size]).toEqual([120, 120]);
    for (const key of keys(120)) {
      const notes = [a.get(key)?.note, b.get(key)?.note].sort();
      // One run sent it; the other found it held (in flight there) or already filed.
      expect(
        notes.filter((n) => n === 'sent'),
        key,
      ).toHaveLength(1);
      expect(['already_filed', 'taken_elsewhere']).toContain(notes.find((n) => n !== 'sent'));
    }
  });
});

describe('the bearer token, echoed base64-encoded in a refusal', () => {
  it('is in neither the journal nor the results', async () => {
    const token = 'bearer-token-of-a-batch-run';
    const echoing = new ClaimsClient({ baseUrl: server.url, accessToken: token });
    server.answer = () => ({
      status: 422,
      body: { message: `refused for ${Buffer.from(`Bearer ${token}`).toString('base64')}`, raw: token },
    });
    const results: ClaimResult[] = [];
    for await (const r of fileClaims(echoing, [claimLine('K1')], { journal })) results.push(r);
    const text = JSON.stringify(results) + readFileSync(journal, 'utf8');
    for (const spelling of [
      token,
      Buffer.from(`Bearer ${token}`).toString('base64'),
      Buffer.from(token).toString('base64'),
    ]) {
      expect(text).not.toContain(spelling);
    }
    expect(results[0]).toMatchObject({ state: 'rejected', status: 422 });
  });
});
