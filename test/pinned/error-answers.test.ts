/**
 * Error answers the SDK must survive: a body that cannot be read (the status still gives the
 * class), a JSON body that is `null` (octokit #820 crashed on it), and a blank `retry-after-ms`
 * (it must fall back to the backoff, not mean "retry at once").
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  type ClaimsApiError,
  ClaimsClient,
  ConflictError,
  type Logger,
} from '../../src/index.js';
import { parseRetryAfter } from '../../src/retry.js';
import { WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

type Answer = (res: import('node:http').ServerResponse, hit: number) => void;
let server: Server;
let url = '';
let hits = 0;
let answer: Answer = (res) => res.end();

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => answer(res, hits));
  });
  server.on('connection', (s) => s.on('error', () => undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function use(next: Answer): void {
  hits = 0;
  answer = next;
}

describe.each(WIRES)('error answers, $name', ({ options }) => {
  const client = (extra = {}) =>
    new ClaimsClient({ baseUrl: url, accessToken: 'tok', timeoutMs: 5_000, ...options, ...extra });

  it('an error answer whose body is cut off still rejects with the class of its status', async () => {
    use((res) => {
      res.writeHead(409, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"message":"dup');
      // The promised 500 bytes never come: reading the body fails.
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await client()
      .incidents.create(incident)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ClaimsApiError).status).toBe(409);
    expect((error as ClaimsApiError).body).toBeUndefined();
    expect(hits).toBe(1);
  });

  it('a JSON body of null on a 4xx gives a BadRequestError, not a TypeError', async () => {
    use((res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('null');
    });
    const error = await client()
      .incidents.create(incident)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as ClaimsApiError).body).toBeNull();
    expect((error as Error).message).toMatch(/^400 POST /);
  });

  it.each(['', '   '])('a blank retry-after-ms (%j) waits the backoff, not 0 ms', async (blank) => {
    use((res, hit) => {
      if (hit === 1) {
        res.writeHead(429, { 'retry-after-ms': blank });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      }
    });
    const delays: number[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: (_m: string, fields?: unknown) => delays.push((fields as { delayMs: number }).delayMs),
      warn: () => undefined,
      error: () => undefined,
    };
    await client({ logger, logLevel: 'info' }).subscriptions.list(1);
    expect(hits).toBe(2);
    // The first backoff: 500 ms less up to 25 % jitter.
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThanOrEqual(375);
    expect(delays[0]).toBeLessThanOrEqual(500);
  });
});

describe('parseRetryAfter', () => {
  it('a blank retry-after-ms gives way to Retry-After, or to nothing', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '' })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after-ms': ' ' })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after-ms': '', 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfter({ 'retry-after-ms': '0' })).toBe(0);
    expect(parseRetryAfter({ 'retry-after-ms': '0', 'retry-after': '3' })).toBe(0);
  });

  it('Retry-After in seconds: fractions and surrounding spaces are read, trailing words are not', () => {
    expect(parseRetryAfter({ 'retry-after': '1.25' })).toBe(1250);
    expect(parseRetryAfter({ 'retry-after': ' 5 ' })).toBe(5000);
    expect(parseRetryAfter({ 'retry-after': '5 seconds' })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '' })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });
});
