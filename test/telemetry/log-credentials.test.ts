/**
 * The debug log redacts every header that carries a credential, by name (key, token, secret,
 * auth, signature, password, passwd, credential, session, cookie, in any case), plus the names
 * a client adds with `redactHeaders` (#27.9); credentials in query strings and in JSON body
 * fields by the same rule. Over a real server, with the log lines as a logger receives them.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, type Logger } from '../../src/index.js';
import { isSecretName, secretNames } from '../../src/internal/secret-names.js';
import { logUrl, redactBody, redactHeaders } from '../../src/logger.js';
import { type FaultServer, httpFaultServer, TOKEN } from '../faults/fault-server.js';

const SECRET_WORDS = [
  'key',
  'token',
  'secret',
  'auth',
  'signature',
  'password',
  'passwd',
  'credential',
  'session',
  'cookie',
];

/** A logger keeping each call as one string: its message and the JSON of its details. */
function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (message: string, ...details: unknown[]): void => {
      lines.push(`${level} ${message} ${details.map((d) => JSON.stringify(d)).join(' ')}`);
    };
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

const casing = (word: string, coins: boolean[]) =>
  Array.from(word, (c, i) => (coins[i % coins.length] ? c.toUpperCase() : c)).join('');
const namePart = fc.stringMatching(/^[a-z0-9-]{0,8}$/);

describe('the rule', () => {
  it('a name holding any of the words, in any case, anywhere, is secret', () => {
    fc.assert(
      fc.property(
        namePart,
        fc.constantFrom(...SECRET_WORDS),
        namePart,
        fc.array(fc.boolean(), { minLength: 1 }),
        (a, word, b, coins) => {
          expect(isSecretName(`${a}${casing(word, coins)}${b}`)).toBe(true);
        },
      ),
    );
  });

  it.each([
    'Ocp-Apim-Subscription-Key',
    'X-Auth-Token',
    'X-Amz-Security-Token',
    'X-Amz-Signature',
    'Cookie',
    'Set-Cookie',
    'Authorization',
    'Proxy-Authorization',
    'x-api-key',
    'X-Client-Secret',
    'X-Session-Id',
    'sig',
    'SIG',
  ])('%s is secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each([
    'accept',
    'user-agent',
    'x-request-id',
    'traceparent',
    'x-correlation-id',
    'content-type',
    'signal',
    'design',
  ])('%s is not', (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  it('adds the names a client gives, in any case, and only those', () => {
    const test = secretNames(['X-Tenant-Pin']);
    expect(test('x-tenant-pin')).toBe(true);
    expect(test('X-TENANT-PIN')).toBe(true);
    expect(test('x-tenant')).toBe(false);
    expect(test('x-api-key')).toBe(true);
    expect(secretNames([])).toBe(isSecretName);
    expect(secretNames()).toBe(isSecretName);
  });
});

describe('what a log line shows', () => {
  it('header values replaced by name, the token redacted from the others', () => {
    expect(
      redactHeaders(
        {
          'X-Auth-Token': 'a1',
          'x-note': `carries ${TOKEN}`,
          accept: 'application/json',
          'X-Tenant-Pin': '1234',
        },
        TOKEN,
        secretNames(['x-tenant-pin']),
      ),
    ).toEqual({
      'X-Auth-Token': '[REDACTED]',
      'x-note': 'carries [REDACTED]',
      accept: 'application/json',
      'X-Tenant-Pin': '[REDACTED]',
    });
    expect(redactHeaders({ Cookie: 'c', 'x-a': 'b' })).toEqual({ Cookie: '[REDACTED]', 'x-a': 'b' });
  });

  it('query values by name, a user name and password, cut to 2,000 characters', () => {
    expect(logUrl('https://u:p@h/x?subscription-key=k&a=1&X-Amz-Signature=s&api%5Fkey=q&flag&b=#frag')).toBe(
      'https://[REDACTED]:[REDACTED]@h/x?subscription-key=[REDACTED]&a=1&X-Amz-Signature=[REDACTED]&api%5Fkey=[REDACTED]&flag&b=#frag',
    );
    expect(logUrl('https://h/x?token=%E0%A4%A')).toBe('https://h/x?token=[REDACTED]');
    expect(logUrl('https://h/x?%E0%A4%Akey=v&a+key=w')).toBe(
      'https://h/x?%E0%A4%Akey=[REDACTED]&a+key=[REDACTED]',
    );
    expect(logUrl(`https://h/${'p'.repeat(5_000)}`)).toHaveLength(2_000);
    expect(logUrl('https://h/x')).toBe('https://h/x');
  });

  it('numbers, booleans and null given for a secret; nested objects and arrays walked, not hidden', () => {
    expect(
      redactBody(
        '{"pin_password":1234,"x":1,"token" : true,"k":{"apiKey":null},"keys":["a"],"n":[{"secret":"s"}]}',
        '',
      ),
    ).toBe(
      '{"pin_password":"[REDACTED]","x":1,"token" : "[REDACTED]","k":{"apiKey":"[REDACTED]"},"keys":["a"],"n":[{"secret":"[REDACTED]"}]}',
    );
    expect(redactBody('{"secret":12', '')).toBe('{"secret":"[REDACTED]"');
    expect(redactBody('["key",":","v"]', '')).toBe('["key",":","v"]');
    expect(redactBody('{"a":"key","b":"v"}', '')).toBe('{"a":"key","b":"v"}');
    expect(redactBody('{"key"\t:\n"v"}', '')).toBe('{"key"\t:\n"[REDACTED]"}');
  });

  it('a body of 100,000 escaped quotes is read once (linear), not once per quote', () => {
    const body = JSON.stringify({ description: '"'.repeat(100_000), password: 'p' });
    const redacted = redactBody(body, '');
    expect(redacted.endsWith(`… (${body.length - 'p'.length + '[REDACTED]'.length} chars)`)).toBe(true);
  });

  it('JSON fields named like credentials, and headerValue, whatever the spacing', () => {
    expect(
      redactBody(
        '{"url":"https://x","headerValue":"hv","nested":{"clientSecret" : "cs","password":"p\\"w"},"name":"key"}',
        '',
      ),
    ).toBe(
      '{"url":"https://x","headerValue":"[REDACTED]","nested":{"clientSecret" : "[REDACTED]","password":"[REDACTED]"},"name":"key"}',
    );
  });
});

describe('over a real server', () => {
  let server: FaultServer;
  beforeAll(async () => {
    server = await httpFaultServer((_hit, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  afterAll(() => server.close());

  it('client headers carrying credentials, a redactHeaders name, query keys and body fields: none in the log', async () => {
    const logger = captureLogger();
    const client = new ClaimsClient({
      baseUrl: server.url,
      accessToken: TOKEN,
      logger,
      logLevel: 'debug',
      redactHeaders: ['X-Tenant-Pin'],
      headers: {
        'Ocp-Apim-Subscription-Key': 'apim-0001',
        'X-Auth-Token': 'xat-0002',
        'X-Amz-Security-Token': 'amz-0003',
        'X-Tenant-Pin': 'pin-0004',
        'X-Request-Source': 'portal',
      },
    });
    await client.metadata.programmes({ 'subscription-key': 'qk-0005', region: 'eu' });
    await client.webhooks.update(
      7,
      { headerValue: 'hv-0006', isActive: true },
      { extraBody: { clientSecret: 'cs-0007' } },
    );
    const text = logger.lines.join('\n');
    for (const secret of [
      'apim-0001',
      'xat-0002',
      'amz-0003',
      'pin-0004',
      'qk-0005',
      'hv-0006',
      'cs-0007',
      TOKEN,
    ]) {
      expect(text).not.toContain(secret);
    }
    // What is no credential is still there to debug with.
    expect(text).toContain('"x-request-source":"portal"');
    expect(text).toContain('region=eu');
    expect(text).toContain('"ocp-apim-subscription-key":"[REDACTED]"');
    expect(text).toContain('subscription-key=[REDACTED]');
  });
});
