import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCredentials } from '../../src/auth/index.js';
import { ClaimsClient } from '../../src/index.js';
import { claimsHandlers, SANDBOX_MSW_BASE_URL } from '../../src/testing/index.js';
import { useSandbox } from './helpers.js';

const clientId = 'portal';
const clientSecret = 'p@ss word';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the sandbox token endpoint (POST /oauth/token)', () => {
  const ctx = useSandbox({ oauth: { clientId, clientSecret, expiresInS: 120 } });
  const token = (headers: Record<string, string>, body: string) =>
    fetch(`${ctx.sandbox.url}/oauth/token`, { method: 'POST', headers, body });

  it('issues a Bearer token with expires_in that the API then accepts, until revoked', async () => {
    const res = await token(
      { ...FORM, authorization: basic(clientId, clientSecret) },
      'grant_type=client_credentials&scope=a%20b',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 120, scope: 'a b' });
    const issued = body.access_token as string;
    const programmes = () =>
      fetch(`${ctx.sandbox.url}/metadata/programmes`, { headers: { authorization: `Bearer ${issued}` } });
    expect((await programmes()).status).toBe(200);
    ctx.sandbox.core.oauth?.revokeAll();
    expect((await programmes()).status).toBe(401);
  });

  it('accepts the client in the form body (client_secret_post)', async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    });
    expect((await token(FORM, form.toString())).status).toBe(200);
  });

  it('answers RFC 6749 errors: invalid_client, unsupported_grant_type, invalid_request', async () => {
    const wrong = await token(
      { ...FORM, authorization: basic(clientId, 'nope') },
      'grant_type=client_credentials',
    );
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    const grant = await token(
      { ...FORM, authorization: basic(clientId, clientSecret) },
      'grant_type=password',
    );
    expect(grant.status).toBe(400);
    expect(await grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const both = await token(
      { ...FORM, authorization: basic(clientId, clientSecret) },
      `grant_type=client_credentials&client_id=${clientId}&client_secret=x`,
    );
    expect(await both.json()).toMatchObject({ error: 'invalid_request' });
    const json = await token(
      { 'content-type': 'application/json', authorization: basic(clientId, clientSecret) },
      '{}',
    );
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('an expired token is refused with 401', async () => {
    const res = await token(
      { ...FORM, authorization: basic(clientId, clientSecret) },
      'grant_type=client_credentials',
    );
    const { access_token } = (await res.json()) as { access_token: string };
    const realNow = Date.now;
    try {
      Date.now = () => realNow() + 121_000;
      const late = await fetch(`${ctx.sandbox.url}/metadata/programmes`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(late.status).toBe(401);
    } finally {
      Date.now = realNow;
    }
  });

  it('the fixed sandbox token still works beside issued ones', async () => {
    const res = await fetch(`${ctx.sandbox.url}/metadata/programmes`, {
      headers: { authorization: `Bearer ${ctx.sandbox.token}` },
    });
    expect(res.status).toBe(200);
  });
});

describe('the token endpoint through msw (claimsHandlers)', () => {
  let handlers: Awaited<ReturnType<typeof claimsHandlers>>;
  let server: ReturnType<typeof setupServer>;
  beforeAll(async () => {
    handlers = await claimsHandlers({ oauth: { clientId, clientSecret } });
    server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: 'error' });
  });
  afterAll(() => server.close());

  it('a clientCredentials provider and the client both go through msw', async () => {
    const accessToken = clientCredentials({
      tokenUrl: `${SANDBOX_MSW_BASE_URL}/oauth/token`,
      clientId,
      clientSecret,
    });
    const client = new ClaimsClient({
      baseUrl: SANDBOX_MSW_BASE_URL,
      accessToken,
      fetch: (url, init) => globalThis.fetch(url, init),
    });
    await client.metadata.programmes();
    await client.metadata.programmes();
    expect(handlers.sandbox.oauth?.requests).toBe(1);
  });
});
