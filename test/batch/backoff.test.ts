/**
 * Told to wait (a 429, or a 503 with Retry-After), the whole batch waits: no claim is sent
 * until the wait is over, through the file store's back-off as through a shared one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileClaims } from '../../src/batch/file-claims.js';
import { FileJournalStore } from '../../src/batch/file-store.js';
import type { ClaimResult } from '../../src/batch/result.js';
import { ClaimsClient } from '../../src/index.js';
import {
  type Answer,
  type ClaimsServer,
  claimLine,
  defaultAnswer,
  startClaimsServer,
} from './claims-server.js';

let server: ClaimsServer;
let dir: string;
beforeEach(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'batch-backoff-'));
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const WAIT_MS = 600;
const CONCURRENCY = 3;
const keys = Array.from({ length: 60 }, (_, i) => `R${String(i + 1).padStart(2, '0')}`);

describe('a wait the API asks for holds the whole batch', () => {
  it('a 503 with Retry-After (the claim itself unknown, not sent again): no claim is sent until the wait is over', async () => {
    let toldAt = 0;
    let settled: () => void = () => undefined;
    const told = new Promise<void>((resolve) => (settled = resolve));
    let seenAt = 0;
    server.answer = (key, n): Answer => {
      if (n === 0) {
        toldAt = Date.now();
        return {
          status: 503,
          body: { message: 'overloaded' },
          headers: { 'retry-after-ms': String(WAIT_MS) },
        };
      }
      // The answers of POSTs that arrive meanwhile wait until the 503 was taken in.
      return toldAt === 0 ? defaultAnswer(key) : { ...defaultAnswer(key), hold: told };
    };
    const store = new FileJournalStore(join(dir, 'j.journal'));
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', maxRetries: 0 });
    const results: ClaimResult[] = [];
    for await (const r of fileClaims(
      client,
      keys.map((k) => claimLine(k)),
      {
        journal: store,
        concurrency: CONCURRENCY,
        onProgress: (p) => {
          if (p.counts.unknown === 1 && seenAt === 0) {
            seenAt = Date.now();
            settled();
          }
        },
      },
    ))
      results.push(r);
    expect(results.filter((r) => r.state === 'unknown').map((r) => r.key)).toEqual([server.received[0]]);
    expect(results.filter((r) => r.state === 'filed')).toHaveLength(keys.length - 1);
    // Once the 503 was taken in, at most the claims already past their check were sent before the wait ended.
    const during = server.arrivals.filter((t) => t > seenAt && t < toldAt + WAIT_MS).length;
    expect(during).toBeLessThanOrEqual(CONCURRENCY);
    expect(server.arrivals.filter((t) => t >= toldAt + WAIT_MS).length).toBeGreaterThan(CONCURRENCY);
    // The store kept the back-off (in memory: one run uses a file journal).
    expect(store.pausedUntil()).toBeGreaterThanOrEqual(toldAt + WAIT_MS);
  });
});

describe('the call policy decides which claims are sent again', () => {
  /** A client whose every POST fails as `attempt` says, counting the attempts. */
  async function failingClient(attempt: import('../../src/call-policy.js').Attempt) {
    const { recordAttempt } = await import('../../src/call-policy.js');
    const { ClaimsConnectionError } = await import('../../src/errors.js');
    const posts: string[] = [];
    const client = {
      incidents: {
        create: (incident: { description: string }) => ({
          withResponse: () => {
            posts.push(incident.description);
            return Promise.reject(
              recordAttempt(new ClaimsConnectionError('write EPIPE', { outcome: 'not_sent' }), attempt),
            );
          },
        }),
      },
    } as unknown as ClaimsClient;
    return { client, posts };
  }

  it('a POST proven unwritten is not sent again in this run: not_sent, and the batch goes on', async () => {
    const { client, posts } = await failingClient({ kind: 'failure', sent: 'not_written' });
    const results: ClaimResult[] = [];
    for await (const r of fileClaims(
      client,
      ['A', 'B', 'C'].map((k) => claimLine(k)),
      {
        journal: join(dir, 'j.journal'),
        concurrency: 1,
        maxRetries: 3,
      },
    ))
      results.push(r);
    expect(posts).toEqual(['A', 'B', 'C']);
    expect(results.map((r) => [r.key, r.state, r.note])).toEqual([
      ['A', 'not_sent', 'sent'],
      ['B', 'not_sent', 'sent'],
      ['C', 'not_sent', 'sent'],
    ]);
  });

  it('a connection never opened is sent again up to maxRetries, then the batch stops as unreachable', async () => {
    const { client, posts } = await failingClient({ kind: 'failure', sent: 'not_connected' });
    const results: ClaimResult[] = [];
    let stopped: unknown;
    try {
      for await (const r of fileClaims(
        client,
        ['A', 'B'].map((k) => claimLine(k)),
        {
          journal: join(dir, 'j.journal'),
          concurrency: 1,
          maxRetries: 1,
        },
      ))
        results.push(r);
    } catch (error) {
      stopped = error;
    }
    expect(posts).toEqual(['A', 'A']);
    expect(stopped).toMatchObject({ reason: 'unreachable' });
    expect(results.map((r) => [r.key, r.state, r.note])).toEqual([
      ['A', 'not_sent', 'sent'],
      ['B', 'not_sent', 'stopped'],
    ]);
  });
});
