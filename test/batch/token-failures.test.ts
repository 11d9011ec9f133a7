/**
 * A token provider that gives no token: the batch stops at once when waiting cannot mend it
 * (the token endpoint refused the credentials, a provider of yours threw), and waits and tries
 * again when it can (the token endpoint out of reach), as for the API's own connections.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenRequestError, type TokenRequestFailure } from '../../src/auth/errors.js';
import { BatchStoppedError } from '../../src/batch/errors.js';
import { fileClaims } from '../../src/batch/file-claims.js';
import { Journal } from '../../src/batch/journal.js';
import type { ClaimResult } from '../../src/batch/result.js';
import { tokenProviderFailure } from '../../src/batch/send-claim.js';
import { ClaimsClient, ClaimsError } from '../../src/index.js';
import { type ClaimsServer, claimLine, startClaimsServer } from './claims-server.js';

let server: ClaimsServer;
let dir: string;
let journal: string;
beforeEach(async () => {
  server = await startClaimsServer();
  dir = mkdtempSync(join(tmpdir(), 'batch-token-'));
  journal = join(dir, 'claims.journal');
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const keys = (n: number) => Array.from({ length: n }, (_, i) => `K${String(i + 1).padStart(3, '0')}`);

async function runAll(
  accessToken: () => Promise<string>,
  n: number,
  options: { maxRetries?: number; concurrency?: number } = {},
): Promise<{ results: ClaimResult[]; error: unknown }> {
  const client = new ClaimsClient({ baseUrl: server.url, accessToken });
  const results: ClaimResult[] = [];
  try {
    for await (const r of fileClaims(
      client,
      keys(n).map((k) => claimLine(k)),
      { journal, concurrency: 1, ...options },
    )) {
      results.push(r);
    }
    return { results, error: undefined };
  } catch (error) {
    return { results, error };
  }
}

const endpointError = (failure: TokenRequestFailure, status?: number, error?: string) =>
  new TokenRequestError(`Token endpoint said no (${failure} ${status ?? ''})`, {
    failure,
    tokenUrl: 'https://auth.example/token',
    ...(status === undefined ? {} : { status }),
    ...(error === undefined ? {} : { error }),
  });

describe('a token provider that gives no token', () => {
  const lasting: [string, () => Promise<string>][] = [
    [
      'the token endpoint refused the credentials (invalid_client)',
      () => Promise.reject(endpointError('error_response', 401, 'invalid_client')),
    ],
    ['an answer that is no token', () => Promise.reject(endpointError('invalid_response', 200))],
    ['a provider of yours that threw', () => Promise.reject(new Error('vault sealed'))],
    ['a provider of yours that gave no token', () => Promise.resolve('')],
  ];
  for (const [what, accessToken] of lasting) {
    it(`${what}: the batch stops at once (caller_refused), nothing sent, every key sendable on a re-run`, async () => {
      let asked = 0;
      const { results, error } = await runAll(() => {
        asked++;
        return accessToken();
      }, 20);
      expect(error).toBeInstanceOf(BatchStoppedError);
      expect(error).toMatchObject({ reason: 'caller_refused', unrecorded: [] });
      expect((error as Error).message).toMatch(
        /^No claim can be sent: accessToken provider (failed|returned no token).*; fix the credentials or the token provider and run the batch again/,
      );
      // The first claim met it; no other was tried.
      expect(asked).toBe(1);
      expect(results).toHaveLength(20);
      expect(results[0]).toMatchObject({ key: 'K001', state: 'not_sent', note: 'caller_refused' });
      expect(results.slice(1).every((r) => r.state === 'not_sent' && r.note === 'stopped')).toBe(true);
      expect(server.received).toEqual([]);
      const open = await Journal.open(journal, { readOnly: true });
      expect([...open.records()].map((r) => r.state)).toEqual(['not_sent']);
      await open.close();
      // Fixed, the same batch files every key.
      const again = await runAll(async () => 'tok', 20);
      expect(again.error).toBeUndefined();
      expect(server.received.sort()).toEqual(keys(20));
    });
  }

  it('a token endpoint out of reach for a moment: waited for, then every claim filed', async () => {
    let failures = 1;
    const { results, error } = await runAll(
      async () => {
        if (failures-- > 0) throw endpointError('connection');
        return 'tok';
      },
      5,
      { maxRetries: 1 },
    );
    expect(error).toBeUndefined();
    expect(results.map((r) => r.state)).toEqual(['filed', 'filed', 'filed', 'filed', 'filed']);
    expect(server.received.sort()).toEqual(keys(5));
  });

  it('a token endpoint that never answers: the batch stops as unreachable after one claim spent its retries', async () => {
    let asked = 0;
    const { results, error } = await runAll(
      async () => {
        asked++;
        throw endpointError('error_response', 503);
      },
      10,
      { maxRetries: 0 },
    );
    expect(error).toMatchObject({ reason: 'unreachable' });
    expect((error as Error).message).toMatch(
      /^The token endpoint gave no token: 1 attempt\(s\) to send key "K001" got none \(accessToken provider failed: .*503.*\), and no claim got an answer from the API meanwhile$/,
    );
    expect(asked).toBe(1);
    expect(results[0]).toMatchObject({ state: 'not_sent', note: 'caller_refused' });
    expect(results.slice(1).every((r) => r.note === 'stopped')).toBe(true);
    expect(server.received).toEqual([]);
  });
});

describe('tokenProviderFailure: whether waiting can mend it', () => {
  /** A call's error as the transport makes it when its provider threw `cause`. */
  async function failureOf(cause: unknown): Promise<unknown> {
    const client = new ClaimsClient({
      baseUrl: server.url,
      accessToken: () => Promise.reject(cause),
      maxRetries: 0,
    });
    return client.incidents.create(claimLine('K').incident).catch((error: unknown) => error);
  }

  it('passing: no connection, a timeout, 408, 429 and 5xx from the token endpoint', async () => {
    for (const cause of [
      endpointError('connection'),
      endpointError('timeout'),
      endpointError('error_response', 408),
      endpointError('error_response', 429),
      endpointError('error_response', 500),
      endpointError('error_response', 503),
    ]) {
      expect(tokenProviderFailure(await failureOf(cause)), cause.message).toBe('passing');
    }
  });

  it('lasting: any other 4xx, an answer that is no token, an error not the SDK provider’s', async () => {
    for (const cause of [
      endpointError('error_response', 400, 'invalid_client'),
      endpointError('error_response', 401, 'invalid_client'),
      endpointError('error_response', 403),
      endpointError('error_response', 499),
      endpointError('error_response'),
      endpointError('invalid_response', 200),
      new Error('vault sealed'),
      'a string',
    ]) {
      expect(tokenProviderFailure(await failureOf(cause)), String(cause)).toBe('lasting');
    }
  });

  it('undefined for anything that is not a token provider failure, even with such a cause', () => {
    expect(
      tokenProviderFailure(new ClaimsError('x', { cause: endpointError('connection') })),
    ).toBeUndefined();
    expect(tokenProviderFailure(endpointError('connection'))).toBeUndefined();
    expect(tokenProviderFailure(undefined)).toBeUndefined();
    expect(tokenProviderFailure('accessToken provider failed')).toBeUndefined();
  });
});
