/**
 * One rule for the API and the `/_sandbox/` routes alike: only loopback Host names (plus
 * `allowedHosts`), and no request a web page of another origin makes. A page that rebinds its
 * DNS name to 127.0.0.1 still sends its own name as Host; a page elsewhere sends its Origin.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { HostRule } from '../../src/testing/node/host-rule.js';

/** One request with the headers given as they are (Host included), over node:http. */
function send(
  sandbox: Sandbox,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(sandbox.url);
    const req = request(
      { host: '127.0.0.1', port, path, method, headers, setHost: !('host' in headers) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the Host rule', () => {
  let sandbox: Sandbox;
  let port: string;
  beforeAll(async () => {
    sandbox = await createSandbox();
    port = new URL(sandbox.url).port;
  });
  afterAll(() => sandbox.close());
  const auth = () => ({ authorization: `Bearer ${sandbox.token}` });

  it.each([
    '127.0.0.1:PORT',
    '127.0.0.1',
    '127.200.3.4:PORT',
    'localhost:PORT',
    'LocalHost',
    'inspector.localhost:PORT',
    '[::1]:PORT',
  ])('serves Host %s, on the API and under /_sandbox/', async (host) => {
    const headers = { host: host.replace('PORT', port) };
    expect((await send(sandbox, '/metadata/programmes', { ...headers, ...auth() })).status).toBe(200);
    expect((await send(sandbox, '/_sandbox/state', headers)).status).toBe(200);
  });

  it.each([
    'attacker.example',
    'attacker.example:PORT',
    '127.0.0.1.nip.io:PORT',
    'localhost.attacker.example',
    'attacker.example@127.0.0.1',
    '0.0.0.0:PORT',
    '10.0.0.1:PORT',
    '[::ffff:a00:1]',
    '',
  ])('refuses Host %j with 403 host_not_allowed, before anything else', async (host) => {
    const before = sandbox.calls.length;
    sandbox.faults.next({ route: 'GET /metadata/programmes', fault: { status: 500 } });
    const headers = { host: host.replace('PORT', port) };
    for (const path of ['/metadata/programmes', '/_sandbox/', '/_sandbox/state', '/_sandbox/events']) {
      const answer = await send(sandbox, path, { ...headers, ...auth() });
      expect(answer.status, path).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({
        code: 'host_not_allowed',
        message:
          'This sandbox answers only requests to localhost, a loopback address or a name in its allowedHosts option',
      });
    }
    const reset = await send(sandbox, '/_sandbox/reset', headers, 'POST');
    expect(reset.status).toBe(403);
    expect(sandbox.calls.length).toBe(before);
    expect(sandbox.faults.pending).toHaveLength(1);
    sandbox.faults.clear();
  });

  it('refuses a request without a Host (HTTP/1.0)', () => {
    expect(new HostRule().refusal('GET', {})?.code).toBe('host_not_allowed');
  });

  it('serves the names in allowedHosts: exact, or a leading dot for a domain and its names', () => {
    const rule = new HostRule(['Sandbox.Test', '.corp.test']);
    const allowed = (host: string) => rule.refusal('GET', { host }) === undefined;
    expect(
      ['sandbox.test:8080', 'SANDBOX.TEST', 'corp.test', 'a.corp.test', 'a.b.corp.test:1'].every(allowed),
    ).toBe(true);
    expect(['xsandbox.test', 'sandbox.test.evil', 'xcorp.test', 'other.test'].some(allowed)).toBe(false);
    const any = new HostRule(true);
    expect(any.refusal('GET', { host: 'anything.example' })).toBeUndefined();
    expect(any.refusal('POST', { host: 'anything.example', origin: 'http://elsewhere.example' })?.code).toBe(
      'cross_origin',
    );
  });

  it('serves a sandbox started with allowedHosts by that name', async () => {
    const named = await createSandbox({ allowedHosts: ['sandbox.test'] });
    try {
      const headers = {
        host: `sandbox.test:${new URL(named.url).port}`,
        authorization: `Bearer ${named.token}`,
      };
      expect((await send(named, '/metadata/programmes', headers)).status).toBe(200);
      expect((await send(named, '/metadata/programmes', { ...headers, host: 'other.test' })).status).toBe(
        403,
      );
    } finally {
      await named.close();
    }
  });
});

describe('the Origin rule', () => {
  let sandbox: Sandbox;
  let origin: string;
  beforeAll(async () => {
    sandbox = await createSandbox();
    origin = sandbox.url;
  });
  afterAll(() => sandbox.close());

  const fault = JSON.stringify({ route: 'POST /incidents', fault: { status: 500 } });
  const json = { 'content-type': 'application/json' };

  it('serves its own origin, and requests no browser made', async () => {
    expect((await send(sandbox, '/_sandbox/faults', { ...json, origin }, 'POST', fault)).status).toBe(201);
    expect(
      (await send(sandbox, '/_sandbox/faults', { ...json, 'sec-fetch-site': 'same-origin' }, 'POST', fault))
        .status,
    ).toBe(201);
    expect((await send(sandbox, '/_sandbox/faults', json, 'POST', fault)).status).toBe(201);
    expect((await send(sandbox, '/_sandbox/state', { 'sec-fetch-site': 'none' })).status).toBe(200);
    sandbox.faults.clear();
  });

  it.each([
    [{ origin: 'http://attacker.example' }, 'POST'],
    [{ origin: 'null' }, 'POST'],
    [{ origin: 'https://127.0.0.1:1' }, 'POST'],
    [{ 'sec-fetch-site': 'cross-site' }, 'POST'],
    [{ 'sec-fetch-site': 'same-site' }, 'POST'],
    [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }, 'GET'],
    [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, 'POST'],
  ])('refuses %j (%s) with 403 cross_origin, on the API and under /_sandbox/', async (headers, method) => {
    const control = await send(
      sandbox,
      method === 'POST' ? '/_sandbox/faults' : '/_sandbox/state',
      { ...json, ...headers },
      method,
      method === 'POST' ? fault : undefined,
    );
    expect(control.status).toBe(403);
    expect(JSON.parse(control.body).code).toBe('cross_origin');
    const api = await send(
      sandbox,
      method === 'POST' ? '/incidents' : '/metadata/programmes',
      { ...json, ...headers, authorization: `Bearer ${sandbox.token}` },
      method,
      method === 'POST' ? '{}' : undefined,
    );
    expect([api.status, JSON.parse(api.body).code]).toEqual([403, 'cross_origin']);
    expect(sandbox.faults.pending).toEqual([]);
  });

  it('serves a link to the page from elsewhere (a top-level navigation changes nothing)', async () => {
    const page = await send(sandbox, '/_sandbox/', {
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'navigate',
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Claims sandbox inspector</title>');
  });
});
