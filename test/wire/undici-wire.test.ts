import { Readable } from 'node:stream';
import { type Dispatcher, MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { ClaimsClient, NotFoundError } from '../../src/index.js';
import { WireFailure } from '../../src/wire/failure.js';
import { undiciWire } from '../../src/wire/undici-wire.js';
import { incident } from '../helpers/fixtures.js';

describe('the default undici wire', () => {
  it('goes through the dispatcher a user gives (here a MockAgent): origin, path, headers, body', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const seen: Array<{ path: string; headers: unknown; body: unknown }> = [];
    agent
      .get('https://claims.example.com')
      .intercept({ path: '/api/v2/incidents', method: 'POST' })
      .reply(201, (opts) => {
        seen.push({ path: opts.path, headers: opts.headers, body: opts.body });
        return { incidentId: 'INC-7' };
      });
    agent
      .get('https://claims.example.com')
      .intercept({
        path: '/api/v2/metadata/incidents?programmeCode=P&policyTypeCode=T&countryCode=GB',
        method: 'GET',
      })
      .reply(404, { message: 'no such form' });

    const client = new ClaimsClient({
      baseUrl: 'https://claims.example.com/api/v2/',
      accessToken: 'tok',
      dispatcher: agent,
    });
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-7' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.path).toBe('/api/v2/incidents');
    expect(seen[0]?.headers).toMatchObject({
      authorization: 'Bearer tok',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(seen[0]?.body))).toEqual(incident);

    await expect(
      client.metadata.incidentFields(
        { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'GB' },
        { maxRetries: 0 },
      ),
    ).rejects.toBeInstanceOf(NotFoundError);
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
});

/**
 * The undici wire over a dispatcher of the user's, here a stand-in whose `request` answers or
 * fails as each test says: how undici's own errors are judged, and what happens to a body the
 * SDK does not read.
 */
describe('the undici wire on a dispatcher of the user’s', () => {
  function wireAnswering(request: () => Promise<unknown>) {
    const wire = undiciWire({ request } as unknown as Dispatcher);
    return wire({
      url: 'https://claims.example.com/api/v2/incidents',
      origin: 'https://claims.example.com',
      path: '/api/v2/incidents',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: new AbortController().signal,
      timeoutMs: 1_500,
    });
  }

  function undiciError(code: string): Error {
    return Object.assign(new Error(`undici says ${code}`), { code });
  }

  it.each(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])(
    '%s is a timeout without progress, the request maybe sent',
    async (code) => {
      const cause = undiciError(code);
      const failure = await wireAnswering(() => Promise.reject(cause)).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(WireFailure);
      expect(failure).toMatchObject({
        kind: 'timeout',
        sent: 'maybe',
        message: `Request timed out: no progress for 1500 ms (${code})`,
        cause,
      });
    },
  );

  it("UND_ERR_CONNECT_TIMEOUT is the dispatcher's connect timeout: nothing was sent", async () => {
    const cause = undiciError('UND_ERR_CONNECT_TIMEOUT');
    const failure = await wireAnswering(() => Promise.reject(cause)).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      kind: 'timeout',
      sent: 'not_connected',
      message: "Connection timed out: the dispatcher's connect timeout passed (UND_ERR_CONNECT_TIMEOUT)",
      cause,
    });
  });

  it('a dispatcher rejecting with undefined still fails as a WireFailure', async () => {
    const failure = await wireAnswering(() => Promise.reject(undefined)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WireFailure);
    expect(failure).toMatchObject({ kind: 'connection', message: 'Connection failed: undefined' });
  });

  it('a 204 that announces a body: read as empty, the body destroyed unread', async () => {
    const body = Readable.from([Buffer.from('hello')]);
    const answer = await wireAnswering(async () => ({
      statusCode: 204,
      headers: { 'content-length': '5' },
      body,
    }));
    await expect(answer.text(100)).resolves.toEqual({ text: '', truncated: false });
    expect(body.destroyed).toBe(true);
  });

  it('a body past the cap: the rest never read, the body destroyed', async () => {
    const body = Readable.from([Buffer.from('0123456789'), Buffer.from('abcdef')]);
    const answer = await wireAnswering(async () => ({ statusCode: 200, headers: {}, body }));
    await expect(answer.text(4)).resolves.toEqual({ text: '0123', truncated: true });
    expect(body.destroyed).toBe(true);
  });
});
