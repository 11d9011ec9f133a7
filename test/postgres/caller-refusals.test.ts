// Issue #20 point 4, on both stores: an answer that judges the caller or the route (401, 403,
// 404, 405, a 429 after the last retry) leaves a key sendable (`not_sent`, note
// `caller_refused`); a 401 that persists after the token provider was asked again, or a 403,
// stops the batch at once; only answers that judge the claim (400, 409, 413, 422) make it
// `rejected` until its body changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decide } from '../../src/batch/decide.js';
import { BatchStoppedError } from '../../src/batch/errors.js';
import { fileClaims } from '../../src/batch/file-claims.js';
import { PostgresJournalStore } from '../../src/batch/postgres/index.js';
import type { ClaimResult } from '../../src/batch/result.js';
import type { JournalStore } from '../../src/batch/store.js';
import { ClaimsClient } from '../../src/platform/node.js';
import {
  type Answer,
  type ClaimsServer,
  claimLine,
  defaultAnswer,
  startClaimsServer,
} from '../batch/claims-server.js';
import { usePostgres } from './use-postgres.js';

const db = await usePostgres();
const dir = mkdtempSync(join(tmpdir(), 'caller-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let server: ClaimsServer;
beforeEach(async () => {
  server = await startClaimsServer();
});
afterEach(() => server.close());

let journals = 0;
const stores: [string, (() => string | JournalStore) | undefined][] = [
  ['the file store', () => join(dir, `j${++journals}.journal`)],
  [
    'the PostgreSQL store',
    db
      ? () =>
          new PostgresJournalStore({
            connectionString: db.url,
            table: `refusals_${process.pid}_${++journals}`,
          })
      : undefined,
  ],
];

const keys = Array.from({ length: 12 }, (_, i) => `C${String(i + 1).padStart(2, '0')}`);

async function run(
  journal: string | JournalStore,
  accessToken: ConstructorParameters<typeof ClaimsClient>[0]['accessToken'] = 'tok',
  lines = keys.map((k) => claimLine(k)),
): Promise<{ results: ClaimResult[]; stopped: BatchStoppedError | undefined }> {
  const client = new ClaimsClient({ baseUrl: server.url, accessToken, maxRetries: 0 });
  const results: ClaimResult[] = [];
  try {
    for await (const r of fileClaims(client, lines, { journal, concurrency: 2, maxRetries: 1 }))
      results.push(r);
  } catch (error) {
    if (!(error instanceof BatchStoppedError)) throw error;
    return { results, stopped: error };
  }
  return { results, stopped: undefined };
}
const byKey = (results: ClaimResult[]) => new Map(results.map((r) => [r.key, r]));

describe('refusals of the caller or the route leave a key sendable', () => {
  for (const [name, makeJournal] of stores) {
    describe.skipIf(!makeJournal)(name, () => {
      const reopen = (journal: string | JournalStore) =>
        typeof journal === 'string'
          ? journal
          : new PostgresJournalStore({
              connectionString: db?.url,
              table: (journal as PostgresJournalStore).table,
            });

      it('an expired token mid-batch (401 after the provider was asked again): the batch stops; a re-run with a good one files every key once', async () => {
        const journal = (makeJournal as () => string | JournalStore)();
        let expired = false;
        let tokenRequests = 0;
        const provider = async () => {
          tokenRequests++;
          return expired ? 'expired' : 'good';
        };
        server.answer = (key, n): Answer => {
          if (n === 4) expired = true;
          return expired ? { status: 401, body: { message: 'token expired' } } : defaultAnswer(key);
        };
        const first = await run(journal, provider);
        expect(first.stopped?.reason).toBe('caller_refused');
        expect(first.stopped?.message).toMatch(
          /^The API refused the caller \(401, after the token was asked for again\): .*fix the token or its permissions and run the batch again/,
        );
        expect(first.results).toHaveLength(keys.length);
        expect(first.results.some((r) => r.state === 'rejected')).toBe(false);
        const refused = first.results.filter((r) => r.note === 'caller_refused');
        expect(refused.length).toBeGreaterThan(0);
        for (const r of refused) expect(r).toMatchObject({ state: 'not_sent', status: 401 });
        expect(first.results.filter((r) => r.state === 'filed').length).toBeLessThanOrEqual(5);
        expect(first.results.filter((r) => r.note === 'stopped').length).toBeGreaterThan(0);
        // The SDK asked the provider again (forceRefresh) before the 401 counted.
        expect(tokenRequests).toBeGreaterThan(1);
        const filedFirst = server.received.filter((_, n) => n < 4);

        expired = false;
        server.answer = defaultAnswer;
        const sentBefore = server.received.length;
        const again = await run(reopen(journal), async () => 'good');
        expect(again.stopped).toBeUndefined();
        expect(again.results.every((r) => r.state === 'filed')).toBe(true);
        // Every key filed exactly once: the four filed before the expiry are not sent again.
        const filedNow = server.received.slice(sentBefore);
        for (const key of filedFirst) expect(filedNow).not.toContain(key);
        expect(new Set([...filedFirst, ...filedNow]).size).toBe(keys.length);
        expect(filedFirst.length + filedNow.length).toBe(keys.length);
      });

      it('403: stops at once, the key not_sent; 404, 405 and a 429 after the last retry: not_sent, the batch goes on; 422: rejected until its body changes', async () => {
        const journal = (makeJournal as () => string | JournalStore)();
        const status: Record<string, number> = {
          C01: 404,
          C02: 405,
          C03: 429,
          C04: 422,
          C05: 409,
          C06: 400,
          C07: 413,
        };
        server.answer = (key) =>
          status[key]
            ? { status: status[key] as number, body: { message: `no ${key}` } }
            : defaultAnswer(key);
        const first = await run(journal);
        expect(first.stopped).toBeUndefined();
        const got = byKey(first.results);
        for (const key of ['C01', 'C02', 'C03']) {
          expect(got.get(key)).toMatchObject({
            state: 'not_sent',
            note: 'caller_refused',
            status: status[key],
          });
        }
        for (const key of ['C04', 'C05', 'C06', 'C07']) {
          expect(got.get(key)).toMatchObject({ state: 'rejected', note: 'refused', status: status[key] });
        }
        // The re-run: the caller-refused keys are sent again; the rejected ones are not.
        server.answer = defaultAnswer;
        const before = server.received.length;
        const second = await run(reopen(journal));
        expect(second.stopped).toBeUndefined();
        const resent = server.received.slice(before);
        expect([...resent].sort()).toEqual(['C01', 'C02', 'C03']);
        const again = byKey(second.results);
        for (const key of ['C01', 'C02', 'C03'])
          expect(again.get(key)).toMatchObject({ state: 'filed', note: 'sent' });
        expect(again.get('C04')).toMatchObject({
          state: 'rejected',
          note: 'unchanged_rejection',
          status: 422,
        });
        // A 403 stops the batch at once. The other keys answer late, so the 403 arrives first:
        // every D key it finds unsent is reported stopped, and none of those is sent.
        server.answer = (key) =>
          key === 'C13'
            ? { status: 403, body: { message: 'forbidden' } }
            : { ...defaultAnswer(key), delayMs: 50 };
        const beforeStop = server.received.length;
        const dKeys = Array.from({ length: 20 }, (_, i) => `D${i}`);
        const refused = await run(
          reopen(journal),
          'tok',
          ['C13', ...dKeys].map((k) => claimLine(k)),
        );
        const sentNow = server.received.slice(beforeStop);
        expect(sentNow).toContain('C13');
        expect(byKey(refused.results).get('C13')).toMatchObject({
          state: 'not_sent',
          note: 'caller_refused',
          status: 403,
        });
        const stopped = refused.results.filter((r) => r.note === 'stopped').map((r) => r.key);
        expect(stopped.length).toBeGreaterThan(0);
        expect(stopped.filter((k) => sentNow.includes(k))).toEqual([]);
        expect(stopped.length + sentNow.filter((k) => k.startsWith('D')).length).toBe(20);
        expect(refused.stopped?.reason).toBe('caller_refused');
        expect(refused.stopped?.message).toMatch(/^The API refused the caller \(403\): /);
        // A changed body is sent again.
        const third = await run(reopen(journal), 'tok', [claimLine('C04', { description: 'C04 fixed' })]);
        expect(third.results[0]).toMatchObject({ state: 'filed', note: 'sent' });
      });
    });
  }

  it('a key an earlier version recorded rejected for a 401/403/404/405/429 is sent again, with the same body', () => {
    for (const status of [401, 403, 404, 405, 429]) {
      expect(decide({ key: 'K', state: 'rejected', bodyHash: 'h', at: 'x', status }, 'h')).toEqual({
        send: true,
      });
    }
    for (const status of [400, 409, 413, 422, undefined]) {
      expect(
        decide({ key: 'K', state: 'rejected', bodyHash: 'h', at: 'x', ...(status ? { status } : {}) }, 'h'),
      ).toMatchObject({
        send: false,
        result: { state: 'rejected', note: 'unchanged_rejection' },
      });
    }
  });
});
