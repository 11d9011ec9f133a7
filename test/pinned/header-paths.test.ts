/**
 * The transport builds headers two ways: a shared frozen set (static token, no per-call headers,
 * no upload) and a per-request copy (token function, uploads, per-call headers). Both must carry
 * the SDK's User-Agent and Accept, the client's `headers`, the bearer token and, for a JSON
 * body, `content-type: application/json`. Checked on a real server, on both wires.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { VERSION } from '../../src/version.js';
import { WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';
import { json, type Recorded, useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();

function expectBase(req: Recorded, token: string): void {
  expect(req.headers['user-agent']).toBe(
    `claims-notification-sdk/${VERSION} node/${process.versions.node} portal/2`,
  );
  expect(req.headers.accept).toBe('application/json');
  expect(req.headers['x-tenant']).toBe('acme');
  expect(req.headers.authorization).toBe(`Bearer ${token}`);
}

const PATHS = [
  {
    path: 'static token (shared header set)',
    token: 'static-tok' as string | (() => Promise<string>),
    call: {},
  },
  { path: 'token function', token: async () => 'fn-tok', call: {} },
  { path: 'per-call headers', token: 'static-tok', call: { headers: { 'x-call': 'c1' } } },
] as const;

describe.each(WIRES)('request headers, $name', ({ options }) => {
  describe.each(PATHS)('$path', ({ token, call }) => {
    const expected = typeof token === 'string' ? token : 'fn-tok';
    const client = () =>
      new ClaimsClient({
        baseUrl: server.url,
        accessToken: token,
        headers: { 'X-Tenant': 'acme' },
        userAgent: 'portal/2',
        ...options,
      });

    it('a JSON POST carries the base headers and content-type: application/json', async () => {
      server.handle((_r, res) => json(res, 201, { incidentId: 'i1' }));
      await client().incidents.create(incident, call);
      const [req] = server.requests as [Recorded];
      expectBase(req, expected);
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.json).toEqual(incident);
      if ('headers' in call) expect(req.headers['x-call']).toBe('c1');
    });

    it('a GET carries the base headers and no content-type', async () => {
      server.handle((_r, res) => json(res, 200, []));
      await client().subscriptions.list(3, call);
      const [req] = server.requests as [Recorded];
      expectBase(req, expected);
      expect(req.headers['content-type']).toBeUndefined();
    });

    it('an upload carries the base headers and its multipart content-type', async () => {
      server.handle((_r, res) => json(res, 201, [{ filename: 'a.txt', attachmentId: 'a1' }]));
      await client().attachments.upload({ data: Buffer.from('hello'), filename: 'a.txt' }, call);
      const [req] = server.requests as [Recorded];
      expectBase(req, expected);
      expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    });
  });

  it('per-call headers win over the client headers, case-insensitively', async () => {
    const c = new ClaimsClient({
      baseUrl: server.url,
      accessToken: async () => 't',
      headers: { 'X-Tenant': 'acme' },
      ...options,
    });
    server.handle((_r, res) => json(res, 200, []));
    await c.subscriptions.list(3, { headers: { 'x-tenant': 'other' } });
    expect(server.requests[0]?.headers['x-tenant']).toBe('other');
  });
});
