import { describe, expect, it } from 'vitest';
import { backoffDelay, isNotConnected, parseRetryAfter, shouldRetry } from '../src/retry.js';

describe('shouldRetry', () => {
  const network = (notConnected: boolean) => ({ kind: 'network', notConnected }) as const;
  const status = (s: number) => ({ kind: 'status', status: s }) as const;

  it.each(['GET', 'PATCH'])('%s repeats network failures and 408/429/500/502/503/504 only', (method) => {
    expect(shouldRetry(method, network(true))).toBe(true);
    expect(shouldRetry(method, network(false))).toBe(true);
    for (const s of [408, 429, 500, 502, 503, 504]) expect(shouldRetry(method, status(s))).toBe(true);
    for (const s of [400, 401, 403, 404, 409, 422, 501, 505])
      expect(shouldRetry(method, status(s))).toBe(false);
  });

  it('POST repeats only when the server provably did not process it', () => {
    expect(shouldRetry('POST', network(true))).toBe(true);
    expect(shouldRetry('POST', network(false))).toBe(false);
    expect(shouldRetry('POST', status(429))).toBe(true);
    for (const s of [408, 500, 502, 503, 504]) expect(shouldRetry('POST', status(s))).toBe(false);
  });
});

describe('isNotConnected', () => {
  it('finds a never-connected code on the error or its causes', () => {
    expect(isNotConnected({ code: 'ECONNREFUSED' })).toBe(true);
    expect(isNotConnected(new Error('fetch failed', { cause: { code: 'ENOTFOUND' } }))).toBe(true);
    expect(isNotConnected({ code: 'UND_ERR_CONNECT_TIMEOUT' })).toBe(true);
  });

  it('is false for failures after the request may have gone out', () => {
    for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'EPIPE']) {
      expect(isNotConnected({ code })).toBe(false);
    }
    expect(isNotConnected(undefined)).toBe(false);
    expect(isNotConnected(new Error('x'))).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');

  it('reads seconds, fractions and retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after': '3' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(parseRetryAfter({ 'retry-after': '0' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
  });

  it('treats retry-after-ms 0 as zero, not as absent', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '0', 'retry-after': '9' }, now)).toBe(0);
  });

  it('reads an HTTP date, and a past date as no wait', () => {
    expect(parseRetryAfter({ 'retry-after': 'Sat, 21 Nov 2026 12:00:10 GMT' }, now)).toBe(10_000);
    expect(parseRetryAfter({ 'retry-after': 'Sat, 21 Nov 2026 11:00:00 GMT' }, now)).toBe(0);
  });

  it('returns undefined for absent or malformed values, so default backoff applies', () => {
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after-ms': '-5' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-1' }, now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('doubles from 0.5 s and caps at 8 s, with up to 25% jitter taken off', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => backoffDelay(n, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(backoffDelay(0, () => 1)).toBe(375);
    expect(backoffDelay(4, () => 0.5)).toBe(7000);
  });
});
