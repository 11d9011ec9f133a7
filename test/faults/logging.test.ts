/**
 * Opt-in debug logging under faults: one line per attempt (method, url, status, attempt, ms),
 * one per retry (with its delay), and never a secret: the bearer token and a webhook's
 * `headerValue` are redacted everywhere.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClaimsValidationError, type Logger } from '../../src/index.js';
import { resolveLog } from '../../src/logger.js';
import { incident } from '../helpers/fixtures.js';
import { failure, httpFaultServer, makeClient, scenario, TOKEN } from './fault-server.js';

const HEADER_VALUE = 'hv_webhook_s3cret_xyz';

/** A logger that keeps every call as one string (message plus JSON of its details). */
function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (message: string, ...details: unknown[]): void => {
      lines.push(`${level} ${message} ${details.map((d) => JSON.stringify(d)).join(' ')}`);
    };
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.CLAIMS_SDK_LOG;
});

describe('debug logging', () => {
  it('logs every attempt and retry, with status, attempt number, ms and delay', async () => {
    let n = 0;
    await scenario(
      httpFaultServer((hit, _req, res) => {
        if (n++ === 0) {
          hit.mayHaveProcessed = false;
          res.writeHead(429, { 'retry-after': '0' });
          res.end();
          return;
        }
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{"incidentId":"I-7"}');
      }),
      async (server) => {
        const logger = captureLogger();
        await makeClient(server.url, { logger, logLevel: 'debug' }).incidents.create(incident);
        const { lines } = logger;
        const url = `${server.url}/incidents`;
        expect(lines.filter((l) => l.startsWith(`debug claims-sdk: POST ${url} (attempt `))).toHaveLength(2);
        expect(
          lines.some((l) => new RegExp(`POST ${url} -> 429 in [\\d.]+ ms \\(attempt 1\\)`).test(l)),
        ).toBe(true);
        expect(
          lines.some((l) => new RegExp(`POST ${url} -> 201 in [\\d.]+ ms \\(attempt 2\\)`).test(l)),
        ).toBe(true);
        expect(
          lines.some((l) =>
            l.startsWith(`info claims-sdk: retrying POST ${url} in 0 ms (attempt 2) after 429`),
          ),
        ).toBe(true);
      },
    );
  });

  it('redacts the token and a webhook headerValue from every line, and says so', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(200);
        res.end();
      }),
      async (server) => {
        const logger = captureLogger();
        const client = makeClient(server.url, {
          logger,
          logLevel: 'debug',
          headers: { 'X-Api-Key': 'key_also_secret' },
        });
        await client.webhooks.update(4, { headerName: 'X-Hook-Auth', headerValue: HEADER_VALUE });
        const all = logger.lines.join('\n');
        expect(all).not.toContain(TOKEN);
        expect(all).not.toContain(HEADER_VALUE);
        expect(all).not.toContain('key_also_secret');
        expect(all).toContain('"authorization":"[REDACTED]"');
        expect(all).toContain('\\"headerValue\\":\\"[REDACTED]\\"');
        expect(all).toContain('X-Hook-Auth');
        expect(all).toMatch(/PATCH .*\/webhooks\/4 -> 200 in [\d.]+ ms \(attempt 1\)/);
      },
    );
  });

  it('logs failed attempts (a timeout) with the error, and the token nowhere', async () => {
    await scenario(
      httpFaultServer(() => undefined),
      async (server) => {
        const logger = captureLogger();
        const client = makeClient(server.url, { logger, logLevel: 'debug', fetch: globalThis.fetch });
        await failure(() => client.subscriptions.list(1, { maxRetries: 1, timeoutMs: 100 }));
        const all = logger.lines.join('\n');
        expect(all).toMatch(/GET .* -> ClaimsTimeoutError: Request timed out.* \(attempt 1\)/);
        expect(all).toMatch(/retrying GET .* in \d+ ms \(attempt 2\) after ClaimsTimeoutError/);
        expect(all).not.toContain(TOKEN);
      },
    );
  });

  it('warns when the server asks to wait longer than the SDK will', async () => {
    await scenario(
      httpFaultServer((hit, _req, res) => {
        hit.mayHaveProcessed = false;
        res.writeHead(429, { 'retry-after': '600' });
        res.end();
      }),
      async (server) => {
        const logger = captureLogger();
        await failure(() => makeClient(server.url, { logger }).incidents.create(incident));
        // `logger` without `logLevel` means warn: the warning, nothing chattier.
        expect(logger.lines).toHaveLength(1);
        expect(logger.lines[0]).toMatch(/^warn claims-sdk: not retrying POST .* after 429: .*600000 ms/);
      },
    );
  });
});

describe('levels, defaults and the environment', () => {
  it('logs nothing by default, and nothing at logLevel off even with a logger', async () => {
    const spies = (['debug', 'info', 'warn', 'error', 'log'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => undefined),
    );
    const logger = captureLogger();
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(503, { 'retry-after': '0' });
        res.end();
      }),
      async (server) => {
        await failure(() => makeClient(server.url).subscriptions.list(1));
        await failure(() => makeClient(server.url, { logger, logLevel: 'off' }).subscriptions.list(1));
      },
    );
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    expect(logger.lines).toEqual([]);
  });

  it('CLAIMS_SDK_LOG=debug, read when the client is made, logs to console', async () => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      }),
      async (server) => {
        process.env.CLAIMS_SDK_LOG = 'debug';
        const client = makeClient(server.url);
        delete process.env.CLAIMS_SDK_LOG; // read once: later changes do not matter
        await client.subscriptions.list(2);
        const quiet = makeClient(server.url);
        await quiet.subscriptions.list(2);
      },
    );
    const messages = debug.mock.calls.map((call) => String(call[0]));
    expect(messages.filter((m) => m.includes('-> 200'))).toHaveLength(1);
    expect(JSON.stringify(debug.mock.calls)).not.toContain(TOKEN);
  });

  it('an explicit logLevel beats the environment; an unknown environment value is ignored', () => {
    expect(resolveLog({ logLevel: 'warn' }, { CLAIMS_SDK_LOG: 'debug' }).debugOn).toBe(false);
    expect(resolveLog({}, { CLAIMS_SDK_LOG: 'DEBUG' }).debugOn).toBe(true);
    const typo = resolveLog({}, { CLAIMS_SDK_LOG: 'verbose' });
    expect([typo.debugOn, typo.infoOn, typo.warnOn]).toEqual([false, false, false]);
    const info = resolveLog({ logLevel: 'info' }, {});
    expect([info.debugOn, info.infoOn, info.warnOn]).toEqual([false, true, true]);
  });

  it('rejects a bad logger or logLevel when the client is made', () => {
    expect(() => makeClient('http://127.0.0.1:1', { logger: {} as Logger })).toThrow(ClaimsValidationError);
    expect(() => makeClient('http://127.0.0.1:1', { logLevel: 'loud' as 'info' })).toThrow(/logLevel/);
  });

  it('when off, the hot path never touches the logger', async () => {
    const touched: string[] = [];
    const logger = new Proxy(captureLogger(), {
      get(target, key, receiver) {
        touched.push(String(key));
        return Reflect.get(target, key, receiver);
      },
    });
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      }),
      async (server) => {
        const client = makeClient(server.url, { logger, logLevel: 'off' });
        touched.length = 0; // construction checks the logger's shape once
        for (let i = 0; i < 5; i++) await client.subscriptions.list(1);
      },
    );
    expect(touched).toEqual([]);
  });
});
