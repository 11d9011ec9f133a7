/**
 * The two stand-ins for tests give one answer: the same request to the msw handlers and to
 * the sandbox's server gets the same status, body and headers (ids aside), size limits and
 * faults included. Users' unit tests (msw) and integration tests (the server) see one API.
 */
import { setupServer } from 'msw/node';
import { fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimsApiError, ClaimsClient, outcomeOf } from '../../src/index.js';
import {
  claimsHandlers,
  createSandbox,
  SANDBOX_MSW_BASE_URL,
  type Sandbox,
  type SandboxCore,
} from '../../src/testing/index.js';
import { homeIncident } from './helpers.js';

const TOKEN = 'agreement-token';
const LIMITS = { maxIncidents: 8 };

interface Init {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  token?: string | null;
}

interface Seen {
  status: number;
  body: string;
  headers: Record<string, string | null>;
}

/** Ids and request ids differ between the two: everything else must not. */
const normalise = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>');
const COMPARED_HEADERS = ['content-type', 'allow', 'www-authenticate', 'retry-after', 'cache-control'];

async function read(res: Response | Awaited<ReturnType<typeof undiciFetch>>): Promise<Seen> {
  let body: string;
  try {
    body = normalise(await res.text());
  } catch {
    body = '<the body failed>';
  }
  return {
    status: res.status,
    body,
    headers: Object.fromEntries(COMPARED_HEADERS.map((h) => [h, res.headers.get(h)])),
  };
}

describe('msw handlers and the sandbox server agree', () => {
  let sandbox: Sandbox;
  let mswCore: SandboxCore;
  const server = setupServer();

  beforeAll(async () => {
    sandbox = await createSandbox({ token: TOKEN, limits: LIMITS });
    const handlers = await claimsHandlers({ token: TOKEN, limits: LIMITS });
    mswCore = handlers.sandbox;
    server.use(...handlers);
    server.listen({ onUnhandledRequest: 'error' });
    for (const core of [sandbox.core, mswCore]) core.createWebhook({ url: 'http://127.0.0.1:9/hook' });
  });
  afterAll(async () => {
    server.close();
    await sandbox.close();
  });

  /** The same request to both, one after the other; resolves to what each answered (or that the request failed). */
  async function both(path: string, init: Init = {}): Promise<[Seen | string, Seen | string]> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
    const request = { method: init.method ?? 'GET', headers, body: init.body };
    const viaMsw = await globalThis
      .fetch(`${SANDBOX_MSW_BASE_URL}${path}`, request as RequestInit)
      .then(read, (e: Error) => `request failed (${e.name})`);
    // undici's own fetch: msw does not see it, so this one reaches the real server.
    const viaServer = await undiciFetch(`${sandbox.url}${path}`, request as never).then(
      read,
      (e: Error) => `request failed (${e.name})`,
    );
    return [viaMsw, viaServer];
  }

  async function expectAgreement(
    path: string,
    init: Init = {},
    expectedStatus?: number,
  ): Promise<Seen | string> {
    const [msw, real] = await both(path, init);
    expect(msw).toEqual(real);
    if (expectedStatus !== undefined) expect((msw as Seen).status).toBe(expectedStatus);
    return msw;
  }

  const json = (value: unknown, method = 'POST'): Init => ({
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  const multipart = (name: string) => ({
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=xx' },
    body: `--xx\r\nContent-Disposition: form-data; name="${name}"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--xx--\r\n`,
  });

  it.each([
    ['GET /metadata/programmes', '/metadata/programmes', {}, 200],
    [
      'GET /metadata/incidents',
      '/metadata/incidents?programmeCode=PRG-HOME&policyTypeCode=HOME-STD&countryCode=gb',
      {},
      200,
    ],
    ['a missing query parameter', '/metadata/incidents?programmeCode=PRG-HOME', {}, 400],
    ['an unknown form', '/metadata/incidents?programmeCode=NOPE&policyTypeCode=X&countryCode=GB', {}, 404],
    ['POST /incidents', '/incidents', json(homeIncident), 201],
    ['a path in another case', '/INCIDENTS', json(homeIncident), 201],
    [
      'a body that is not JSON',
      '/incidents',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' },
      400,
    ],
    [
      'a body of the wrong type',
      '/incidents',
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' },
      415,
    ],
    [
      'extended fields refused',
      '/incidents',
      json({
        ...homeIncident,
        extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Meteor' }],
      }),
      422,
    ],
    ['a missing field', '/incidents', json({ ...homeIncident, description: undefined }), 422],
    ['no token', '/incidents', { ...json(homeIncident), token: null }, 401],
    ['a wrong token', '/incidents', { ...json(homeIncident), token: 'wrong' }, 401],
    ['a wrong method', '/incidents', {}, 405],
    ['an unknown path', '/nowhere', {}, 404],
    ['bad percent-encoding', '/incidents/%E0%A4%A/events', json({}), 400],
    [
      'events of an unknown incident',
      '/incidents/nope/events',
      json({ eventType: 'E', category: 'C', detail: 'd' }),
      404,
    ],
    ['an upload', '/attachments', multipart(''), 201],
    ['an upload with a part name', '/attachments', multipart('file'), 400],
    ['an upload that is not multipart', '/attachments', json({}), 415],
    ['PATCH /webhooks/1', '/webhooks/1', json({ isActive: false }, 'PATCH'), 200],
    ['a webhook id that is not a number', '/webhooks/abc', json({}, 'PATCH'), 400],
    [
      'POST /webhooks/1/subscriptions',
      '/webhooks/1/subscriptions',
      json({ webhookEvent: 'New Event', name: 'one' }),
      201,
    ],
    [
      'a subscription name taken',
      '/webhooks/1/subscriptions',
      json({ webhookEvent: 'New Event', name: 'one' }),
      409,
    ],
    ['GET /webhooks/1/subscriptions', '/webhooks/1/subscriptions', {}, 200],
    [
      'an unsupported filter',
      '/webhooks/1/subscriptions',
      json({ webhookEvent: 'New Event', filters: { fields: [{ name: 'x', operator: 'like', value: 'y' }] } }),
      422,
    ],
  ] as Array<[string, string, Init, number]>)('%s', async (_name, path, init, status) => {
    await expectAgreement(path, init, status);
  });

  describe('size limits, as the SDK sees them', () => {
    /** The same call through the SDK on each stand-in: msw (through fetch) and the server (the default wire). */
    async function sdkBoth(call: (client: ClaimsClient) => Promise<unknown>, token = TOKEN) {
      const viaMsw = new ClaimsClient({
        baseUrl: SANDBOX_MSW_BASE_URL,
        accessToken: token,
        maxRetries: 0,
        fetch: (url, init) => globalThis.fetch(url, init),
      });
      const viaServer = new ClaimsClient({ baseUrl: sandbox.url, accessToken: token, maxRetries: 0 });
      const outcome = async (client: ClaimsClient, base: string) => {
        const error = await call(client).then(
          () => undefined,
          (e: unknown) => e as ClaimsApiError,
        );
        await client.close();
        return (
          error && {
            name: error.name,
            status: error.status,
            outcome: outcomeOf(error),
            message: error.message.replace(base, '<base>'),
          }
        );
      };
      const msw = await outcome(viaMsw, SANDBOX_MSW_BASE_URL);
      expect(await outcome(viaServer, sandbox.url)).toEqual(msw);
      return msw;
    }

    it('a create of 102 MiB: 413 from both, outcome rejected', async () => {
      const description = 'x'.repeat(102 * 1024 * 1024);
      const seen = await sdkBoth((c) =>
        c.incidents.create({ ...homeIncident, description }, { checkExtendedFields: false }),
      );
      expect(seen).toEqual({
        name: 'ClaimsApiError',
        status: 413,
        outcome: 'rejected',
        message: '413 POST <base>/incidents: The body is larger than 10485760 bytes',
      });
    }, 60_000);

    it('an upload over its limit: 413 from both', async () => {
      const data = new Uint8Array(4 * 25 * 1024 * 1024 + 1024 * 1024);
      const seen = await sdkBoth((c) => c.attachments.upload({ data, filename: 'huge.bin' }));
      expect(seen).toMatchObject({ status: 413, outcome: 'rejected' });
    }, 60_000);

    it('a wrong token and a large body: 401 from both (the token comes first)', async () => {
      const description = 'x'.repeat(20 * 1024 * 1024);
      const seen = await sdkBoth(
        (c) => c.incidents.create({ ...homeIncident, description }, { checkExtendedFields: false }),
        'wrong',
      );
      expect(seen).toMatchObject({ status: 401, outcome: 'rejected' });
    }, 60_000);
  });

  describe('faults and state', () => {
    const queue = (fault: Parameters<SandboxCore['faults']['next']>[0]) => {
      for (const core of [sandbox.core, mswCore]) core.faults.next(fault);
    };

    it('an error status with Retry-After and a body of its own', async () => {
      queue({
        route: 'GET /metadata/programmes',
        fault: { status: 503, retryAfter: 7, body: 'down for a bit' },
      });
      const seen = await expectAgreement('/metadata/programmes', {}, 503);
      expect(seen).toMatchObject({
        body: 'down for a bit',
        headers: { 'retry-after': '7', 'content-type': 'text/plain; charset=utf-8' },
      });
    });

    it('a 2xx fault with a body the client cannot read', async () => {
      queue({ route: 'POST /incidents', fault: { status: 201, body: 'not json' } });
      await expectAgreement('/incidents', json(homeIncident), 201);
    });

    it('a reset: the request fails on both', async () => {
      queue({ route: 'GET /metadata/programmes', fault: { reset: 'before' } });
      expect(await expectAgreement('/metadata/programmes')).toBe('request failed (TypeError)');
      queue({ route: 'POST /incidents', fault: { reset: 'after' } });
      expect(await expectAgreement('/incidents', json(homeIncident))).toBe('request failed (TypeError)');
    });

    it('an answer cut mid-body: the status arrives, the body fails, on both', async () => {
      queue({ route: 'GET /metadata/programmes', fault: { truncate: { afterBytes: 10 } } });
      expect(await expectAgreement('/metadata/programmes')).toMatchObject({
        status: 200,
        body: '<the body failed>',
      });
    });

    it('a dripped answer arrives whole on both', async () => {
      queue({ route: 'GET /metadata/programmes', fault: { drip: { bytes: 200, everyMs: 1 } } });
      const seen = (await expectAgreement('/metadata/programmes', {}, 200)) as Seen;
      expect(JSON.parse(seen.body)).toEqual(sandbox.metadata.programmes);
    });

    it('POST /_sandbox/faults, and a full sandbox', async () => {
      await expectAgreement(
        '/_sandbox/faults',
        { ...json({ route: 'POST /incidents', fault: { delayMs: 1 } }), token: null },
        201,
      );
      await expectAgreement('/_sandbox/faults', { method: 'DELETE', token: null }, 200);
      // Both hold the same number of incidents by now; fill both to the limit.
      while (sandbox.incidents.length < LIMITS.maxIncidents)
        await expectAgreement('/incidents', json(homeIncident), 201);
      expect(mswCore.incidents).toHaveLength(LIMITS.maxIncidents);
      await expectAgreement('/incidents', json(homeIncident), 403);
    });

    it('both recorded the same calls', () => {
      const summary = (core: SandboxCore) =>
        core.calls.map((c) => [c.route, c.status, c.processed, c.fault ?? null]);
      expect(summary(mswCore)).toEqual(summary(sandbox.core));
    });
  });
});
