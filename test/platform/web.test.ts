/** The edge entry's client: `fetch` is its only wire, by default the runtime's global one. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ClaimsClient,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  NotFoundError,
  outcomeOf,
} from '../../src/edge.js';
import { VERSION } from '../../src/version.js';
import { failure, httpFaultServer, scenario } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';
import { json, type Recorded, useRecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'tok_edge';
const server = useRecordingServer();

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('edge ClaimsClient', () => {
  it('sends through globalThis.fetch, looked up on each call (a stub set after the client is built is used)', async () => {
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });
    const realFetch = globalThis.fetch;
    const spy = vi.fn((url: string, init: RequestInit) => realFetch(url, init));
    vi.stubGlobal('fetch', spy);
    server.handle((_req, res) => json(res, 201, { incidentId: 'INC-7' }));
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-7' });
    expect(spy).toHaveBeenCalledTimes(1);
    const [req] = server.requests as [Recorded];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/incidents');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.json).toEqual(incident);
    expect(req.headers['user-agent']).toMatch(/^claims-notification-sdk\/\S+ \S+$/);
  });

  it('answers errors with the same classes as the Node entry', async () => {
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });
    server.handle((_req, res) => json(res, 404, { message: 'no such incident' }));
    const error = await client.events
      .create('INC-404', { eventType: 'Event Log Entry', category: 'Other', detail: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).status).toBe(404);
  });

  it('without a global fetch and no fetch option: a ClaimsError that says to give one; nothing is sent', async () => {
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    vi.stubGlobal('fetch', undefined);
    const error = await client.metadata.programmes().catch((e: unknown) => e);
    // The SDK's own refusal, not a connection that failed: a ClaimsError, in these words alone.
    expect(error).toBeInstanceOf(ClaimsError);
    expect(error).not.toBeInstanceOf(ClaimsConnectionError);
    expect((error as Error).message).toBe(
      'This runtime has no global fetch: give the client one with the `fetch` option',
    );
    expect(outcomeOf(error)).toBe('not_sent');
    expect(server.requests).toHaveLength(0);
  });

  it('an upload web stream that stops times out after timeoutMs on the edge build too: unknown, sent once', async () => {
    await scenario(
      // Reads what comes and never answers: only the stalled source can end the call.
      httpFaultServer((_hit, req) => void req.resume(), { readBody: false }),
      async (stalled) => {
        const client = new ClaimsClient({ baseUrl: stalled.url, accessToken: TOKEN, timeoutMs: 400 });
        const data = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new Uint8Array(1024).fill(0x61));
          },
        });
        const { error, ms } = await failure(() =>
          client.attachments.upload({ data, filename: 'stalled.bin' }),
        );
        expect(error).toBeInstanceOf(ClaimsTimeoutError);
        expect((error as Error).message).toContain('no progress for 400 ms');
        expect(outcomeOf(error)).toBe('unknown');
        expect(ms).toBeGreaterThanOrEqual(350);
        expect(stalled.hits).toHaveLength(1);
      },
    );
  });

  it('uses the fetch it is given instead', async () => {
    const given = vi.fn(
      async () => new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } }),
    );
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, fetch: given });
    await expect(client.subscriptions.list(7)).resolves.toEqual([]);
    expect(given).toHaveBeenCalledTimes(1);
    expect(server.requests).toHaveLength(0);
  });

  it("sends an upload with redirect 'manual' (workerd refuses 'error'), the body as a web stream", async () => {
    const seen: RequestInit[] = [];
    const given = vi.fn(async (_url: string, init: RequestInit) => {
      seen.push(init);
      await new Response(init.body).arrayBuffer();
      return Response.json([{ filename: 'a.txt', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' }]);
    });
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, fetch: given });
    await client.attachments.upload({ data: new Uint8Array([1, 2, 3]), filename: 'a.txt' });
    expect(seen[0]?.redirect).toBe('manual');
    expect(seen[0]?.body).toBeInstanceOf(ReadableStream);
  });

  it('refuses the Node-only dispatcher and tls options, naming each, instead of sending without them', () => {
    const attempt = (options: Record<string, unknown>) => {
      try {
        new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, ...options });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const error = attempt({ dispatcher: { request: () => undefined }, tls: { cert: 'PEM' } });
    expect(error).toBeInstanceOf(ClaimsValidationError);
    const issues = (error as ClaimsValidationError).issues;
    expect(issues.map((i) => i.path)).toEqual(['dispatcher', 'tls']);
    expect(issues[0]?.message).toMatch(/needs Node.*give your own fetch instead/);
    expect(issues[1]?.message).toMatch(/needs Node.*set up mutual TLS in the runtime/);
    // Also with a fetch: one reason per option, not the Node entry's "cannot be combined with fetch".
    const withFetch = attempt({ tls: {}, fetch: globalThis.fetch }) as ClaimsValidationError;
    expect(withFetch.issues).toEqual([{ path: 'tls', message: expect.stringMatching(/^needs Node/) }]);
    expect(server.requests).toHaveLength(0);
  });

  it('no options at all: the required ones named, no TypeError from the connection options', () => {
    let error: unknown;
    try {
      new ClaimsClient(undefined as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual(['baseUrl', 'accessToken']);
  });

  it('close() and await using do nothing: the client keeps working, as the runtime owns the connections', async () => {
    server.handle((_req, res) => json(res, 200, []));
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });
    await expect(client.close()).resolves.toBeUndefined();
    await expect(client.subscriptions.list(7)).resolves.toEqual([]);
    {
      await using scoped = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });
      await expect(scoped.subscriptions.list(8)).resolves.toEqual([]);
    }
    await expect(client.subscriptions.list(9)).resolves.toEqual([]);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/webhooks/7/subscriptions',
      '/webhooks/8/subscriptions',
      '/webhooks/9/subscriptions',
    ]);
  });
});

describe('the runtime the edge client names in its user-agent', () => {
  /** The user-agent a freshly loaded edge entry sends, with `host` set on globalThis first. */
  async function userAgentWith(host: Record<string, unknown>): Promise<string | null> {
    for (const [name, value] of Object.entries(host)) vi.stubGlobal(name, value);
    vi.resetModules();
    const edge = await import('../../src/edge.js');
    let sent: string | null = null;
    const fetch = async (_url: string, init: RequestInit) => {
      sent = new Headers(init.headers).get('user-agent');
      return Response.json([]);
    };
    await new edge.ClaimsClient({
      baseUrl: 'https://claims.example',
      accessToken: TOKEN,
      fetch,
    }).subscriptions.list(1);
    return sent;
  }
  const sdk = `claims-notification-sdk/${VERSION}`;

  it('Deno and Bun by name and version, before any navigator', async () => {
    const navigator = { userAgent: 'Cloudflare-Workers' };
    expect(await userAgentWith({ Deno: { version: { deno: '2.1.4' } }, navigator })).toBe(
      `${sdk} deno/2.1.4`,
    );
    expect(await userAgentWith({ Deno: undefined, Bun: { version: '1.2.0' }, navigator })).toBe(
      `${sdk} bun/1.2.0`,
    );
  });

  it('a Deno or Bun without a version is named by its navigator', async () => {
    const navigator = { userAgent: 'Cloudflare-Workers' };
    expect(await userAgentWith({ Deno: {}, Bun: {}, navigator })).toBe(`${sdk} Cloudflare-Workers`);
    expect(await userAgentWith({ Deno: { version: {} }, Bun: {}, navigator })).toBe(
      `${sdk} Cloudflare-Workers`,
    );
  });

  it('the runtime’s own navigator.userAgent when it is one short printable token, else "edge"', async () => {
    const agent = (userAgent: unknown) =>
      userAgentWith({ Deno: undefined, Bun: undefined, navigator: { userAgent } });
    expect(await agent('Cloudflare-Workers')).toBe(`${sdk} Cloudflare-Workers`);
    expect(await agent('x'.repeat(40))).toBe(`${sdk} ${'x'.repeat(40)}`);
    expect(await agent('x'.repeat(41))).toBe(`${sdk} edge`);
    expect(await agent('')).toBe(`${sdk} edge`);
    expect(await agent('Mozilla/5.0 (X11; Linux x86_64)')).toBe(`${sdk} edge`);
    expect(await agent('Workers\u00e9')).toBe(`${sdk} edge`);
    expect(await agent(42)).toBe(`${sdk} edge`);
    expect(await userAgentWith({ Deno: undefined, Bun: undefined, navigator: undefined })).toBe(
      `${sdk} edge`,
    );
  });
});
