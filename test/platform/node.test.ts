/**
 * The Node entry's platform: with a `fetch` option, uploads are Node streams turned into web ones;
 * the connection options it refuses.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClaimsClient, ClaimsValidationError } from '../../src/index.js';
import { WIRE_CHOICE } from '../../src/wire/cold-start-wire.js';
import { json, useRecordingServer } from '../helpers/recording-server.js';

describe('Node ClaimsClient with a fetch option', () => {
  it("sends an upload as a web stream with redirect 'error' (undici's fetch then keeps no copy of the body)", async () => {
    const seen: RequestInit[] = [];
    let sent = '';
    const given = vi.fn(async (_url: string, init: RequestInit) => {
      seen.push(init);
      sent = await new Response(init.body).text();
      return Response.json([{ filename: 'a.txt', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' }]);
    });
    const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 't', fetch: given });
    await client.attachments.upload({ data: new TextEncoder().encode('hello'), filename: 'a.txt' });
    expect(seen[0]?.redirect).toBe('error');
    expect(seen[0]?.body).toBeInstanceOf(ReadableStream);
    expect(sent).toContain('\r\n\r\nhello\r\n');
  });
});

describe('Node ClaimsClient: the connection options refused, word for word', () => {
  const base = { baseUrl: 'https://claims.example.com/api', accessToken: 'tok' };
  function issuesOf(options: unknown): Array<{ path: string; message: string }> {
    try {
      new ClaimsClient(options as never);
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(ClaimsValidationError);
      return (error as ClaimsValidationError).issues.map(({ path, message }) => ({ path, message }));
    }
  }
  const NOT_A_DISPATCHER = {
    path: 'dispatcher',
    message: 'must be an undici Dispatcher (Agent, ProxyAgent, MockAgent, ...)',
  };
  const NOT_TLS = { path: 'tls', message: 'must be an object of cert, key, passphrase and ca' };
  const withFetch = (path: string) => ({
    path,
    message: 'applies to the default wire only: it cannot be combined with fetch',
  });
  const TLS_AND_DISPATCHER = {
    path: 'tls',
    message: 'applies to the client’s own dispatcher: set it on your dispatcher instead',
  };

  it('a dispatcher that is not one (an object without request, null, a string)', () => {
    for (const dispatcher of [{}, null, 'undici', { request: 'no' }]) {
      expect(issuesOf({ ...base, dispatcher }), String(dispatcher)).toEqual([NOT_A_DISPATCHER]);
    }
    expect(issuesOf({ ...base, dispatcher: new MockAgent() })).toEqual([]);
  });

  it('tls that is not an object (a file name, null, a number)', () => {
    for (const tls of ['cert.pem', null, 7])
      expect(issuesOf({ ...base, tls }), String(tls)).toEqual([NOT_TLS]);
    expect(issuesOf({ ...base, tls: {} })).toEqual([]);
  });

  it('dispatcher or tls with fetch, each named; tls with a dispatcher of yours', () => {
    const fetch = globalThis.fetch;
    expect(issuesOf({ ...base, dispatcher: new MockAgent(), fetch })).toEqual([withFetch('dispatcher')]);
    expect(issuesOf({ ...base, tls: {}, fetch })).toEqual([withFetch('tls')]);
    expect(issuesOf({ ...base, tls: {}, dispatcher: new MockAgent() })).toEqual([TLS_AND_DISPATCHER]);
    expect(issuesOf({ ...base, tls: 'cert.pem', dispatcher: {}, fetch })).toEqual([
      NOT_A_DISPATCHER,
      NOT_TLS,
      withFetch('dispatcher'),
      withFetch('tls'),
      TLS_AND_DISPATCHER,
    ]);
  });

  it('no options at all: the required ones named, no TypeError from the connection options', () => {
    expect(issuesOf(undefined).map((i) => i.path)).toEqual(['baseUrl', 'accessToken']);
  });
});

describe('Node ClaimsClient: the wire its own connections use (in process; test/wire/cold-start.test.ts runs the built package)', () => {
  const sent: string[] = [];
  const onHttp = () => sent.push('node:http');
  const onUndici = () => sent.push('undici');
  const server = useRecordingServer();
  beforeEach(() => {
    sent.length = 0;
    subscribe('http.client.request.start', onHttp);
    subscribe('undici:request:create', onUndici);
    server.handle((_req, res) => json(res, 200, []));
  });
  afterEach(() => {
    unsubscribe('http.client.request.start', onHttp);
    unsubscribe('undici:request:create', onUndici);
    vi.restoreAllMocks();
  });

  /** 64 calls within one instant (performance.now() held still), then calls until one goes over undici (at most 50). */
  async function busyThenMore(client: ClaimsClient): Promise<void> {
    const now = vi.spyOn(performance, 'now').mockReturnValue(performance.now());
    for (let i = 0; i < 64; i++) await client.subscriptions.list(1);
    now.mockRestore();
    for (let i = 0; i < 50 && !sent.includes('undici'); i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await client.subscriptions.list(1);
    }
  }

  it('by default node:http, and undici once the client is busy (64 calls within a second)', async () => {
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    await client.subscriptions.list(1);
    expect(sent).toEqual(['node:http']);
    await busyThenMore(client);
    // The first 64 calls make it busy; undici, loaded on a later turn, takes the calls after.
    expect(sent.slice(0, 64)).toEqual(Array(64).fill('node:http'));
    expect(sent.at(-1)).toBe('undici');
    await client.close();
  });

  it("with the 'http' choice it stays on node:http however busy; with 'undici' undici from the first call", async () => {
    const http = new ClaimsClient({
      baseUrl: server.url,
      accessToken: 'tok',
      [WIRE_CHOICE]: 'http',
    } as never);
    await busyThenMore(http);
    expect(new Set(sent)).toEqual(new Set(['node:http']));
    await http.close();
    sent.length = 0;
    const undici = new ClaimsClient({
      baseUrl: server.url,
      accessToken: 'tok',
      [WIRE_CHOICE]: 'undici',
    } as never);
    await undici.subscriptions.list(1);
    expect(sent).toEqual(['undici']);
    await undici.close();
  });
});
