/**
 * `sandbox.calls`: every call the sandbox answered, with what it received and answered, and
 * never a secret: the token (in any spelling), tokens its OAuth endpoint issued, webhooks'
 * header values, and headers or JSON fields named like credentials.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_VIEW_CHARS, SandboxSecrets } from '../../src/testing/core/secrets.js';
import { createSandbox, SandboxCore, type SandboxRequest } from '../../src/testing/index.js';
import { homeIncident, raw } from './helpers.js';

function request(core: SandboxCore, init: Partial<SandboxRequest> & { path: string }) {
  return core.handle({
    method: 'POST',
    query: new URLSearchParams(),
    body: new Uint8Array(),
    ...init,
    headers: { authorization: `Bearer ${core.token}`, ...init.headers },
  });
}

describe('sandbox.calls', () => {
  it('records each call: route, path, status, processed, timing, headers and bodies', async () => {
    const sandbox = await createSandbox();
    try {
      const created = await raw(sandbox, 'POST', '/Incidents', { json: homeIncident });
      const { incidentId } = created.body as { incidentId: string };
      await raw(sandbox, 'POST', `/incidents/${incidentId}/events`, {
        json: { eventType: 'E', category: 'C', detail: 'd' },
      });
      await raw(sandbox, 'GET', '/metadata/programmes?x=1');
      await raw(sandbox, 'POST', '/nowhere', { json: {} });
      const [create, event, list, missing] = sandbox.calls;
      expect(create).toMatchObject({
        id: 1,
        method: 'POST',
        route: 'POST /incidents',
        path: '/Incidents',
        status: 201,
        processed: true,
        request: { headers: { authorization: 'Bearer [REDACTED]', 'content-type': 'application/json' } },
        response: { headers: { 'content-type': 'application/json; charset=utf-8' } },
      });
      expect(create?.fault).toBeUndefined();
      expect(Date.parse(create?.at ?? '')).toBeGreaterThan(Date.now() - 60_000);
      expect(create?.ms).toBeGreaterThanOrEqual(0);
      expect(JSON.parse(create?.request.body.text ?? '')).toEqual(homeIncident);
      expect(create?.request.body.bytes).toBe(JSON.stringify(homeIncident).length);
      expect(JSON.parse(create?.response?.body.text ?? '')).toEqual({ incidentId });
      expect(event).toMatchObject({
        id: 2,
        route: 'POST /incidents/{incidentId}/events',
        path: `/incidents/${incidentId}/events`,
      });
      expect(list).toMatchObject({
        route: 'GET /metadata/programmes',
        path: '/metadata/programmes',
        status: 200,
        request: { body: { bytes: 0 } },
      });
      expect(missing).toMatchObject({ route: 'POST /nowhere', status: 404, processed: false });
      // A copy: changing it changes nothing.
      (create as { status: number }).status = 500;
      expect(sandbox.calls[0]?.status).toBe(201);
    } finally {
      await sandbox.close();
    }
  });

  it('keeps the newest limits.maxCalls calls', async () => {
    const core = new SandboxCore({ limits: { maxCalls: 3 } });
    for (let i = 0; i < 5; i++) await request(core, { method: 'GET', path: '/metadata/programmes' });
    expect(core.calls.map((c) => c.id)).toEqual([3, 4, 5]);
    expect(core.dropped.calls).toBe(2);
    core.reset();
    expect(core.calls).toEqual([]);
    await request(core, { method: 'GET', path: '/metadata/programmes' });
    expect(core.calls.map((c) => c.id)).toEqual([6]);
  });

  it('blanks credential headers and fields, webhook header values and the OAuth secret and tokens', async () => {
    const core = new SandboxCore({
      token: 'tok-Aa+/=1',
      oauth: { clientId: 'cid', clientSecret: 'client-s3cret' },
    });
    const { webhookId } = core.createWebhook({
      url: 'http://127.0.0.1:9/hook',
      headerName: 'X-Partner-Check',
      headerValue: 'hv-value-1',
    });
    await request(core, {
      method: 'PATCH',
      path: `/webhooks/${webhookId}`,
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'k1',
        'ocp-apim-subscription-key': 'k2',
        'x-partner-check': 'hv-value-1',
        cookie: 'a=b',
        'x-note': 'carries tok-Aa+/=1 and hv-value-1',
      },
      body: Buffer.from(
        JSON.stringify({ headerValue: 'hv-value-2', url: 'http://127.0.0.1:9/hook?token=abc&x=1' }),
      ),
    });
    const token = await core.handle({
      method: 'POST',
      path: '/oauth/token',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from('grant_type=client_credentials&client_id=cid&client_secret=client-s3cret'),
    });
    const issued = JSON.parse(token.body ?? '{}').access_token as string;
    await core.handle({
      method: 'GET',
      path: '/metadata/programmes',
      query: new URLSearchParams(),
      headers: { authorization: `Bearer ${issued}`, 'x-echo': issued },
      body: new Uint8Array(),
    });
    const [patch, oauth, get] = core.calls;
    expect(patch?.request.headers).toEqual({
      authorization: 'Bearer [REDACTED]',
      'content-type': 'application/json',
      'x-api-key': '[REDACTED]',
      'ocp-apim-subscription-key': '[REDACTED]',
      'x-partner-check': '[REDACTED]',
      cookie: '[REDACTED]',
      'x-note': 'carries [REDACTED] and [REDACTED]',
    });
    expect(JSON.parse(patch?.request.body.text ?? '')).toEqual({
      headerValue: '[REDACTED]',
      url: 'http://127.0.0.1:9/hook?token=abc&x=1',
    });
    expect(JSON.parse(patch?.response?.body.text ?? '')).toMatchObject({
      headerName: 'X-Partner-Check',
      headerValue: '[REDACTED]',
    });
    expect(oauth?.request.body.text).toBe(
      'grant_type=client_credentials&client_id=cid&client_secret=[REDACTED]',
    );
    expect(JSON.parse(oauth?.response?.body.text ?? '')).toMatchObject({
      access_token: '[REDACTED]',
      token_type: 'Bearer',
    });
    expect(get?.request.headers).toMatchObject({
      authorization: 'Bearer [REDACTED]',
      'x-echo': '[REDACTED]',
    });
    const all = JSON.stringify(core.calls);
    for (const secret of ['tok-Aa+/=1', 'hv-value-1', 'hv-value-2', 'client-s3cret', issued, 'k1', 'k2']) {
      expect(all).not.toContain(secret);
    }
  });

  it('never shows the token, whatever it is and wherever it is echoed (header, JSON, text, URL-encoded)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[\x21-\x7e]{8,40}$/),
        fc.constantFrom('json', 'text', 'encoded'),
        async (token, how) => {
          const core = new SandboxCore({ token });
          const text = how === 'encoded' ? encodeURIComponent(token) : token;
          const body =
            how === 'json' ? JSON.stringify({ note: token, list: [token] }) : `before ${text} after`;
          await request(core, {
            path: '/incidents',
            headers: {
              'content-type': how === 'json' ? 'application/json' : 'text/plain',
              'x-trace': `a ${token} b`,
            },
            body: Buffer.from(body),
          });
          const shown = JSON.stringify(core.calls);
          expect(shown).not.toContain(JSON.stringify(token).slice(1, -1));
          expect(shown).not.toContain(encodeURIComponent(token));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('bodies as shown', () => {
  const secrets = new SandboxSecrets('the-sandbox-token-12345', () => []);

  it('lists multipart parts, does not print binary, cuts long text without leaking a token at the cut', () => {
    const multipart =
      '--b\r\nContent-Disposition: form-data; name=""; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--\r\n';
    expect(secrets.body(Buffer.from(multipart), 'multipart/form-data; boundary=b')).toEqual({
      bytes: multipart.length,
      parts: [{ name: '', filename: 'a.txt', contentType: 'text/plain', bytes: 5 }],
    });
    expect(secrets.body(Buffer.from('not multipart at all'), 'multipart/form-data; boundary=b')).toEqual({
      bytes: 20,
      text: 'not multipart at all',
    });
    expect(secrets.body(Buffer.from([0, 1, 2, 255, 254]), 'application/octet-stream')).toEqual({ bytes: 5 });
    expect(secrets.body(undefined)).toEqual({ bytes: 0 });
    expect(secrets.body('')).toEqual({ bytes: 0 });

    const long = `${'x'.repeat(MAX_VIEW_CHARS - 5)}the-sandbox-token-12345${'y'.repeat(100)}`;
    const view = secrets.body(Buffer.from(long), 'text/plain');
    expect(view.truncated).toBe(true);
    expect(view.text).toHaveLength(MAX_VIEW_CHARS);
    expect(view.text).not.toContain('the-t');
    expect(view.text?.endsWith('x[REDA')).toBe(true);

    const huge = Buffer.from(`{"a":"${'z'.repeat(2 * 1024 * 1024)}"}`);
    const cut = secrets.body(huge, 'application/json');
    expect(cut).toMatchObject({ bytes: huge.length, truncated: true });
    expect(cut.text).toHaveLength(MAX_VIEW_CHARS);
    const pretty = secrets.body(Buffer.from('{"a":[1,2]}'), 'application/json');
    expect(pretty).toEqual({ bytes: 11, text: '{\n  "a": [\n    1,\n    2\n  ]\n}' });
  });

  it('shows a URL without its password or credential query values', () => {
    expect(secrets.url('https://user:pw@files.example/x?token=abc&sig=1&page=2')).toBe(
      'https://user:REDACTED@files.example/x?token=REDACTED&sig=REDACTED&page=2',
    );
    expect(secrets.url('not a url the-sandbox-token-12345')).toBe('not a url [REDACTED]');
  });
});
