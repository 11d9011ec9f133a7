import { inspect } from 'node:util';
import { ClaimsClient, ClaimsError, ClaimsValidationError, outcomeOf } from 'claims-notification-sdk';
import { clientCredentials, TokenRequestError } from 'claims-notification-sdk/auth';
import { createSandbox, type Sandbox } from 'claims-notification-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { json, useRecordingServer } from '../helpers/recording-server.js';

const CLIENT_ID = 'claims-portal';
const SECRET = 's3cr3t+/=: with spaces';

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

describe('clientCredentials against the sandbox token endpoint', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ oauth: { clientId: CLIENT_ID, clientSecret: SECRET, expiresInS: 3600 } });
  });
  afterAll(() => sandbox.close());
  const tokenUrl = () => `${sandbox.url}/oauth/token`;
  const issuer = () => {
    const oauth = sandbox.core.oauth;
    if (!oauth) throw new Error('the sandbox has no token endpoint');
    return oauth;
  };
  afterEach(() => {
    issuer().requests = 0;
  });

  it('fetches a token once and reuses it for later calls (client_secret_basic)', async () => {
    const accessToken = clientCredentials({
      tokenUrl: tokenUrl(),
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken });
    await client.metadata.programmes();
    await client.metadata.programmes();
    await client.metadata.programmes();
    expect(issuer().requests).toBe(1);
  });

  it('works with client_secret_post too', async () => {
    const accessToken = clientCredentials({
      tokenUrl: tokenUrl(),
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      clientAuthentication: 'client_secret_post',
    });
    const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken });
    await expect(client.metadata.programmes()).resolves.toBeDefined();
    expect(issuer().requests).toBe(1);
  });

  it('50 concurrent calls through a client need one token request', async () => {
    const accessToken = clientCredentials({
      tokenUrl: tokenUrl(),
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken });
    await Promise.all(Array.from({ length: 50 }, () => client.metadata.programmes()));
    expect(issuer().requests).toBe(1);
  });

  it('after a 401 the transport gets a fresh token, not the cached one, and the call succeeds', async () => {
    const provider = clientCredentials({ tokenUrl: tokenUrl(), clientId: CLIENT_ID, clientSecret: SECRET });
    const seen: string[] = [];
    const accessToken = async (context?: { forceRefresh: boolean }) => {
      const token = await provider(context);
      seen.push(`${context?.forceRefresh ? 'force' : 'normal'}:${token}`);
      return token;
    };
    const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken, maxRetries: 0 });
    await client.metadata.programmes();
    issuer().revokeAll(); // the cached token is now refused with 401
    await expect(client.metadata.programmes()).resolves.toBeDefined();
    expect(issuer().requests).toBe(2);
    expect(seen).toHaveLength(3);
    const [first, second, third] = seen.map((s) => s.split(':'));
    expect(first?.[0]).toBe('normal');
    expect(second).toEqual(['normal', first?.[1]]); // the cached one, refused
    expect(third?.[0]).toBe('force');
    expect(third?.[1]).not.toBe(first?.[1]);
    // and the fresh token is cached for the next call
    await client.metadata.programmes();
    expect(issuer().requests).toBe(2);
  });

  it('a wrong secret is a TokenRequestError 401 invalid_client, wrapped by the client as a ClaimsError; no secret anywhere', async () => {
    const wrong = 'wr0ng-secret-value';
    const accessToken = clientCredentials({ tokenUrl: tokenUrl(), clientId: CLIENT_ID, clientSecret: wrong });
    const lines: string[] = [];
    const log = (...args: unknown[]) =>
      lines.push(args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' '));
    const client = new ClaimsClient({
      baseUrl: sandbox.url,
      accessToken,
      logLevel: 'debug',
      logger: { debug: log, info: log, warn: log, error: log },
    });
    const error = await client.metadata.programmes().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(TokenRequestError);
    expect(cause).toMatchObject({ status: 401, error: 'invalid_client', failure: 'error_response' });
    // nothing reached the claims API
    expect(outcomeOf(error)).toBe('not_sent');
    expect(outcomeOf(cause)).toBe('not_sent');
    for (const text of [renderings(error), renderings(cause), lines.join('\n'), inspect(accessToken)]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(Buffer.from(`${CLIENT_ID}:${wrong}`).toString('base64'));
    }
  });
});

describe('the token request on the wire', () => {
  const server = useRecordingServer();
  const token = (value = 'tok-1', expires: unknown = 3600) =>
    server.handle((_r, res) =>
      json(res, 200, { access_token: value, token_type: 'Bearer', expires_in: expires }),
    );

  it('client_secret_basic: form-urlencoded grant, scope and audience; id and secret in Basic', async () => {
    token();
    const provider = clientCredentials({
      tokenUrl: `${server.url}/oauth2/token`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      scope: ['claims:read', 'claims:write'],
      audience: 'https://claims.example.com',
    });
    await expect(provider()).resolves.toBe('tok-1');
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/oauth2/token');
    expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const encoded = `${CLIENT_ID}:${new URLSearchParams({ v: SECRET }).toString().slice(2)}`;
    expect(req?.headers.authorization).toBe(`Basic ${Buffer.from(encoded).toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(req?.body.toString()))).toEqual({
      grant_type: 'client_credentials',
      scope: 'claims:read claims:write',
      audience: 'https://claims.example.com',
    });
  });

  it('client_secret_post: id and secret in the body, no Authorization header', async () => {
    token();
    const provider = clientCredentials({
      tokenUrl: `${server.url}/token`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      clientAuthentication: 'client_secret_post',
    });
    await provider();
    const [req] = server.requests;
    expect(req?.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(req?.body.toString()))).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: SECRET,
    });
  });

  it('single flight: 50 concurrent calls while the endpoint is slow make one request', async () => {
    server.handle(async (_r, res) => {
      await new Promise((r) => setTimeout(r, 100));
      json(res, 200, { access_token: 'slow-token', token_type: 'bearer', expires_in: 3600 });
    });
    const provider = clientCredentials({
      tokenUrl: `${server.url}/t`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    const tokens = await Promise.all(Array.from({ length: 50 }, () => provider()));
    expect(new Set(tokens)).toEqual(new Set(['slow-token']));
    expect(server.requests).toHaveLength(1);
  });

  it('a failed request is not cached: the next call asks again', async () => {
    server.handle((_r, res) => json(res, 503, { error: 'temporarily_unavailable' }));
    const provider = clientCredentials({
      tokenUrl: `${server.url}/t`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    await expect(provider()).rejects.toBeInstanceOf(TokenRequestError);
    token('tok-after');
    await expect(provider()).resolves.toBe('tok-after');
    expect(server.requests).toHaveLength(2);
  });

  it('forceRefresh while a request is in flight joins it (one request)', async () => {
    server.handle(async (_r, res) => {
      await new Promise((r) => setTimeout(r, 50));
      json(res, 200, { access_token: `t${server.requests.length}`, token_type: 'Bearer', expires_in: 3600 });
    });
    const provider = clientCredentials({
      tokenUrl: `${server.url}/t`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    const first = await provider();
    const forced = await Promise.all([provider({ forceRefresh: true }), provider({ forceRefresh: true })]);
    expect(forced[0]).toBe(forced[1]);
    expect(forced[0]).not.toBe(first);
    expect(server.requests).toHaveLength(2);
  });

  it('a token without expires_in is reused until a 401 asks for a new one', async () => {
    server.handle((_r, res) =>
      json(res, 200, { access_token: `t${server.requests.length}`, token_type: 'Bearer' }),
    );
    const provider = clientCredentials({
      tokenUrl: `${server.url}/t`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    expect(await provider()).toBe('t1');
    expect(await provider()).toBe('t1');
    expect(await provider({ forceRefresh: true })).toBe('t2');
  });
});

describe('refresh ahead of expiry, with jitter', () => {
  const server = useRecordingServer();
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
  const issueNumbered = (expiresIn = 3600) =>
    server.handle((_r, res) =>
      json(res, 200, {
        access_token: `t${server.requests.length}`,
        token_type: 'Bearer',
        expires_in: expiresIn,
      }),
    );

  /** The provider's cached token at `msBeforeExpiry` before the first token expires. */
  async function tokenAt(random: number, msBeforeExpiry: number[]): Promise<string[]> {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    vi.spyOn(Math, 'random').mockReturnValue(random);
    issueNumbered();
    const provider = clientCredentials({
      tokenUrl: `${server.url}/t`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      refreshAheadMs: 60_000,
      refreshJitterMs: 30_000,
    });
    const out = [await provider()];
    const expiry = 1_000_000 + 3_600_000;
    for (const before of msBeforeExpiry) {
      vi.setSystemTime(expiry - before);
      out.push(await provider());
    }
    return out;
  }

  it('with no jitter drawn, refreshes 60 s before expiry, not before', async () => {
    expect(await tokenAt(0, [61_000, 59_000, 30_000])).toEqual(['t1', 't1', 't2', 't2']);
    expect(server.requests).toHaveLength(2);
  });

  it('the jitter moves the refresh earlier, by up to refreshJitterMs', async () => {
    expect(await tokenAt(0.999, [91_000, 89_000])).toEqual(['t1', 't1', 't2']);
  });

  it('two providers with different draws refresh at different times', async () => {
    const early = await tokenAt(0.9, [70_000]);
    server.requests.length = 0;
    const late = await tokenAt(0.1, [70_000]);
    expect(early).toEqual(['t1', 't2']);
    expect(late).toEqual(['t1', 't1']);
  });

  it('a short-lived token is refreshed at half its life at the latest', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    issueNumbered(60);
    const provider = clientCredentials({
      tokenUrl: `${server.url}/t`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    expect(await provider()).toBe('t1');
    vi.setSystemTime(29_000);
    expect(await provider()).toBe('t1');
    vi.setSystemTime(31_000);
    expect(await provider()).toBe('t2');
  });

  it('an early refresh that fails keeps using the still-valid token; past expiry the failure shows', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    issueNumbered(3600);
    const provider = clientCredentials({
      tokenUrl: `${server.url}/t`,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    expect(await provider()).toBe('t1');
    server.handle((_r, res) => json(res, 500, { error: 'server_error' }));
    vi.setSystemTime(3_600_000 - 30_000);
    expect(await provider()).toBe('t1');
    // within the back-off after a failed early refresh: no new request
    expect(await provider()).toBe('t1');
    expect(server.requests).toHaveLength(2);
    vi.setSystemTime(3_600_000);
    await expect(provider()).rejects.toMatchObject({ name: 'TokenRequestError', status: 500 });
  });
});

describe('token endpoint failures are typed, with no secret or token in them', () => {
  const server = useRecordingServer();
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const provider = (timeoutMs?: number) =>
    clientCredentials({ tokenUrl: `${server.url}/t`, clientId: CLIENT_ID, clientSecret: SECRET, timeoutMs });
  const basic = Buffer.from(
    `${CLIENT_ID}:${new URLSearchParams({ v: SECRET }).toString().slice(2)}`,
  ).toString('base64');

  async function failure(timeoutMs?: number): Promise<TokenRequestError> {
    const error = await provider(timeoutMs)().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toBeInstanceOf(ClaimsError);
    const text = renderings(error);
    for (const secret of [SECRET, encodeURIComponent(SECRET), basic]) expect(text).not.toContain(secret);
    return error as TokenRequestError;
  }

  it('400 invalid_scope: status, error and description, the echoed secret redacted', async () => {
    server.handle((_r, res) =>
      json(res, 400, { error: 'invalid_scope', error_description: `scope refused for secret ${SECRET}` }),
    );
    const error = await failure();
    expect(error).toMatchObject({ failure: 'error_response', status: 400, error: 'invalid_scope' });
    expect(error.errorDescription).toBe('scope refused for secret [REDACTED]');
    expect(error.message).toContain('400: invalid_scope');
  });

  it('401 invalid_client echoing the Basic header', async () => {
    server.handle((req, res) =>
      json(res, 401, {
        error: 'invalid_client',
        error_description: `bad ${String(req.headers.authorization)}`,
      }),
    );
    const error = await failure();
    expect(error).toMatchObject({ status: 401, error: 'invalid_client', errorDescription: 'bad [REDACTED]' });
  });

  it('500 with an HTML body', async () => {
    server.handle((_r, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<h1>oops</h1>');
    });
    const error = await failure();
    expect(error).toMatchObject({ failure: 'error_response', status: 500, error: undefined });
  });

  it('200 that is not JSON, or has no access_token, or is not Bearer', async () => {
    server.handle((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('access_token=abc');
    });
    expect(await failure()).toMatchObject({ failure: 'invalid_response', status: 200 });
    server.handle((_r, res) => json(res, 200, { token_type: 'Bearer' }));
    expect((await failure()).message).toContain('without an access_token');
    server.handle((_r, res) => json(res, 200, { access_token: 'sekrit-token', token_type: 'DPoP' }));
    const dpop = await failure();
    expect(dpop.message).toContain('DPoP');
    expect(renderings(dpop)).not.toContain('sekrit-token');
  });

  it('an endpoint that does not answer in time: timeout, after the timeoutMs given', async () => {
    server.handle(() => new Promise<void>(() => {}));
    // The request's timer, held: the test says when its 200 ms have passed.
    const timer = new AbortController();
    const asked: number[] = [];
    vi.spyOn(AbortSignal, 'timeout').mockImplementation((ms) => {
      asked.push(ms);
      return timer.signal;
    });
    let settled = false;
    const pending = failure(200).finally(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1), { interval: 5 });
    expect(asked).toEqual([200]);
    // Sent, unanswered, its time not up: still waiting.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    timer.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    const error = await pending;
    expect(error).toMatchObject({ failure: 'timeout', status: undefined });
    expect(error.message).toMatch(/ timed out after 200 ms$/);
  });

  it('headers sent but the body stalls: timeout too', async () => {
    server.handle((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"access_token":');
    });
    expect(await failure(200)).toMatchObject({ failure: 'timeout' });
  });

  it('nothing listening: connection failure', async () => {
    const gone = clientCredentials({
      tokenUrl: 'http://127.0.0.1:1/t',
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    const error = await gone().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TokenRequestError', failure: 'connection', status: undefined });
    expect(renderings(error)).not.toContain(SECRET);
  });

  it('a redirect is not followed (the credentials would go with it)', async () => {
    server.handle((_r, res) => {
      res.writeHead(307, { location: 'https://elsewhere.example/token' });
      res.end();
    });
    expect(await failure()).toMatchObject({ failure: 'error_response', status: 307 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('clientCredentials options', () => {
  it('refuses an http token URL off this machine, a URL with credentials, empty ids; quotes no secret', () => {
    for (const tokenUrl of ['http://auth.example.com/token', 'https://u:p@auth.example.com/token', 'nope']) {
      expect(() => clientCredentials({ tokenUrl, clientId: 'a', clientSecret: 'topsecret' })).toThrow(
        ClaimsValidationError,
      );
    }
    const error = (() => {
      try {
        clientCredentials({
          tokenUrl: 'https://a.example/t',
          clientId: '',
          clientSecret: 'topsecret',
          timeoutMs: 0,
        });
      } catch (e) {
        return e as ClaimsValidationError;
      }
    })();
    expect(error?.issues.map((i) => i.path)).toEqual(['clientId', 'timeoutMs']);
    expect(renderings(error)).not.toContain('topsecret');
    expect(() =>
      clientCredentials({ tokenUrl: 'http://localhost:8080/t', clientId: 'a', clientSecret: 'b' }),
    ).not.toThrow();
  });
});
