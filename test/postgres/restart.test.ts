// The database restarted mid-batch (every connection dropped): the run stops taking keys, no
// claim leaves without a durable `sending` row, and a re-run finishes the batch.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchStoppedError } from '../../src/batch/errors.js';
import { fileClaims } from '../../src/batch/file-claims.js';
import { PostgresJournalStore } from '../../src/batch/postgres/index.js';
import type { ClaimResult } from '../../src/batch/result.js';
import { ClaimsClient } from '../../src/platform/node.js';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from '../batch/claims-server.js';
import { until } from '../cli/run-claims.js';
import { usePostgres } from './use-postgres.js';

const db = await usePostgres();
let server: ClaimsServer;
beforeEach(async () => {
  server = await startClaimsServer();
});
afterEach(() => server.close());

const keys = Array.from({ length: 300 }, (_, i) => `R${String(i + 1).padStart(3, '0')}`);

async function run(table: string): Promise<{ results: ClaimResult[]; stopped: unknown }> {
  const client = new ClaimsClient({ baseUrl: server.url, accessToken: 't', maxRetries: 0 });
  const journal = new PostgresJournalStore({ connectionString: db?.url, table, leaseMs: 300 });
  const results: ClaimResult[] = [];
  try {
    for await (const r of fileClaims(
      client,
      keys.map((k) => claimLine(k)),
      { journal, concurrency: 8 },
    ))
      results.push(r);
    return { results, stopped: undefined };
  } catch (error) {
    return { results, stopped: error };
  }
}

describe.skipIf(!db)('the database restarted mid-batch', () => {
  it('stops taking keys (journal_failed), sends nothing without a durable sending row; a re-run finishes', async () => {
    const table = `restart_${process.pid}`;
    server.answer = (key) => ({ ...defaultAnswer(key), delayMs: 20 });
    const first = run(table);
    await until(() => server.received.length >= 60, 60_000);
    await db?.stop();
    const { results, stopped } = await first;
    const sentWhileDown = server.received.length;
    await db?.start();
    expect(stopped).toBeInstanceOf(BatchStoppedError);
    expect((stopped as BatchStoppedError).reason).toBe('journal_failed');
    expect((stopped as BatchStoppedError).message).toMatch(
      /^The journal could not be written: The PostgreSQL journal could not be written: /,
    );
    expect(String((stopped as Error).message)).not.toContain(db?.password);
    expect(results).toHaveLength(keys.length);
    expect(results.filter((r) => r.state === 'not_sent').length).toBeGreaterThan(0);

    // Every POST that left had its `sending` row committed first: each key the server got has a row.
    const admin = new pg.Client(db?.url);
    await admin.connect();
    const { rows } = await admin.query<{ key: string; state: string }>(`SELECT key, state FROM "${table}"`);
    await admin.end();
    const inJournal = new Map(rows.map((r) => [r.key, r.state]));
    expect(server.received.filter((k) => !inJournal.has(k))).toEqual([]);
    const leftSending = rows.filter((r) => r.state === 'sending').map((r) => r.key);

    // The re-run, once the stopped run's leases ran out.
    await new Promise((resolve) => setTimeout(resolve, 400));
    server.answer = defaultAnswer;
    const again = await run(table);
    expect(again.stopped).toBeUndefined();
    const seen = new Set<string>();
    expect(server.received.filter((k) => seen.has(k) || !seen.add(k))).toEqual([]);
    expect(again.results).toHaveLength(keys.length);
    const unknown = again.results.filter((r) => r.state === 'unknown');
    expect(unknown.map((r) => r.key).sort()).toEqual(leftSending.sort());
    expect(unknown.every((r) => r.note === 'needs_review')).toBe(true);
    expect(again.results.filter((r) => r.state !== 'unknown').every((r) => r.state === 'filed')).toBe(true);
    expect(server.received.length).toBeGreaterThan(sentWhileDown);
  }, 120_000);
});
