/**
 * Answers judged honestly, on both wires: only JSON or an empty body is a success; a BOM
 * before JSON is tolerated alike; a 2xx body past `maxResponseBytes` is an error and is not
 * read further, so memory stays bounded whatever the server sends.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsResponseValidationError,
  outcomeOf,
} from '../../src/index.js';
import { readSuccess } from '../../src/internal/answer.js';
import type { WireResponse } from '../../src/wire/types.js';
import { type FaultServer, httpFaultServer, TOKEN, WIRES } from '../faults/fault-server.js';
import { event, incident } from '../helpers/fixtures.js';

const LOGIN_PAGE = '<!doctype html><html><body><form action="/login">Sign in</form></body></html>';

describe.each(WIRES)('$name: answers judged honestly', (wire) => {
  let server: FaultServer;
  let answer: (res: ServerResponse) => void | Promise<void> = (res) => {
    res.end();
  };

  beforeAll(async () => {
    server = await httpFaultServer((_hit, _req, res) => answer(res));
  });
  afterAll(() => server.close());

  const client = (options: Partial<ClaimsClientOptions> = {}): ClaimsClient =>
    new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0, ...wire.options, ...options });

  const reply =
    (status: number, body: string | Buffer, type = 'application/json') =>
    (res: ServerResponse): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };

  it('a 200 text/html login page is no success where JSON or nothing is expected', async () => {
    answer = reply(200, LOGIN_PAGE, 'text/html');
    server.hits.length = 0;
    const calls: Array<() => Promise<unknown>> = [
      () => client().events.create('I-1', event),
      () => client().metadata.programmes(),
      () => client().webhooks.update(1, { isActive: true }),
      () => client().subscriptions.update(1, 2, { isActive: true }),
      () => client().incidents.create(incident),
    ];
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsResponseValidationError);
      const { body, issues } = error as ClaimsResponseValidationError;
      expect(body).toBe(LOGIN_PAGE);
      // The server answered 2xx: it acted, and the caller must not send it again blindly.
      expect(outcomeOf(error)).toBe('processed');
      expect(issues[0]?.message).toBe('the body is not valid JSON (content-type text/html)');
    }
    // Each was sent once: a 2xx means the server acted, so nothing is repeated.
    expect(server.hits).toHaveLength(calls.length);
  });

  it('an empty body is fine where nothing is expected, and JSON is ignored there', async () => {
    answer = reply(204, '');
    await expect(client().webhooks.update(1, { isActive: true })).resolves.toBeUndefined();
    await expect(client().events.create('I-1', event)).resolves.toBeUndefined();
    answer = reply(200, '{"updated":true}');
    await expect(client().subscriptions.update(1, 2, { isActive: false })).resolves.toBeUndefined();
  });

  it('a UTF-8 BOM before the JSON is tolerated, in a 2xx and in an error body', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    answer = reply(201, Buffer.concat([bom, Buffer.from('{"incidentId":"I-42"}')]));
    await expect(client().incidents.create(incident)).resolves.toEqual({ incidentId: 'I-42' });
    answer = reply(422, Buffer.concat([bom, Buffer.from('{"message":"bad date"}')]));
    await expect(client().incidents.create(incident)).rejects.toMatchObject({
      status: 422,
      body: { message: 'bad date' },
    });
  });

  it('a 2xx body longer than maxResponseBytes is an error, not a success', async () => {
    const big = JSON.stringify({ incidentId: 'I-1', padding: 'x'.repeat(5_000) });
    answer = reply(201, big);
    await expect(client({ maxResponseBytes: big.length }).incidents.create(incident)).resolves.toMatchObject({
      incidentId: 'I-1',
    });
    const error = await client({ maxResponseBytes: 1_000 })
      .incidents.create(incident)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as ClaimsResponseValidationError).issues[0]?.message).toBe(
      'the body is larger than maxResponseBytes (1000 bytes); reading stopped there',
    );
    expect(outcomeOf(error)).toBe('processed');
  });

  it('a 300 MB streamed 2xx body stops at the cap: memory stays bounded', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const total = 300 * 1024 * 1024;
    let sent = 0;
    answer = async (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"incidentId":"I-1","padding":"');
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          await new Promise<void>((resolve) => {
            const done = (): void => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
        }
      }
      res.end('"}');
    };
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const started = performance.now();
    try {
      const error = await client()
        .incidents.create(incident)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsResponseValidationError);
      expect((error as ClaimsResponseValidationError).issues[0]?.message).toMatch(
        /larger than maxResponseBytes \(10485760 bytes\)/,
      );
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const grewMiB = (peak - before) / 2 ** 20;
    // The read stopped near the 10 MiB cap, far from the 300 MB offered.
    expect(sent).toBeLessThan(total / 2);
    if (process.env.REPORT_MEMORY)
      console.log(`${wire.name}: RSS grew ${grewMiB.toFixed(1)} MiB, ${sent} bytes sent`);
    expect(grewMiB).toBeLessThan(100);
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});

describe('a 2xx value whose body echoed the token', () => {
  const response = (text: string): WireResponse => ({
    status: 200,
    rawHeaders: {},
    headers: () => ({}),
    text: async () => ({ text, truncated: false }),
  });
  const read = (text: string, token: string) =>
    readSuccess({}, response(text), { method: 'GET', url: 'http://x/y', token, maxResponseBytes: 10_000 });
  const token = 'tok_Ab+/=9';

  it('is redacted, in every spelling the redactor knows, keys and numbers included', async () => {
    await expect(
      read(`{"raw":"${token}","enc":"${encodeURIComponent(token)}","esc":"tok_Ab\\u002B\\/=9"}`, token),
    ).resolves.toEqual({ raw: '[REDACTED]', enc: '[REDACTED]', esc: '[REDACTED]' });
    await expect(read(`{"${token}":1}`, token)).resolves.toEqual({ '[REDACTED]': 1 });
    await expect(read('{"n":123456789}', '123456789')).resolves.toEqual({ n: '[REDACTED]' });
  });

  it('a body that cannot hold it is returned as parsed: % and \\ alone do not change a value', async () => {
    await expect(read('{"a":"50%","b":"x\\\\y"}', token)).resolves.toEqual({ a: '50%', b: 'x\\y' });
  });

  it('a token shorter than 8 characters is not looked for in values (it would be found in words)', async () => {
    await expect(read('{"attachmentId":"t"}', 't')).resolves.toEqual({ attachmentId: 't' });
    await expect(read('{"a":"tok_1234"}', 'tok_1234')).resolves.toEqual({ a: '[REDACTED]' });
    await expect(read('{"a":"tok_123"}', 'tok_123')).resolves.toEqual({ a: 'tok_123' });
  });
});
