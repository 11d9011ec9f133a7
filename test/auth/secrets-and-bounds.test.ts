import { inspect } from 'node:util';
import { ClaimsClient } from 'claims-notification-sdk';
import { clientCredentials, TokenRequestError } from 'claims-notification-sdk/auth';
import { createSandbox, type Sandbox } from 'claims-notification-sdk/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOKEN_RESPONSE_BYTES } from '../../src/auth/token-request.js';
import { base64Spellings } from '../../src/internal/base64-spellings.js';
import { json, useRecordingServer } from '../helpers/recording-server.js';

/** Every way an error can be shown or serialised. */
function renderings(error: unknown): string {
  const e = error as Error & Record<string, unknown>;
  return [
    String(e),
    e.stack,
    inspect(e, { depth: 5 }),
    JSON.stringify({ ...e }),
    JSON.stringify(e.cause),
  ].join('\n');
}

const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Every spelling of the secret the SDK itself produced, and the base64 ones the review found echoed. */
function spellingsOf(clientId: string, secret: string): string[] {
  const pair = `${formEncode(clientId)}:${formEncode(secret)}`;
  return [
    secret,
    formEncode(secret),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    b64(pair),
    b64(pair).replace(/=+$/, ''),
    b64url(pair),
    b64(secret),
    b64(secret).replace(/=+$/, ''),
    b64url(secret),
    b64(`${clientId}:${secret}`),
  ].filter((s) => s.length >= 6);
}

describe('base64 spellings of a secret', () => {
  it('are found in the base64 of any text holding the secret, at any offset, standard or URL-safe', () => {
    fc.assert(
      fc.property(
        // From 5 bytes on, every offset has a core of 6 characters or more.
        fc.string({ minLength: 5, maxLength: 40, unit: 'grapheme' }),
        fc.string({ maxLength: 9 }),
        fc.string({ maxLength: 5 }),
        (secret, before, after) => {
          const spellings = base64Spellings(secret);
          const text = `${before}${secret}${after}`;
          return [b64(text), b64url(text)].every((encoded) => spellings.some((s) => encoded.includes(s)));
        },
      ),
    );
  });

  it("leave out short cores that would match by chance, but keep a short secret's whole encoding", () => {
    expect(base64Spellings('abc')).toEqual([]);
    expect(base64Spellings('abcd')).toEqual(['YWJjZA==', 'YWJjZA']);
    expect(base64Spellings('abcdef')).toEqual(['YWJjZGVm', 'FiY2RlZ', 'hYmNkZW']);
    // At offsets 0, 1 and 2 of the encoded text (the characters shared with neighbours left out), and whole.
    expect(base64Spellings('abcdefg')).toEqual([
      'YWJjZGVmZ',
      'FiY2RlZm',
      'hYmNkZWZn',
      'YWJjZGVmZw==',
      'YWJjZGVmZw',
    ]);
    for (const s of base64Spellings('s3cr3t+/=: with spaces')) expect(s.length).toBeGreaterThanOrEqual(6);
  });

  it('keep cores of exactly 6 characters: a 5-byte secret is found at every offset, followed by anything', () => {
    expect(base64Spellings('abcde')).toEqual(['YWJjZG', 'FiY2Rl', 'hYmNkZ', 'YWJjZGU=', 'YWJjZGU']);
    for (const before of ['', 'i', 'id', 'id:']) {
      const encoded = b64(`${before}abcde!`);
      expect(base64Spellings('abcde').some((s) => encoded.includes(s))).toBe(true);
    }
  });

  it("spell a short secret's whole encoding URL-safe too ('+' and '/' as '-' and '_')", () => {
    expect(base64Spellings('>>>?')).toEqual(['Pj4+Pw==', 'Pj4-Pw==', 'Pj4+Pw', 'Pj4-Pw']);
    expect(base64Spellings('????')).toEqual(['Pz8/Pw==', 'Pz8_Pw==', 'Pz8/Pw', 'Pz8_Pw']);
  });
});

describe('the token endpoint echoing the client secret in any spelling', () => {
  const server = useRecordingServer();

  it('redacts it from error, error_description and token_type, for any id and secret', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== ''),
        fc.string({ minLength: 8, maxLength: 30 }),
        fc.constantFrom('client_secret_basic', 'client_secret_post') as fc.Arbitrary<
          'client_secret_basic' | 'client_secret_post'
        >,
        async (clientId, secret, clientAuthentication) => {
          const spellings = spellingsOf(clientId, secret);
          const echo = spellings.join(' | ');
          const provider = (status: number, body: unknown) => {
            server.handle((_r, res) => json(res, status, body));
            return clientCredentials({
              tokenUrl: `${server.url}/token`,
              clientId,
              clientSecret: secret,
              clientAuthentication,
            })();
          };
          for (const [status, body] of [
            [401, { error: `invalid_client ${echo}`, error_description: `you sent ${echo}` }],
            [200, { access_token: 'x', token_type: `Basic ${echo}` }],
          ] as const) {
            const error = await provider(status, body).catch((e: unknown) => e);
            expect(error).toBeInstanceOf(TokenRequestError);
            const text = renderings(error);
            for (const spelling of spellings) expect(text, `${spelling} in ${text}`).not.toContain(spelling);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('the bearer token echoed base64-encoded by the API', () => {
  const server = useRecordingServer();

  it('is redacted from the error, its body and headers', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.bearer-token-value';
    server.handle((_r, res) =>
      json(
        res,
        422,
        { message: `bad auth ${b64(`Bearer ${token}`)}`, echo: b64url(token) },
        { 'x-echo': b64(token) },
      ),
    );
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: token, maxRetries: 0 });
    const error = await client.metadata.programmes().catch((e: unknown) => e);
    const text = renderings(error) + JSON.stringify((error as { body?: unknown }).body);
    for (const spelling of [token, b64(token), b64url(token), b64(`Bearer ${token}`)])
      expect(text).not.toContain(spelling);
  });
});

describe("the token endpoint's answer is read with a size cap", () => {
  const server = useRecordingServer();

  it(`refuses a 2xx answer over ${MAX_TOKEN_RESPONSE_BYTES} bytes without reading the rest`, async () => {
    let written = 0;
    let closed = false;
    server.handle((_r, res, raw) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      raw.socket.on('close', () => {
        closed = true;
      });
      // An endless answer: it stops only when the client goes away (bounded: 64 MiB at most).
      const pump = () => {
        while (!closed && written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (!closed && written < 64 * 1024 * 1024) res.once('drain', pump);
      };
      pump();
    });
    const provider = clientCredentials({
      tokenUrl: `${server.url}/token`,
      clientId: 'id',
      clientSecret: 'secret-value',
    });
    const error = await provider().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({
      failure: 'invalid_response',
      status: 200,
      message: `Token endpoint ${server.url}/token answered 200 with more than ${MAX_TOKEN_RESPONSE_BYTES} bytes; not read`,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(true);
    expect(written).toBeLessThan(8 * 1024 * 1024);
  });

  it('refuses an error answer declaring more than the cap, unread', async () => {
    server.handle((_r, res) => {
      res.writeHead(400, {
        'content-type': 'application/json',
        'content-length': String(MAX_TOKEN_RESPONSE_BYTES + 1),
      });
      res.write('{"error":"invalid_request"');
    });
    const provider = clientCredentials({
      tokenUrl: `${server.url}/token`,
      clientId: 'id',
      clientSecret: 'secret-value',
    });
    const error = await provider().catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'error_response', status: 400, error: undefined });
  });

  it('reads an answer just under the cap', async () => {
    const padding = ' '.repeat(MAX_TOKEN_RESPONSE_BYTES - 100);
    server.handle((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"access_token":"t-1","token_type":"Bearer","expires_in":60}${padding}`);
    });
    const provider = clientCredentials({
      tokenUrl: `${server.url}/token`,
      clientId: 'id',
      clientSecret: 'secret-value',
    });
    await expect(provider()).resolves.toBe('t-1');
  });
});

describe('a token whose expires_in is 0 or below', () => {
  const server = useRecordingServer();

  it('serves the call that asked (and those that waited for it), and is never cached', async () => {
    for (const expires of [0, -5, '0', '-30']) {
      let issued = 0;
      server.handle((_r, res) => {
        issued++;
        json(res, 200, { access_token: `t-${issued}`, token_type: 'Bearer', expires_in: expires });
      });
      const provider = clientCredentials({
        tokenUrl: `${server.url}/token`,
        clientId: 'id',
        clientSecret: 'secret-value',
      });
      const together = await Promise.all([provider(), provider(), provider()]);
      expect(together, String(expires)).toEqual(['t-1', 't-1', 't-1']);
      expect(await provider()).toBe('t-2');
      expect(await provider()).toBe('t-3');
    }
  });

  it('a lifetime that is no number is still unknown: cached until a 401', async () => {
    let issued = 0;
    server.handle((_r, res) => {
      issued++;
      json(res, 200, { access_token: `t-${issued}`, token_type: 'Bearer', expires_in: 'soon' });
    });
    const provider = clientCredentials({
      tokenUrl: `${server.url}/token`,
      clientId: 'id',
      clientSecret: 'secret-value',
    });
    expect([await provider(), await provider()]).toEqual(['t-1', 't-1']);
  });
});

describe('a revoked token with many calls in flight', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({
      oauth: { clientId: 'portal', clientSecret: 'dev-secret-value', expiresInS: 3600 },
    });
  });
  afterAll(() => sandbox.close());

  it('is refreshed once, not once per late 401: a refusal of a token already replaced gets the new one', async () => {
    const issuer = sandbox.core.oauth;
    if (!issuer) throw new Error('no token endpoint');
    const provider = clientCredentials({
      tokenUrl: `${sandbox.url}/oauth/token`,
      clientId: 'portal',
      clientSecret: 'dev-secret-value',
    });
    const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: provider, maxRetries: 0 });
    await client.metadata.programmes();
    issuer.requests = 0;
    issuer.revokeAll();
    // 50 calls sent with the revoked token; their 401s come back one by one.
    await Promise.all(Array.from({ length: 50 }, () => client.metadata.programmes()));
    expect(issuer.requests).toBe(1);
  });

  it('a provider still refreshes when the refused token is the one it holds, or when no refused token is given', async () => {
    let issued = 0;
    const provider = clientCredentials({
      tokenUrl: `${sandbox.url}/oauth/token`,
      clientId: 'portal',
      clientSecret: 'dev-secret-value',
      fetch: async (url, init) => {
        issued++;
        return fetch(url, init);
      },
    });
    const first = await provider();
    const second = await provider({ forceRefresh: true, refusedToken: first });
    expect(second).not.toBe(first);
    expect(await provider({ forceRefresh: true, refusedToken: first })).toBe(second);
    const third = await provider({ forceRefresh: true });
    expect(third).not.toBe(second);
    expect(issued).toBe(3);
  });
});
