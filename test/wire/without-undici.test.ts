/**
 * Where undici cannot be loaded (a function's bundle deployed without node_modules: bundlers
 * leave its `import()` to run time), uploads go over Node's own fetch, and what only undici can
 * do (a proxy, client certificates on an upload) is refused before anything is sent.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClaimsError } from '../../src/errors.js';
import { WireFailure } from '../../src/wire/failure.js';
import { needsUndici, undiciOr } from '../../src/wire/without-undici.js';
import { json, startRecordingServer } from '../helpers/recording-server.js';
import { request, standIn } from '../helpers/stand-in-wire.js';

it('loadUndiciAgents loads the installed undici, once for every caller', async () => {
  const { loadUndiciAgents } = await import('../../src/wire/undici-agents.js');
  const undici = await import('undici');
  const first = loadUndiciAgents();
  expect(loadUndiciAgents()).toBe(first);
  const agents = await first;
  expect(agents.Agent).toBe(undici.Agent);
  expect(agents.EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
});

describe('undiciOr', () => {
  it('sends every call over undici once it loads, asking the loader only until then', async () => {
    const log: string[] = [];
    const load = vi.fn(async () => undefined);
    const instead = vi.fn(() => standIn('fetch', log).wire);
    const wire = undiciOr(standIn('undici', log).wire, instead, load);
    await Promise.all([wire(request()), wire(request())]);
    await wire(request());
    expect(log).toEqual(['undici', 'undici', 'undici']);
    expect(load).toHaveBeenCalledTimes(2);
    expect(instead).not.toHaveBeenCalled();
  });

  it('makes the fallback once, from the load error, and sends every call over it', async () => {
    const log: string[] = [];
    const missing = new Error("Cannot find package 'undici'");
    const load = vi.fn(async () => Promise.reject(missing));
    const instead = vi.fn(() => standIn('fetch', log).wire);
    const wire = undiciOr(standIn('undici', log).wire, instead, load);
    await wire(request());
    await wire(request());
    expect(log).toEqual(['fetch', 'fetch']);
    expect(load).toHaveBeenCalledTimes(1);
    expect(instead).toHaveBeenCalledTimes(1);
    expect(instead).toHaveBeenCalledWith(missing);
  });

  it("passes undici's own failure on: a failed request is not sent again another way", async () => {
    const failure = new WireFailure('connection', 'reset', 'maybe');
    const instead = vi.fn(() => standIn('fetch', []).wire);
    const wire = undiciOr(
      () => Promise.reject(failure),
      instead,
      async () => undefined,
    );
    await expect(wire(request())).rejects.toBe(failure);
    await expect(wire(request())).rejects.toBe(failure);
    expect(instead).not.toHaveBeenCalled();
  });
});

it('needsUndici refuses every call, nothing sent, saying what needs undici and why it is missing', async () => {
  const cause = new Error("Cannot find package 'undici'");
  const error = (await needsUndici('A proxy (HTTPS_PROXY)', cause)(request()).catch((e) => e)) as WireFailure;
  expect(error).toBeInstanceOf(WireFailure);
  expect(error.kind).toBe('refused');
  expect(error.sent).toBe('not_connected');
  expect(error.cause).toBe(cause);
  expect(error.message).toBe(
    "A proxy (HTTPS_PROXY) needs the undici package, which could not be loaded (Cannot find package 'undici'): nothing was sent. " +
      'Deploy node_modules/undici beside your bundle, or give the client your own dispatcher or fetch',
  );
});

const INCIDENT = {
  programmeCode: 'PRG',
  policyTypeCode: 'T1',
  policyCountry: 'GB',
  incidentDate: '2026-01-31',
  description: 'no undici',
};

describe('a client where undici cannot be loaded', () => {
  afterEach(() => {
    vi.doUnmock('undici');
    vi.resetModules();
    vi.unstubAllEnvs();
  });

  async function clientWithoutUndici(options: Record<string, unknown> = {}) {
    vi.resetModules();
    vi.doMock('undici', () => {
      throw new Error("Cannot find package 'undici' imported from /var/task/index.mjs");
    });
    const { ClaimsClient } = await import('../../src/index.js');
    const server = await startRecordingServer((req, res) =>
      req.path === '/attachments'
        ? json(res, 201, [{ filename: 'note.txt', attachmentId: '00000000-0000-4000-8000-000000000001' }])
        : json(res, 201, { incidentId: 'INC-1' }),
    );
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok_0123456789', ...options });
    return { client, server };
  }

  it('uploads over Node’s own fetch, byte-exact, and creates over node:http', async () => {
    const { client, server } = await clientWithoutUndici();
    try {
      const [record] = await client.attachments.upload([
        { data: new TextEncoder().encode('hello'), filename: 'note.txt' },
      ]);
      expect(record?.attachmentId).toBe('00000000-0000-4000-8000-000000000001');
      const sent = server.requests[0];
      const boundary = /boundary=(.+)$/.exec(String(sent?.headers['content-type']))?.[1];
      expect(sent?.body.toString()).toBe(
        `--${boundary}\r\nContent-Disposition: form-data; name=""; filename="note.txt"\r\n` +
          `Content-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`,
      );
      expect(sent?.headers['content-length']).toBe(String(sent?.body.byteLength));
      await expect(client.incidents.create(INCIDENT)).resolves.toEqual({ incidentId: 'INC-1' });
      expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /attachments',
        'POST /incidents',
      ]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('with a proxy set, refuses every call before sending, naming the proxy and undici', async () => {
    vi.stubEnv('HTTPS_PROXY', 'http://127.0.0.1:9');
    const { client, server } = await clientWithoutUndici();
    try {
      const error = (await client.metadata.programmes().catch((e) => e)) as ClaimsError;
      expect(error.name).toBe('ClaimsError');
      expect(error.outcome).toBe('not_sent');
      expect(error.message).toMatch(/^A proxy \(HTTPS_PROXY or HTTP_PROXY is set\) needs the undici package/);
      expect(server.requests).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('with tls, creates over node:http and refuses an upload before sending', async () => {
    const { client, server } = await clientWithoutUndici({ tls: { ca: 'not a real CA' } });
    try {
      const error = (await client.attachments
        .upload([{ data: new Uint8Array([1]), filename: 'a.bin' }])
        .catch((e) => e)) as ClaimsError;
      expect(error.outcome).toBe('not_sent');
      expect(error.message).toMatch(/^An upload with the tls option needs the undici package/);
      expect(server.requests).toEqual([]);
      await expect(client.incidents.create(INCIDENT)).resolves.toEqual({ incidentId: 'INC-1' });
      expect(server.requests.map((r) => r.path)).toEqual(['/incidents']);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
