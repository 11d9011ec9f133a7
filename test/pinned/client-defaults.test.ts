/**
 * The documented defaults of `ClaimsClient` options, taken from what a call does when the
 * option is left out: `timeoutMs` 30 s, `deadlineMs` 10 minutes, `maxRetries` 2,
 * `metadataCacheTtlMs` 10 minutes. Fake timers (and a fake clock) stand for the minutes.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ClaimsClient,
  ClaimsConnectionError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
} from '../../src/index.js';

// The schemas are imported on the first call: done here, with real timers, so the fake ones
// below measure only the call.
beforeAll(async () => {
  const client = new ClaimsClient({
    baseUrl: 'http://127.0.0.1:9',
    accessToken: 'tok',
    fetch: async () => Response.json([]),
  });
  await client.subscriptions.list(1);
});
beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
  });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A fetch that never answers: it rejects only when the call aborts it. */
function silentFetch(calls: { n: number }) {
  return (_url: string, init: RequestInit): Promise<Response> => {
    calls.n++;
    return new Promise((_resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    });
  };
}

describe('defaults', () => {
  it('timeoutMs: an attempt without progress ends after 30 s', async () => {
    const calls = { n: 0 };
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      maxRetries: 0,
      fetch: silentFetch(calls),
    });
    let settled = false;
    const call = client.subscriptions.list(1).catch((e: unknown) => e);
    void call.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(29_900);
    expect(calls.n).toBe(1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    const error = await call;
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toContain('no progress for 30000 ms');
  });

  it('deadlineMs: a call ends after 10 minutes, whatever its attempts do', async () => {
    const calls = { n: 0 };
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      timeoutMs: 2 ** 31 - 1,
      maxRetries: 0,
      fetch: silentFetch(calls),
    });
    let settled = false;
    const call = client.subscriptions.list(1).catch((e: unknown) => e);
    void call.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(599_000);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    const error = await call;
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toContain(
      'Deadline passed: the call did not finish within deadlineMs (600000 ms)',
    );
  });

  it('maxRetries: a GET whose connection fails is tried 3 times in all', async () => {
    let calls = 0;
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      fetch: async () => {
        calls++;
        throw new TypeError('fetch failed');
      },
    });
    const call = client.subscriptions.list(1).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    const error = await call;
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(calls).toBe(3);
  });

  it('metadataCacheTtlMs: the form metadata is asked for again only after 10 minutes', async () => {
    const paths: string[] = [];
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      fetch: async (url) => {
        paths.push(new URL(url).pathname);
        return Response.json([]);
      },
    });
    const query = { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'GB' };
    await client.metadata.requiredFields(query);
    vi.advanceTimersByTime(599_000);
    await client.metadata.requiredFields(query);
    expect(paths).toEqual(['/metadata/incidents']);
    vi.advanceTimersByTime(2_000);
    await client.metadata.requiredFields(query);
    expect(paths).toEqual(['/metadata/incidents', '/metadata/incidents']);
  });
});

describe('default maxResponseBytes', () => {
  it('is 10 MiB: a JSON answer one byte longer is refused, one of exactly 10 MiB is read', async () => {
    vi.useRealTimers();
    const LIMIT = 10 * 1024 * 1024;
    const bodyOf = (bytes: number) => `{"note":"${'x'.repeat(bytes - '{"note":""}'.length)}"}`;
    let size = LIMIT;
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      fetch: async () =>
        new Response(bodyOf(size), { status: 201, headers: { 'content-type': 'application/json' } }),
    });
    const event = { eventType: 'Event Log Entry', category: 'Other', detail: 'd' };
    const read = await client.events.create('i-1', event);
    expect(read?.note).toHaveLength(LIMIT - '{"note":""}'.length);

    size = LIMIT + 1;
    const error = await client.events.create('i-1', event).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as ClaimsResponseValidationError).issues[0]?.message).toBe(
      `the body is larger than maxResponseBytes (${LIMIT} bytes); reading stopped there`,
    );
  });
});
