/**
 * The batch runner's own decisions (src/batch/batch-run.ts), driven through `fileClaims` in
 * process: a client over a scripted `fetch`, a journal store in memory that records every
 * call, and the rate gate's waits captured (each moves a fake clock on). No server, no sleep,
 * no assumption about which of two requests comes first: every order is made by the test.
 */
import { getEventListeners } from 'node:events';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TokenRequestError } from '../../src/auth/errors.js';
import { bodyHash } from '../../src/batch/body-hash.js';
import { BatchInputError, BatchStoppedError } from '../../src/batch/errors.js';
import { type FileClaimsOptions, fileClaims } from '../../src/batch/file-claims.js';
import { StoreGaveNoAnswer, storeGrace } from '../../src/batch/grace.js';
import type { JournalRecord } from '../../src/batch/record.js';
import type { BatchProgress, ClaimResult } from '../../src/batch/result.js';
import type { ClaimAnswer, JournalStore } from '../../src/batch/store.js';
import { recordAttempt } from '../../src/call-policy.js';
import { ClaimsClient, ClaimsConnectionError } from '../../src/index.js';
import { claimLine } from './claims-server.js';

// The rate gate's waits, captured: each moves the fake clock on by what it waits, at once, then
// awaits `clock.onSleep` (a test holds a wait there to make something happen during it).
const clock = vi.hoisted(() => ({
  slept: [] as number[],
  onSleep: undefined as ((ms: number) => Promise<void> | void) | undefined,
}));
vi.mock('node:timers/promises', () => ({
  setTimeout: async (ms: number, _value: unknown, options: { signal?: AbortSignal } = {}) => {
    if (options.signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    clock.slept.push(ms);
    events.push(`wait ${ms}`);
    vi.setSystemTime(Date.now() + ms);
    await clock.onSleep?.(ms);
  },
}));

const START = Date.UTC(2026, 10, 26, 12);
const AT = new Date(START).toISOString();
const BASE = 'https://claims.test/api';
/** What happened, in order: `claim K1`, `append K1 filed`, `POST K1`, `wait 500`, `pauseAll 500`. */
let events: string[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(START);
  // No jitter: the back-off is exactly 0.5 s × 2ⁿ.
  vi.spyOn(Math, 'random').mockReturnValue(0);
  clock.slept.length = 0;
  clock.onSleep = undefined;
  events = [];
  reply = filed;
  uploadReply = () => ({ status: 400, body: { message: 'bad file' } });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  storeGrace.ms = 5_000;
});

// --- the API: a scripted fetch ---------------------------------------------------------------

type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'refused';
/** The answer to the n-th (0-based) POST, by its key (the claim's description). */
let reply: (key: string, n: number) => Reply | Promise<Reply>;
const filed = (key: string): Reply => ({
  status: 201,
  body: { incidentId: `INC-${key}` },
  headers: { 'x-request-id': `req-${key}` },
});
const refused = (): Reply => 'refused';
const REFUSED_TEXT = 'connect ECONNREFUSED 127.0.0.1:443';

/** The answer to each upload (POST /attachments). */
let uploadReply: () => Reply;
/** POST /incidents the client sent, by key, in order. */
let posts: string[] = [];
/** Their bodies. */
let bodies: Record<string, unknown>[] = [];

const scriptedFetch: typeof fetch = async (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  let answer: Reply;
  if (url === `${BASE}/attachments`) {
    events.push('upload');
    answer = uploadReply();
  } else {
    expect([init?.method, url]).toEqual(['POST', `${BASE}/incidents`]);
    const body = JSON.parse(String(init?.body)) as { description: string };
    const n = posts.length;
    posts.push(body.description);
    bodies.push(body);
    events.push(`POST ${body.description}`);
    answer = await reply(body.description, n);
  }
  if (answer === 'refused') {
    throw new TypeError('fetch failed', {
      cause: Object.assign(new Error(REFUSED_TEXT), { code: 'ECONNREFUSED' }),
    });
  }
  return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
    status: answer.status,
    headers: { 'content-type': 'application/json', ...answer.headers },
  });
};

function client(accessToken: string | (() => Promise<string>) = 'tok'): ClaimsClient {
  // No retry of an upload inside the client: its back-off would wait in real time.
  return new ClaimsClient({ baseUrl: BASE, accessToken, fetch: scriptedFetch, maxRetries: 0 });
}

// --- the journal: a store in memory ----------------------------------------------------------

interface MemoryStore extends JournalStore {
  /** Every record written (`claim` and `append`), in order. */
  written: JournalRecord[];
  /** Each `pauseAll` asked, in ms. */
  paused: number[];
}

function memoryStore(change: Partial<JournalStore> = {}): MemoryStore {
  const written: JournalRecord[] = [];
  const paused: number[] = [];
  return {
    shared: false,
    written,
    paused,
    open: async () => {},
    async *load() {},
    claim: async (record) => {
      events.push(`claim ${record.key}`);
      written.push(record);
      return { taken: true };
    },
    append: async (record) => {
      events.push(`append ${record.key} ${record.state}`);
      written.push(record);
    },
    close: async () => {},
    pauseAll: async (ms) => {
      events.push(`pauseAll ${ms}`);
      paused.push(ms);
    },
    ...change,
  };
}

// --- a run -----------------------------------------------------------------------------------

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${i + 1}`);
const hashOf = (key: string) => bodyHash(claimLine(key).incident);

interface Run {
  results: ClaimResult[];
  byKey: Map<string, ClaimResult>;
  error: unknown;
  progress: BatchProgress[];
}

async function runAll(
  lines: (string | ReturnType<typeof claimLine>)[],
  options: Partial<FileClaimsOptions> & { client?: ClaimsClient } = {},
): Promise<Run> {
  posts = [];
  bodies = [];
  const progress: BatchProgress[] = [];
  const results: ClaimResult[] = [];
  const { client: given, ...rest } = options;
  try {
    for await (const r of fileClaims(
      given ?? client(),
      lines.map((k) => (typeof k === 'string' ? claimLine(k) : k)),
      {
        journal: memoryStore(),
        concurrency: 1,
        onProgress: (p) => progress.push(p),
        ...rest,
      },
    )) {
      results.push(r);
    }
    return { results, byKey: new Map(results.map((r) => [r.key, r])), error: undefined, progress };
  } catch (error) {
    return { results, byKey: new Map(results.map((r) => [r.key, r])), error, progress };
  }
}

/** A promise settled from outside. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const sendingOf = (key: string): JournalRecord => ({ key, state: 'sending', bodyHash: hashOf(key), at: AT });

// --- the tests -------------------------------------------------------------------------------

describe('each answer, as the result and the journal keep it', () => {
  it('filed: its incidentId and request id; the sending record before the POST, the filed one after', async () => {
    const store = memoryStore();
    const { results, error } = await runAll(['K1'], { journal: store });
    expect(error).toBeUndefined();
    expect(results).toStrictEqual([
      { key: 'K1', line: 1, state: 'filed', note: 'sent', incidentId: 'INC-K1', requestId: 'req-K1' },
    ]);
    expect(store.written).toStrictEqual([
      sendingOf('K1'),
      {
        key: 'K1',
        state: 'filed',
        bodyHash: hashOf('K1'),
        at: AT,
        incidentId: 'INC-K1',
        requestId: 'req-K1',
      },
    ]);
    expect(events).toEqual(['claim K1', 'POST K1', 'append K1 filed']);
  });

  it('filed without a request id: none in the result or the record', async () => {
    reply = (key) => ({ status: 201, body: { incidentId: `INC-${key}` } });
    const store = memoryStore();
    const { results } = await runAll(['K1'], { journal: store });
    expect(results).toStrictEqual([
      { key: 'K1', line: 1, state: 'filed', note: 'sent', incidentId: 'INC-K1' },
    ]);
    expect(store.written[1]).toStrictEqual({
      key: 'K1',
      state: 'filed',
      bodyHash: hashOf('K1'),
      at: AT,
      incidentId: 'INC-K1',
    });
  });

  it('refused (422): rejected, with the status, the body, the request id and the message', async () => {
    reply = () => ({ status: 422, body: { message: 'bad date' }, headers: { 'x-request-id': 'req-9' } });
    const { results } = await runAll(['K1']);
    expect(results).toStrictEqual([
      {
        key: 'K1',
        line: 1,
        state: 'rejected',
        note: 'refused',
        requestId: 'req-9',
        status: 422,
        problems: { message: 'bad date' },
        error: `422 POST ${BASE}/incidents: bad date`,
      },
    ]);
  });

  it('no usable answer (500): unknown, never sent again in this run', async () => {
    reply = () => ({ status: 500, body: { message: 'boom' } });
    const { results } = await runAll(['K1'], { maxRetries: 3 });
    expect(posts).toEqual(['K1']);
    expect(results).toStrictEqual([
      {
        key: 'K1',
        line: 1,
        state: 'unknown',
        note: 'sent',
        status: 500,
        error: expect.stringMatching(/^500 POST https:\/\/claims\.test\/api\/incidents: boom/),
      },
    ]);
  });

  it('refused for the route (404): not_sent, caller_refused; the batch goes on', async () => {
    reply = (key) => (key === 'K1' ? { status: 404, body: { message: 'no route' } } : filed(key));
    const { results, error } = await runAll(keys(2));
    expect(error).toBeUndefined();
    expect(results).toStrictEqual([
      {
        key: 'K1',
        line: 1,
        state: 'not_sent',
        note: 'caller_refused',
        status: 404,
        error: `404 POST ${BASE}/incidents: no route`,
      },
      { key: 'K2', line: 2, state: 'filed', note: 'sent', incidentId: 'INC-K2', requestId: 'req-K2' },
    ]);
  });

  it('reports progress after each claim: done, total, none in flight once settled, the counts', async () => {
    reply = (key, n) =>
      n === 0
        ? { status: 429, body: {}, headers: { 'retry-after-ms': '10' } }
        : key === 'K2'
          ? { status: 404, body: {} }
          : filed(key);
    const { progress } = await runAll(keys(3), { maxRetries: 1 });
    expect(posts).toEqual(['K1', 'K1', 'K2', 'K3']);
    expect(progress).toStrictEqual([
      { done: 1, total: 3, inFlight: 0, counts: { filed: 1, rejected: 0, unknown: 0, not_sent: 0 } },
      { done: 2, total: 3, inFlight: 0, counts: { filed: 1, rejected: 0, unknown: 0, not_sent: 1 } },
      { done: 3, total: 3, inFlight: 0, counts: { filed: 2, rejected: 0, unknown: 0, not_sent: 1 } },
    ]);
  });
});

describe('the API refuses the caller: the batch stops at once', () => {
  it.each([
    [401, ', after the token was asked for again'],
    [403, ''],
  ])('%i: one line that says so; the key refused and those not sent stay sendable', async (status, after) => {
    reply = () => ({ status, body: { message: 'no' } });
    const store = memoryStore();
    const { results, error } = await runAll(keys(3), { journal: store });
    expect(posts).toEqual(['K1']);
    expect(error).toBeInstanceOf(BatchStoppedError);
    expect(error).toMatchObject({ reason: 'caller_refused', unrecorded: [] });
    expect((error as Error).message).toBe(
      `The API refused the caller (${status}${after}): ${status} POST ${BASE}/incidents: no; ` +
        'fix the token or its permissions and run the batch again (nothing refused so was recorded as rejected)',
    );
    expect(results).toStrictEqual([
      {
        key: 'K1',
        line: 1,
        state: 'not_sent',
        note: 'caller_refused',
        status,
        error: `${status} POST ${BASE}/incidents: no`,
      },
      ...['K2', 'K3'].map((key, i) => ({
        key,
        line: i + 2,
        state: 'not_sent',
        note: 'stopped',
        error: 'not sent: the batch stopped (caller_refused)',
      })),
    ]);
    expect(store.written.map((r) => `${r.key} ${r.state}`)).toEqual(['K1 sending', 'K1 not_sent']);
  });
});

describe('a wait the API asks for holds the whole batch, and every run sharing the journal', () => {
  const tooMany = (headers: Record<string, string> = {}): Reply => ({ status: 429, body: {}, headers });

  it('a 429 with Retry-After: the wait asked, shared with the store, then the claim is sent again', async () => {
    reply = (key, n) => (n === 0 ? tooMany({ 'retry-after-ms': '1200' }) : filed(key));
    const store = memoryStore();
    const { results } = await runAll(['K1'], { journal: store });
    expect(results[0]).toMatchObject({ state: 'filed', note: 'sent' });
    expect(events).toEqual([
      'claim K1',
      'POST K1',
      'pauseAll 1200',
      'wait 1200',
      'POST K1',
      'append K1 filed',
    ]);
  });

  it('a 429 without Retry-After: the back-off (0.5 s, then 1 s), shared too', async () => {
    reply = (key, n) => (n < 2 ? tooMany() : filed(key));
    const store = memoryStore();
    await runAll(['K1'], { journal: store });
    expect(posts).toEqual(['K1', 'K1', 'K1']);
    expect(clock.slept).toEqual([500, 1000]);
    expect(store.paused).toEqual([500, 1000]);
  });

  it('a 429 asking for an hour: waited for 10 minutes, not failed', async () => {
    reply = (key, n) => (n === 0 ? tooMany({ 'retry-after': '3600' }) : filed(key));
    const store = memoryStore();
    const { results } = await runAll(['K1'], { journal: store });
    expect(results[0]).toMatchObject({ state: 'filed' });
    expect(clock.slept).toEqual([600_000]);
    expect(store.paused).toEqual([600_000]);
  });

  it('a 429 after the last retry: the claim not_sent (caller_refused), the wait still held for the next claim', async () => {
    reply = (key) => (key === 'K1' ? tooMany({ 'retry-after-ms': '300' }) : filed(key));
    const store = memoryStore();
    const { results, error } = await runAll(keys(2), { journal: store, maxRetries: 1 });
    expect(error).toBeUndefined();
    expect(results[0]).toStrictEqual({
      key: 'K1',
      line: 1,
      state: 'not_sent',
      note: 'caller_refused',
      status: 429,
      error: `429 POST ${BASE}/incidents: {}`,
    });
    expect(events).toEqual([
      'claim K1',
      'POST K1',
      'pauseAll 300',
      'wait 300',
      'POST K1',
      'pauseAll 300',
      'append K1 not_sent',
      'wait 300',
      'claim K2',
      'POST K2',
      'append K2 filed',
    ]);
  });

  it('a 503 with Retry-After (not sent again: unknown): the next claim waits, and so does every run', async () => {
    reply = (key) =>
      key === 'K1' ? { status: 503, body: {}, headers: { 'retry-after-ms': '700' } } : filed(key);
    const store = memoryStore();
    const { results } = await runAll(keys(2), { journal: store, maxRetries: 3 });
    expect(results.map((r) => [r.key, r.state, r.status])).toEqual([
      ['K1', 'unknown', 503],
      ['K2', 'filed', undefined],
    ]);
    expect(posts).toEqual(['K1', 'K2']);
    expect(store.paused).toEqual([700]);
    expect(clock.slept).toEqual([700]);
  });

  it('a 503 asking for an hour: every run waits 10 minutes', async () => {
    reply = (key) =>
      key === 'K1' ? { status: 503, body: {}, headers: { 'retry-after': '3600' } } : filed(key);
    const store = memoryStore();
    await runAll(keys(2), { journal: store });
    expect(store.paused).toEqual([600_000]);
    expect(clock.slept).toEqual([600_000]);
  });

  it('a 503 without Retry-After, a refused connection: nobody else is asked to wait', async () => {
    reply = (key, n) => (key === 'K1' ? { status: 503, body: {} } : n === 1 ? 'refused' : filed(key));
    const store = memoryStore();
    const { results } = await runAll(keys(2), { journal: store });
    expect(results.map((r) => r.state)).toEqual(['unknown', 'filed']);
    expect(posts).toEqual(['K1', 'K2', 'K2']);
    // Only the refused connection's own back-off, for this run alone.
    expect(clock.slept).toEqual([500]);
    expect(store.paused).toEqual([]);
  });

  it('a store without pauseAll, or whose pauseAll fails or throws: this run still waits, the batch goes on', async () => {
    const stores = [
      memoryStore({ pauseAll: undefined }),
      memoryStore({ pauseAll: () => Promise.reject(new Error('database down')) }),
      memoryStore({
        pauseAll: () => {
          throw new Error('not a promise');
        },
      }),
    ];
    for (const store of stores) {
      clock.slept.length = 0;
      reply = (key, n) => (n === 0 ? tooMany({ 'retry-after-ms': '900' }) : filed(key));
      const { results, error } = await runAll(keys(2), { journal: store });
      expect(error).toBeUndefined();
      expect(results.map((r) => r.state)).toEqual(['filed', 'filed']);
      expect(clock.slept).toEqual([900]);
    }
  });

  it("another run's back-off, read from the store before a claim: no POST until it has passed", async () => {
    const store = memoryStore({ pausedUntil: () => START + 3_000 });
    await runAll(keys(2), { journal: store });
    expect(events).toEqual([
      'wait 3000',
      'claim K1',
      'POST K1',
      'append K1 filed',
      'claim K2',
      'POST K2',
      'append K2 filed',
    ]);
  });

  it("another run's back-off read with this claim's sending record: held before its POST", async () => {
    let until = 0;
    const base = memoryStore();
    const store = memoryStore({
      pausedUntil: () => until,
      claim: async (record, previous) => {
        const answer = await base.claim(record, previous);
        if (record.key === 'K1') until = Date.now() + 2_000;
        return answer;
      },
    });
    await runAll(keys(2), { journal: store });
    expect(events).toEqual([
      'claim K1',
      'wait 2000',
      'POST K1',
      'append K1 filed',
      'claim K2',
      'POST K2',
      'append K2 filed',
    ]);
  });

  it("a back-off already passed, or a store's pausedUntil that is no time: no wait, and a later 429's wait still holds", async () => {
    for (const until of [START - 1, START, Number.NaN]) {
      clock.slept.length = 0;
      reply = (key, n) => (n === 0 ? tooMany({ 'retry-after-ms': '800' }) : filed(key));
      const store = memoryStore({ pausedUntil: () => until });
      await runAll(keys(2), { journal: store });
      expect(clock.slept, String(until)).toEqual([800]);
    }
  });
});

describe('an API that cannot be reached stops the batch', () => {
  it('once a claim failed to connect on every attempt allowed, with no answer meanwhile: one line, the rest not sent', async () => {
    reply = refused;
    const store = memoryStore();
    const { results, error } = await runAll(keys(3), { journal: store, maxRetries: 2 });
    expect(posts).toEqual(['K1', 'K1', 'K1']);
    expect(clock.slept).toEqual([500, 1000]);
    // Its own connection failing is no reason to hold other runs.
    expect(store.paused).toEqual([]);
    expect(error).toBeInstanceOf(BatchStoppedError);
    expect(error).toMatchObject({ reason: 'unreachable', unrecorded: [] });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^The API could not be reached: 3 attempt\\(s\\) to send key "K1" failed to connect \\([^)]*${REFUSED_TEXT}[^)]*\\), and no claim got an answer from the API meanwhile$`,
      ),
    );
    expect((error as Error).cause).toBeInstanceOf(ClaimsConnectionError);
    expect(results.map((r) => [r.key, r.state, r.note])).toEqual([
      ['K1', 'not_sent', 'sent'],
      ['K2', 'not_sent', 'stopped'],
      ['K3', 'not_sent', 'stopped'],
    ]);
    expect(results[0]?.error).toContain(REFUSED_TEXT);
    expect(results[1]?.error).toBe('not sent: the batch stopped (unreachable)');
    expect(store.written.map((r) => `${r.key} ${r.state}`)).toEqual(['K1 sending', 'K1 not_sent']);
  });

  it('with no retry allowed, after its one attempt', async () => {
    reply = refused;
    const { error } = await runAll(keys(2), { maxRetries: 0 });
    expect(posts).toEqual(['K1']);
    expect((error as Error).message).toMatch(
      /^The API could not be reached: 1 attempt\(s\) to send key "K1" failed/,
    );
  });

  it('not when the connection failed once and then the claim was answered', async () => {
    reply = (key, n) => (n === 0 ? 'refused' : filed(key));
    const { results, error } = await runAll(keys(2), { maxRetries: 1 });
    expect(error).toBeUndefined();
    expect(results.map((r) => r.state)).toEqual(['filed', 'filed']);
  });

  it('not when an earlier claim was answered and this one spent its retries: each claim counts from its first failure', async () => {
    // K1 is answered; K2 fails to connect: only the answers since K2's first failure count.
    reply = (key) => (key === 'K2' ? 'refused' : filed(key));
    const { error } = await runAll(keys(3), { maxRetries: 1 });
    expect(error).toMatchObject({ reason: 'unreachable' });
    expect((error as Error).message).toMatch(
      /^The API could not be reached: 2 attempt\(s\) to send key "K2"/,
    );
    expect(posts).toEqual(['K1', 'K2', 'K2']);
  });

  for (const [what, answer] of [
    ['filed', filed],
    ['refused (422)', () => ({ status: 422, body: { message: 'bad' } })],
  ] as const) {
    it(`not while another claim is answered (${what}) between its first failure and its last`, async () => {
      // K2's answer is held until K1's first attempt failed, and K1's second waits for K2's answer.
      const k1Failed = deferred();
      const k2Answered = deferred();
      reply = async (key, n) => {
        if (key === 'K1') {
          if (n > 0) await k2Answered.promise;
          if (n === 0) k1Failed.resolve();
          return 'refused';
        }
        await k1Failed.promise;
        setImmediate(() => k2Answered.resolve());
        return answer(key);
      };
      const { results, error } = await runAll(keys(2), { concurrency: 2, maxRetries: 1 });
      expect(error).toBeUndefined();
      expect(posts.filter((k) => k === 'K1')).toHaveLength(2);
      expect(results.find((r) => r.key === 'K1')).toMatchObject({ state: 'not_sent', note: 'sent' });
    });
  }

  it('not for a connection failure the policy does not retry (proven unwritten), with retries left', async () => {
    const written: string[] = [];
    const unwritten = {
      incidents: {
        create: (incident: { description: string }) => ({
          withResponse: () => {
            written.push(incident.description);
            return Promise.reject(
              recordAttempt(new ClaimsConnectionError('write EPIPE', { outcome: 'not_sent' }), {
                kind: 'failure',
                sent: 'not_written',
              }),
            );
          },
        }),
      },
    } as unknown as ClaimsClient;
    const { results, error } = await runAll(keys(2), { client: unwritten, maxRetries: 3 });
    expect(error).toBeUndefined();
    expect(written).toEqual(['K1', 'K2']);
    expect(results.map((r) => [r.state, r.note, r.error])).toEqual([
      ['not_sent', 'sent', 'write EPIPE'],
      ['not_sent', 'sent', 'write EPIPE'],
    ]);
  });
});

describe('a token provider that gives no token', () => {
  const endpointError = (status: number) =>
    new TokenRequestError(`Token endpoint said ${status}`, {
      failure: 'error_response',
      tokenUrl: 'https://auth.example/token',
      status,
    });

  it('told to come back later on every attempt: the batch stops as unreachable, naming the token endpoint', async () => {
    let asked = 0;
    const { results, error } = await runAll(keys(2), {
      client: client(() => {
        asked++;
        return Promise.reject(endpointError(503));
      }),
      maxRetries: 1,
    });
    expect(asked).toBe(2);
    expect(clock.slept).toEqual([500]);
    expect(posts).toEqual([]);
    expect(error).toMatchObject({ reason: 'unreachable' });
    expect((error as Error).message).toMatch(
      /^The token endpoint gave no token: 2 attempt\(s\) to send key "K1" got none \(accessToken provider failed: [^)]*Token endpoint said 503[^)]*\), and no claim got an answer from the API meanwhile$/,
    );
    expect(results.map((r) => [r.key, r.state, r.note])).toEqual([
      ['K1', 'not_sent', 'caller_refused'],
      ['K2', 'not_sent', 'stopped'],
    ]);
  });

  it('refused the credentials: the batch stops at once (caller_refused), nothing sent', async () => {
    const { results, error } = await runAll(keys(2), {
      client: client(() => Promise.reject(endpointError(401))),
      maxRetries: 3,
    });
    expect(clock.slept).toEqual([]);
    expect(error).toMatchObject({ reason: 'caller_refused' });
    expect((error as Error).message).toMatch(
      /^No claim can be sent: accessToken provider failed: [^;]*Token endpoint said 401[^;]*; fix the credentials or the token provider and run the batch again \(nothing refused so was sent or recorded as rejected\)$/,
    );
    expect(results.map((r) => [r.key, r.state, r.note])).toEqual([
      ['K1', 'not_sent', 'caller_refused'],
      ['K2', 'not_sent', 'stopped'],
    ]);
  });
});

describe("a shared store's claim that refuses: the key is decided on again from what the store says", () => {
  function sharedStore(answer: (record: JournalRecord, round: number) => ClaimAnswer) {
    const asked: [JournalRecord, JournalRecord | undefined][] = [];
    const store = memoryStore({
      shared: true,
      claim: async (record, previous) => {
        asked.push([record, previous]);
        const given = answer(record, asked.length);
        if (given.taken) store.written.push(record);
        return given;
      },
    });
    return { store, asked };
  }

  it('filed by another run meanwhile: already_filed, with its incidentId; not sent', async () => {
    const { store, asked } = sharedStore((record) => ({
      taken: false,
      latest: { ...record, state: 'filed', incidentId: 'INC-there', requestId: 'req-there' },
    }));
    const { results } = await runAll(['K1'], { journal: store });
    expect(posts).toEqual([]);
    expect(asked).toHaveLength(1);
    expect(results).toStrictEqual([
      {
        key: 'K1',
        line: 1,
        state: 'filed',
        note: 'already_filed',
        incidentId: 'INC-there',
        requestId: 'req-there',
      },
    ]);
  });

  it('being sent by another run: taken_elsewhere; not sent', async () => {
    const { store } = sharedStore((record) => ({ taken: false, latest: { ...record, heldElsewhere: true } }));
    const { results } = await runAll(['K1'], { journal: store });
    expect(posts).toEqual([]);
    expect(results).toStrictEqual([
      {
        key: 'K1',
        line: 1,
        state: 'unknown',
        note: 'taken_elsewhere',
        error: 'another run sharing this journal is sending it',
      },
    ]);
  });

  it('left not_sent by another run: claimed again over that record, then sent', async () => {
    const theirs: JournalRecord = { key: 'K1', state: 'not_sent', bodyHash: 'other', at: 'then', error: 'x' };
    const { store, asked } = sharedStore((_record, round) =>
      round === 1 ? { taken: false, latest: theirs } : { taken: true },
    );
    const { results } = await runAll(['K1'], { journal: store });
    expect(asked).toStrictEqual([
      [sendingOf('K1'), undefined],
      [sendingOf('K1'), theirs],
    ]);
    expect(posts).toEqual(['K1']);
    expect(results[0]).toMatchObject({ state: 'filed', note: 'sent' });
  });

  it('changed by other runs three times over: unknown (taken_elsewhere), not sent', async () => {
    const { store, asked } = sharedStore((record, round) => ({
      taken: false,
      latest: { key: record.key, state: 'not_sent', bodyHash: 'h', at: `round ${round}` },
    }));
    const { results } = await runAll(['K1'], { journal: store });
    expect(asked.map(([, previous]) => previous?.at)).toEqual([undefined, 'round 1', 'round 2']);
    expect(posts).toEqual([]);
    expect(results).toStrictEqual([
      {
        key: 'K1',
        line: 1,
        state: 'unknown',
        note: 'taken_elsewhere',
        error: 'other runs sharing this journal kept changing this key; not sent',
      },
    ]);
  });
});

describe('a journal that cannot be written stops the batch, and says what it knows', () => {
  const full = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

  it('a sending record that fails: that claim not sent, nothing else taken', async () => {
    const failure = full();
    const store = memoryStore({ claim: () => Promise.reject(failure) });
    const { results, error } = await runAll(keys(2), { journal: store });
    expect(posts).toEqual([]);
    expect(error).toBeInstanceOf(BatchStoppedError);
    expect(error).toMatchObject({
      reason: 'journal_failed',
      message: 'The journal could not be written: ENOSPC: no space left on device, write',
      cause: failure,
      unrecorded: [],
    });
    expect(results).toStrictEqual([
      {
        key: 'K1',
        line: 1,
        state: 'not_sent',
        note: 'stopped',
        error: 'not sent: its sending record could not be written (ENOSPC: no space left on device, write)',
      },
      {
        key: 'K2',
        line: 2,
        state: 'not_sent',
        note: 'stopped',
        error: 'not sent: the batch stopped (journal_failed)',
      },
    ]);
  });

  const cases: [string, Reply, Partial<ClaimResult>, Record<string, unknown>, string][] = [
    [
      'filed',
      filed('K1'),
      { state: 'filed', note: 'sent', incidentId: 'INC-K1', requestId: 'req-K1' },
      { key: 'K1', state: 'filed', incidentId: 'INC-K1', requestId: 'req-K1' },
      'its filed record could not be written: the journal still says sending, so it is not sent again until resolved (as filed, with its incidentId)',
    ],
    [
      'rejected',
      { status: 422, body: { message: 'bad' }, headers: { 'x-request-id': 'req-1' } },
      { state: 'rejected', note: 'refused', requestId: 'req-1', status: 422, problems: { message: 'bad' } },
      { key: 'K1', state: 'rejected', requestId: 'req-1' },
      `422 POST ${BASE}/incidents: bad; its rejected record could not be written: the journal still says sending, so it is not sent again until resolved (as not filed: the server refused it)`,
    ],
    [
      'unknown',
      { status: 500, body: { message: 'down' } },
      { state: 'unknown', note: 'sent', status: 500 },
      { key: 'K1', state: 'unknown' },
      `500 POST ${BASE}/incidents: down (the request may have been processed); its unknown record could not be written: the journal still says sending, so it is not sent again until resolved (look it up first: the server may have filed it)`,
    ],
    [
      'not_sent',
      { status: 404, body: { message: 'gone' } },
      { state: 'not_sent', note: 'caller_refused', status: 404 },
      { key: 'K1', state: 'not_sent' },
      `404 POST ${BASE}/incidents: gone; its not_sent record could not be written: the journal still says sending, so it is not sent again until resolved (as not filed: it was not sent)`,
    ],
  ];
  for (const [state, answer, result, unrecorded, said] of cases) {
    it(`a ${state} record that fails: the result as it ended, how to resolve it, listed in unrecorded`, async () => {
      reply = () => answer;
      const failure = full();
      const store = memoryStore({ append: () => Promise.reject(failure) });
      const { results, error } = await runAll(keys(2), { journal: store });
      expect(posts).toEqual(['K1']);
      expect(error).toMatchObject({ reason: 'journal_failed', cause: failure });
      // K2 was taken while K1's result was being written (they share a sync): its sending record
      // was written, and then its not_sent one failed too.
      expect((error as BatchStoppedError).unrecorded).toStrictEqual([
        unrecorded,
        { key: 'K2', state: 'not_sent' },
      ]);
      expect(results[0]).toMatchObject({ key: 'K1', ...result });
      expect(results[0]?.error).toBe(said);
      expect(results[1]).toStrictEqual({
        key: 'K2',
        line: 2,
        state: 'not_sent',
        note: 'stopped',
        error:
          'not sent: the batch stopped (journal_failed); its not_sent record could not be written: the journal still says sending, so it is not sent again until resolved (as not filed: it was not sent)',
      });
    });
  }
});

describe('a stop: by the caller (signal) or by the batch itself', () => {
  it('a signal already aborted: nothing written, nothing sent, every claim not_sent (aborted)', async () => {
    const store = memoryStore();
    const { results, error } = await runAll(keys(2), { journal: store, signal: AbortSignal.abort() });
    expect(error).toBeUndefined();
    expect(posts).toEqual([]);
    expect(store.written).toEqual([]);
    expect(results).toStrictEqual(
      keys(2).map((key, i) => ({
        key,
        line: i + 1,
        state: 'not_sent',
        note: 'aborted',
        error: 'not sent: the batch was stopped',
      })),
    );
  });

  it('an abort during a 429 wait: the claim not_sent with why it was not sent again, recorded; the rest not taken', async () => {
    const controller = new AbortController();
    clock.onSleep = () => controller.abort();
    reply = () => ({ status: 429, body: {}, headers: { 'retry-after-ms': '5000' } });
    const store = memoryStore();
    const { results, error } = await runAll(keys(2), { journal: store, signal: controller.signal });
    expect(error).toBeUndefined();
    expect(posts).toEqual(['K1']);
    const why = `not sent: 429 POST ${BASE}/incidents: {}`;
    expect(results).toStrictEqual([
      { key: 'K1', line: 1, state: 'not_sent', note: 'aborted', error: why },
      { key: 'K2', line: 2, state: 'not_sent', note: 'aborted', error: 'not sent: the batch was stopped' },
    ]);
    expect(store.written).toStrictEqual([
      sendingOf('K1'),
      {
        key: 'K1',
        bodyHash: hashOf('K1'),
        at: new Date(START + 5_000).toISOString(),
        state: 'not_sent',
        error: why,
      },
    ]);
  });

  it("an abort while waiting out another run's back-off after the sending record: not_sent, recorded", async () => {
    const controller = new AbortController();
    clock.onSleep = () => controller.abort();
    let until = 0;
    const store = memoryStore({ pausedUntil: () => until });
    const claim = store.claim.bind(store);
    store.claim = async (record, previous) => {
      until = Date.now() + 2_000;
      return claim(record, previous);
    };
    const { results } = await runAll(keys(2), { journal: store, signal: controller.signal });
    expect(posts).toEqual([]);
    expect(results.map((r) => [r.key, r.state, r.note, r.error])).toEqual([
      ['K1', 'not_sent', 'aborted', 'not sent: the batch was stopped'],
      ['K2', 'not_sent', 'aborted', 'not sent: the batch was stopped'],
    ]);
    expect(store.written.map((r) => [r.key, r.state, r.error])).toEqual([
      ['K1', 'sending', undefined],
      ['K1', 'not_sent', 'not sent: the batch was stopped'],
    ]);
  });

  it('the batch stopping while a claim waits after its sending record: that claim not_sent (stopped), with the reason', async () => {
    // K1 is refused (401) while K2, its sending record written, waits out a back-off.
    const k1Posted = deferred();
    const k2Waiting = deferred();
    const k1Settled = deferred();
    let until = 0;
    const store = memoryStore({ pausedUntil: () => until });
    const claim = store.claim.bind(store);
    store.claim = async (record, previous) => {
      if (record.key === 'K2') {
        await k1Posted.promise;
        until = Date.now() + 2_000;
      }
      return claim(record, previous);
    };
    clock.onSleep = async () => {
      k2Waiting.resolve();
      await k1Settled.promise;
    };
    reply = async () => {
      k1Posted.resolve();
      await k2Waiting.promise;
      return { status: 401, body: { message: 'expired' } };
    };
    const { results, error } = await runAll(keys(3), {
      journal: store,
      concurrency: 2,
      onProgress: ({ done }) => {
        if (done === 1) k1Settled.resolve();
      },
    });
    expect(posts).toEqual(['K1']);
    expect(error).toMatchObject({ reason: 'caller_refused' });
    expect(results.map((r) => [r.key, r.state, r.note, r.error])).toEqual([
      ['K1', 'not_sent', 'caller_refused', `401 POST ${BASE}/incidents: expired`],
      ['K2', 'not_sent', 'stopped', 'not sent: the batch stopped (caller_refused)'],
      ['K3', 'not_sent', 'stopped', 'not sent: the batch stopped (caller_refused)'],
    ]);
    expect(store.written.filter((r) => r.key === 'K2').map((r) => [r.state, r.error])).toEqual([
      ['sending', undefined],
      ['not_sent', 'not sent: the batch stopped (caller_refused)'],
    ]);
  });

  it('leaves no listener on the caller’s signal once the run is over', async () => {
    const controller = new AbortController();
    await runAll(keys(2), { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
  });
});

describe('an onProgress that throws', () => {
  const thrown = new Error('progress bar broke');
  // Only the first time: the batch fails with it whatever the later calls do.
  let calls = 0;
  beforeEach(() => {
    calls = 0;
  });
  const throwing = () => {
    if (calls++ === 0) throw thrown;
  };

  it('on a claim filed: fails the batch with its error, once every claim has its result', async () => {
    const store = memoryStore();
    const { error, results } = await runAll(keys(3), { journal: store, onProgress: throwing });
    expect(error).toBe(thrown);
    expect(posts).toEqual(['K1']);
    expect(results.map((r) => [r.key, r.state, r.note])).toEqual([
      ['K1', 'filed', 'sent'],
      ['K2', 'not_sent', 'aborted'],
      ['K3', 'not_sent', 'aborted'],
    ]);
  });

  it('on a claim another run filed meanwhile (a shared store): the same', async () => {
    const store = memoryStore({
      shared: true,
      claim: async (record) => ({ taken: false, latest: { ...record, state: 'filed', incidentId: 'INC-1' } }),
    });
    const { error, results } = await runAll(keys(3), { journal: store, onProgress: throwing });
    expect(error).toBe(thrown);
    expect(results.map((r) => [r.key, r.note])).toEqual([
      ['K1', 'already_filed'],
      ['K2', 'aborted'],
      ['K3', 'aborted'],
    ]);
  });

  it('on a claim the journal already has filed: the same, nothing sent', async () => {
    const earlier: JournalRecord = { ...sendingOf('K1'), state: 'filed', incidentId: 'INC-1' };
    const store = memoryStore({
      async *load() {
        yield earlier;
      },
    });
    const { error, results } = await runAll(keys(3), { journal: store, onProgress: throwing });
    expect(error).toBe(thrown);
    expect(posts).toEqual([]);
    expect(results.map((r) => [r.key, r.note])).toEqual([
      ['K1', 'already_filed'],
      ['K2', 'aborted'],
      ['K3', 'aborted'],
    ]);
  });
});

describe('a journal store that does not answer after a stop', () => {
  const never = new Promise<never>(() => {});
  beforeEach(() => {
    // Real timers run the grace: shortened, the mechanism is the same.
    storeGrace.ms = 20;
  });

  it('a sending record given up: the claim not sent, listed as unrecorded not_sent; the store is not waited for again', async () => {
    const controller = new AbortController();
    let closes = 0;
    const store = memoryStore({
      claim: () => {
        controller.abort();
        return never;
      },
      close: () => {
        closes++;
        return never;
      },
    });
    const { results, error } = await runAll(keys(2), { journal: store, signal: controller.signal });
    expect(posts).toEqual([]);
    expect(closes).toBe(1);
    expect(error).toBeInstanceOf(BatchStoppedError);
    expect(error).toMatchObject({
      reason: 'journal_unresponsive',
      message: 'The journal store did not answer within 0.02 s of the stop; the run ended with what it knew',
      unrecorded: [{ key: 'K1', state: 'not_sent' }],
    });
    expect((error as Error).cause).toBeInstanceOf(StoreGaveNoAnswer);
    expect(results[0]).toMatchObject({ key: 'K1', state: 'not_sent', note: 'stopped' });
    expect(results[0]?.error).toMatch(/^not sent: its sending record could not be written \(/);
    expect(results[1]).toMatchObject({ key: 'K2', state: 'not_sent', note: 'stopped' });
  });

  it('a filed record given up: the claim filed, listed with its incidentId', async () => {
    const controller = new AbortController();
    reply = (key) => {
      controller.abort();
      return filed(key);
    };
    const store = memoryStore({ append: () => never });
    const { results, error } = await runAll(keys(2), { journal: store, signal: controller.signal });
    expect(posts).toEqual(['K1']);
    expect(error).toMatchObject({
      reason: 'journal_unresponsive',
      unrecorded: [{ key: 'K1', state: 'filed', incidentId: 'INC-K1', requestId: 'req-K1' }],
    });
    expect(results[0]).toMatchObject({ key: 'K1', state: 'filed', incidentId: 'INC-K1' });
    expect(results[1]).toMatchObject({ key: 'K2', state: 'not_sent', note: 'stopped' });
  });
});

describe('{ file } attachments, uploaded before the sending record', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'batch-run-'));
    mkdirSync(join(dir, 'root', 'photos'), { recursive: true });
    writeFileSync(join(dir, 'root', 'photos', 'photo.jpg'), 'jpeg bytes');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const withPhoto = (key: string, path = join(dir, 'root', 'photos', 'photo.jpg')) =>
    claimLine(key, { attachments: [{ file: path, description: 'photo' }] });

  it('uploaded, then sent with the attachment ids in place of the files', async () => {
    uploadReply = () => ({
      status: 201,
      body: [{ filename: 'photo.jpg', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b00' }],
    });
    const store = memoryStore();
    const { results } = await runAll([withPhoto('K1')], { journal: store });
    expect(results[0]).toMatchObject({ state: 'filed', note: 'sent' });
    expect(events).toEqual(['upload', 'claim K1', 'POST K1', 'append K1 filed']);
    expect(bodies[0]?.attachments).toEqual([
      { attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b00', description: 'photo' },
    ]);
  });

  it('an upload that fails: not_sent (upload_failed), its record written, no sending record, the batch goes on', async () => {
    const store = memoryStore();
    const { results, error } = await runAll([withPhoto('K1'), 'K2'], { journal: store });
    expect(error).toBeUndefined();
    expect(posts).toEqual(['K2']);
    const why = results[0]?.error as string;
    expect(why).toMatch(
      /^upload failed: The incident was not sent: uploading its \{ file \} attachments failed \(.*bad file.*\)$/,
    );
    expect(results[0]).toStrictEqual({
      key: 'K1',
      line: 1,
      state: 'not_sent',
      note: 'upload_failed',
      error: why,
    });
    expect(store.written[0]).toStrictEqual({
      key: 'K1',
      bodyHash: bodyHash(withPhoto('K1').incident),
      at: AT,
      state: 'not_sent',
      error: why,
    });
  });

  it('an upload that fails, whose record cannot be written: the batch stops; nothing to list, as nothing was sent', async () => {
    const store = memoryStore({ append: () => Promise.reject(new Error('EFBIG')) });
    const { results, error } = await runAll([withPhoto('K1'), 'K2'], { journal: store });
    expect(error).toMatchObject({ reason: 'journal_failed', unrecorded: [] });
    expect(results[0]?.error).toMatch(/^upload failed: [^;]*$/);
    expect(posts).toEqual([]);
  });

  it('a claim with files waiting out a pause when the batch is stopped: not uploaded, not sent', async () => {
    const controller = new AbortController();
    clock.onSleep = () => controller.abort();
    reply = () => ({ status: 429, body: {}, headers: { 'retry-after-ms': '1000' } });
    const store = memoryStore();
    const { results } = await runAll(['K1', withPhoto('K2')], {
      journal: store,
      maxRetries: 0,
      signal: controller.signal,
    });
    expect(events).not.toContain('upload');
    expect(results[1]).toStrictEqual({
      key: 'K2',
      line: 2,
      state: 'not_sent',
      note: 'aborted',
      error: 'not sent: the batch was stopped',
    });
    expect(store.written.map((r) => r.key)).toEqual(['K1', 'K1']);
  });

  it('files beside attachment ids: the files uploaded before the sending record, the ids kept', async () => {
    uploadReply = () => ({
      status: 201,
      body: [{ filename: 'photo.jpg', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b00' }],
    });
    const kept = { attachmentId: '9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d' };
    const line = claimLine('K1', { attachments: [kept, { file: join(dir, 'root', 'photos', 'photo.jpg') }] });
    await runAll([line]);
    expect(events).toEqual(['upload', 'claim K1', 'POST K1', 'append K1 filed']);
    expect(bodies[0]?.attachments).toEqual([kept, { attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b00' }]);
  });

  it('without a files root, a { path } reached through a symlink is uploaded as given', async () => {
    symlinkSync(join(dir, 'root'), join(dir, 'link'));
    const line = claimLine('K1', {
      attachments: [{ file: { path: join(dir, 'link', 'photos', 'photo.jpg') } }],
    });
    const { results } = await runAll([line]);
    expect(events[0]).toBe('upload');
    expect(results[0]?.error).toContain('bad file');
  });

  describe('with a files root', () => {
    it('an attachment id beside a file: the file checked again, the id left alone', async () => {
      const kept = { attachmentId: '9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d' };
      const line = claimLine('K1', { attachments: [kept, { file: 'photos/photo.jpg' }] });
      const { results } = await runAll([line], { filesRoot: join(dir, 'root') });
      expect(events[0]).toBe('upload');
      expect(results[0]?.error).toContain('bad file');
    });

    it('a file checked, then uploaded from where it was checked', async () => {
      const store = memoryStore();
      const { results } = await runAll([withPhoto('K1', 'photos/photo.jpg')], {
        journal: store,
        filesRoot: join(dir, 'root'),
      });
      expect(events).toEqual(['upload', 'append K1 not_sent']);
      expect(results[0]).toMatchObject({ note: 'upload_failed' });
      expect(results[0]?.error).toContain('bad file');
    });

    it('a folder swapped for a symlink after the check: not uploaded, and says why', async () => {
      mkdirSync(join(dir, 'elsewhere'));
      writeFileSync(join(dir, 'elsewhere', 'photo.jpg'), 'secret');
      const store = memoryStore({
        // Opened after the lines were checked: the folder is swapped then.
        open: async () => {
          renameSync(join(dir, 'root', 'photos'), join(dir, 'root', 'photos-old'));
          symlinkSync(join(dir, 'elsewhere'), join(dir, 'root', 'photos'));
        },
      });
      const { results } = await runAll([withPhoto('K1', 'photos/photo.jpg')], {
        journal: store,
        filesRoot: join(dir, 'root'),
      });
      expect(events).not.toContain('upload');
      expect(results[0]).toStrictEqual({
        key: 'K1',
        line: 1,
        state: 'not_sent',
        note: 'upload_failed',
        error: `upload failed: "${join(dir, 'root', 'photos', 'photo.jpg')}" changed since it was checked (it now leads to another file); not uploaded`,
      });
    });
  });
});

describe('the answers that tell a blip from an API out of reach', () => {
  it('answers of other claims between its first failure and its last, whatever their kind, are counted as answers', async () => {
    // K1 fails to connect; before its last attempt K2 is refused (422) and K3 filed.
    const k1Failed = deferred();
    const othersAnswered = deferred();
    let answered = 0;
    reply = async (key, n) => {
      if (key === 'K1') {
        if (n === 0) k1Failed.resolve();
        else await othersAnswered.promise;
        return 'refused';
      }
      await k1Failed.promise;
      if (++answered === 2) setImmediate(() => othersAnswered.resolve());
      return key === 'K2' ? { status: 422, body: { message: 'bad' } } : filed(key);
    };
    const { results, error } = await runAll(keys(3), { concurrency: 3, maxRetries: 1 });
    expect(error).toBeUndefined();
    expect(results.map((r) => [r.key, r.state]).sort()).toEqual([
      ['K1', 'not_sent'],
      ['K2', 'rejected'],
      ['K3', 'filed'],
    ]);
  });

  it('counted from its first failure to connect, not from an earlier answer of its own (a 429)', async () => {
    // K1: a 429, then (K2 filed meanwhile) two connections refused with no answer between them.
    const k1Waiting = deferred();
    const k2Filed = deferred();
    clock.onSleep = async (ms) => {
      if (ms !== 100) return;
      k1Waiting.resolve();
      await k2Filed.promise;
    };
    reply = async (key, n) => {
      if (key === 'K2') {
        await k1Waiting.promise;
        return filed(key);
      }
      return n === 0 ? { status: 429, body: {}, headers: { 'retry-after-ms': '100' } } : 'refused';
    };
    const store = memoryStore();
    const append = store.append.bind(store);
    store.append = async (record) => {
      await append(record);
      if (record.key === 'K2') k2Filed.resolve();
    };
    const { error } = await runAll(keys(2), { journal: store, concurrency: 2, maxRetries: 2 });
    expect(error).toMatchObject({ reason: 'unreachable' });
    expect((error as Error).message).toMatch(
      /^The API could not be reached: 3 attempt\(s\) to send key "K1"/,
    );
  });
});

describe('what the call policy is told of a claim before its first attempt', () => {
  it('a kept-alive connection found dead: resent after the back-off (the client already made its fresh resend)', async () => {
    const sent: string[] = [];
    const dead = {
      incidents: {
        create: (incident: { description: string }) => ({
          withResponse: () => {
            sent.push(incident.description);
            if (sent.length > 1)
              return Promise.resolve({ data: { incidentId: 'INC-1' }, requestId: undefined });
            return Promise.reject(
              recordAttempt(new ClaimsConnectionError('socket hang up', { outcome: 'not_sent' }), {
                kind: 'failure',
                sent: 'dead_connection',
              }),
            );
          },
        }),
      },
    } as unknown as ClaimsClient;
    const { results } = await runAll(['K1'], { client: dead });
    expect(sent).toEqual(['K1', 'K1']);
    expect(clock.slept).toEqual([500]);
    expect(results[0]).toMatchObject({ state: 'filed', incidentId: 'INC-1' });
  });
});

describe('the run and its caller', () => {
  it('without onProgress', async () => {
    posts = [];
    const results: ClaimResult[] = [];
    for await (const r of fileClaims(client(), [claimLine('K1')], { journal: memoryStore() }))
      results.push(r);
    expect(results.map((r) => r.state)).toEqual(['filed']);
  });

  it('a caller who stops reading: no claim is taken after it stopped', async () => {
    const store = memoryStore();
    posts = [];
    for await (const r of fileClaims(
      client(),
      keys(3).map((k) => claimLine(k)),
      { journal: store, concurrency: 1 },
    )) {
      expect(r.key).toBe('K1');
      break;
    }
    // K2 was taken while K1's result was being written; K3 never was.
    expect(posts).toEqual(['K1', 'K2']);
    expect(store.written.filter((r) => r.key === 'K3')).toEqual([]);
  });

  it('after a run to its end, a close slower than the grace is waited for', async () => {
    storeGrace.ms = 5;
    let closed = false;
    const store = memoryStore({
      close: () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            closed = true;
            resolve();
          }, 30),
        ),
    });
    const { error } = await runAll(keys(2), { journal: store });
    expect(error).toBeUndefined();
    expect(closed).toBe(true);
  });

  it('after an abort, no timer of the grace is left running', async () => {
    // The grace's timers told apart by their length; each one set must be cleared by the end.
    storeGrace.ms = 12_345;
    const armed = new Set<unknown>();
    const { setTimeout: set, clearTimeout: clear } = globalThis;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((handler: () => void, ms?: number) => {
      const timer = set(handler, ms);
      if (ms === 12_345) armed.add(timer);
      return timer;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation((timer) => {
      armed.delete(timer);
      clear(timer);
    });
    const controller = new AbortController();
    reply = (key) => {
      controller.abort();
      return filed(key);
    };
    const { results } = await runAll(keys(2), { signal: controller.signal });
    expect(results.map((r) => r.state)).toEqual(['filed', 'not_sent']);
    expect(armed.size).toBe(0);
  });
});

describe('the grace after a stop', () => {
  beforeEach(() => {
    storeGrace.ms = 20;
  });

  it('a store call made after the grace from the stop has passed gets a grace of its own', async () => {
    const controller = new AbortController();
    reply = async (key) => {
      controller.abort();
      // Answered after the grace from the stop: K1's filed record is written after it.
      await new Promise((resolve) => setTimeout(resolve, 40));
      return filed(key);
    };
    const store = memoryStore();
    const { results, error } = await runAll(keys(2), { journal: store, signal: controller.signal });
    expect(error).toBeUndefined();
    expect(results[0]).toStrictEqual({
      key: 'K1',
      line: 1,
      state: 'filed',
      note: 'sent',
      incidentId: 'INC-K1',
      requestId: 'req-K1',
    });
    expect(store.written.map((r) => r.state)).toEqual(['sending', 'filed']);
  });

  it('a store given up is not waited for again: its close is not awaited', async () => {
    const controller = new AbortController();
    let closed = false;
    const store = memoryStore({
      claim: () => {
        controller.abort();
        return new Promise<never>(() => {});
      },
      close: () =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            closed = true;
            resolve();
          }),
        ),
    });
    const { error } = await runAll(keys(1), { journal: store, signal: controller.signal });
    expect(error).toMatchObject({ reason: 'journal_unresponsive' });
    expect(closed).toBe(false);
  });
});

describe('a claim waiting to be taken when the batch stops itself', () => {
  it('is not_sent (stopped), with the reason, and nothing written for it', async () => {
    // K1 is refused (401) once K3, taken after K2 was filed, waits out a back-off set meanwhile.
    const k3Waiting = deferred();
    const k1Recorded = deferred();
    let until = 0;
    clock.onSleep = async () => {
      k3Waiting.resolve();
      await k1Recorded.promise;
    };
    reply = async (key) => {
      if (key !== 'K1') return filed(key);
      until = Date.now() + 2_000;
      await k3Waiting.promise;
      return { status: 401, body: { message: 'expired' } };
    };
    const store = memoryStore({ pausedUntil: () => until });
    const append = store.append.bind(store);
    store.append = async (record) => {
      await append(record);
      if (record.key === 'K1') k1Recorded.resolve();
    };
    const { results, error } = await runAll(keys(3), { journal: store, concurrency: 2 });
    expect(error).toMatchObject({ reason: 'caller_refused' });
    expect(results.find((r) => r.key === 'K3')).toStrictEqual({
      key: 'K3',
      line: 3,
      state: 'not_sent',
      note: 'stopped',
      error: 'not sent: the batch stopped (caller_refused)',
    });
    expect(store.written.filter((r) => r.key === 'K3')).toEqual([]);
  });
});

describe('an incident that cannot be sent as JSON (a BigInt field, a cycle)', () => {
  it('is a problem of its line, found before anything is written or sent', async () => {
    const store = memoryStore();
    const cyclic: Record<string, unknown> = { description: 'x' };
    cyclic.self = cyclic;
    const error = await (async () => {
      for await (const _ of fileClaims(
        client(),
        [claimLine('K1', { count: 10n }), claimLine('K2', { extra: cyclic })],
        { journal: store },
      )) {
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchInputError);
    expect((error as BatchInputError).problems).toEqual([
      {
        line: 1,
        key: 'K1',
        path: 'incident',
        message: 'cannot be sent as JSON: Do not know how to serialize a BigInt',
      },
      {
        line: 2,
        key: 'K2',
        path: 'incident',
        message: expect.stringMatching(/^cannot be sent as JSON: Converting circular structure to JSON/),
      },
    ]);
    expect(store.written).toEqual([]);
  });
});

describe("a slot's last final record, before its next claim is sent", () => {
  it('holds the next POST until that record is durable, so a crash leaves at most two keys sending per slot', async () => {
    const k1Filed = deferred();
    const store = memoryStore({
      append: async (record) => {
        events.push(`append ${record.key} ${record.state}`);
        if (record.key === 'K1') await k1Filed.promise;
        events.push(`durable ${record.key}`);
      },
    });
    // K2's sending record is durable with K1's filed record still being written: K2 waits for it.
    reply = (key) => {
      if (key === 'K2') expect(events).toContain('durable K1');
      return filed(key);
    };
    const run = runAll(keys(2), { journal: store });
    await vi.waitFor(() => expect(events).toContain('claim K2'));
    expect(events.filter((e) => e.startsWith('POST'))).toEqual(['POST K1']);
    k1Filed.resolve();
    const { results, error } = await run;
    expect(error).toBeUndefined();
    expect(results.map((r) => [r.key, r.state])).toEqual([
      ['K1', 'filed'],
      ['K2', 'filed'],
    ]);
    expect(events).toEqual([
      'claim K1',
      'POST K1',
      'append K1 filed',
      'claim K2',
      'durable K1',
      'POST K2',
      'append K2 filed',
      'durable K2',
    ]);
  });
});
