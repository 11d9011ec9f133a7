/**
 * Where the sandbox's own requests may go (url downloads, webhook deliveries): loopback and
 * the public internet, never a private or link-local network unless `allowPrivateTargets`.
 * Every refusal here is proved before any socket opens: an injected resolver gives the
 * addresses, and a fetch that records its calls shows none was made. No test connects to an
 * address that is not loopback.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSandbox,
  type OutboundFetch,
  type Sandbox,
  type SandboxOptions,
} from '../../src/testing/index.js';
import { deliverOneEvent, homeIncident, type Reply, raw, startLocalServer } from './helpers.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A fetch that records what it was asked and answers 200 itself: nothing leaves the process. */
function recordingFetch() {
  const asked: string[] = [];
  const fetch: OutboundFetch = async (url) => {
    asked.push(url);
    return {
      status: 200,
      headers: new Headers({ 'content-length': '2' }),
      arrayBuffer: async () => new ArrayBuffer(2),
      body: null,
    };
  };
  return { fetch, asked };
}

async function sandboxWith(options: SandboxOptions): Promise<Sandbox> {
  const sandbox = await createSandbox(options);
  cleanups.push(() => sandbox.close());
  return sandbox;
}

const REFUSED =
  'the address is on a private or link-local network, which the sandbox does not reach unless allowPrivateTargets is true';

describe('url attachments', () => {
  it.each([
    ['a name that resolves to a private address', 'http://files.internal.test/scan.pdf'],
    ['a link-local address (a cloud metadata service)', 'http://169.254.169.254/latest/meta-data/'],
    ['a private IPv6 address', 'http://[fd00::5]/x'],
    ['an IPv4-mapped private address', 'http://[::ffff:10.0.0.5]/x'],
  ])('refuses %s with 422 attachment_refused, before any request', async (_what, url) => {
    const { fetch, asked } = recordingFetch();
    const sandbox = await sandboxWith({ fetch, lookup: async () => [{ address: '10.20.30.40' }] });
    const answer = await raw(sandbox, 'POST', '/incidents', {
      json: { ...homeIncident, attachments: [{ url }] },
    });
    expect(answer).toMatchObject({
      status: 422,
      body: {
        details: [
          {
            path: 'attachments[0].url',
            code: 'attachment_refused',
            message: `the file could not be fetched: ${REFUSED}`,
          },
        ],
      },
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/10\.20\.30\.40|169\.254|fd00|10\.0\.0\.5/);
    expect(asked).toEqual([]);
    expect(sandbox.incidents).toEqual([]);
  });

  it('fetches from a private address with allowPrivateTargets', async () => {
    const { fetch, asked } = recordingFetch();
    const sandbox = await sandboxWith({
      fetch,
      allowPrivateTargets: true,
      lookup: async () => [{ address: '10.20.30.40' }],
    });
    const answer = await raw(sandbox, 'POST', '/incidents', {
      json: { ...homeIncident, attachments: [{ url: 'http://files.internal.test/scan.pdf' }] },
    });
    expect(answer.status).toBe(201);
    expect(asked).toEqual(['http://files.internal.test/scan.pdf']);
  });

  it('a fetch of yours that resolves no Response: 422 attachment_unreachable, saying so', async () => {
    const sandbox = await sandboxWith({
      fetch: (async () => ({ status: 200, headers: {} })) as unknown as OutboundFetch,
      allowPrivateTargets: true,
      lookup: async () => [{ address: '10.20.30.40' }],
    });
    const answer = await raw(sandbox, 'POST', '/incidents', {
      json: { ...homeIncident, attachments: [{ url: 'http://files.internal.test/scan.pdf' }] },
    });
    expect(answer).toMatchObject({
      status: 422,
      body: {
        details: [
          {
            path: 'attachments[0].url',
            code: 'attachment_unreachable',
            message:
              'the file could not be fetched: the fetch given to the sandbox resolved an object whose headers are not a Headers, not a Response',
          },
        ],
      },
    });
  });

  it('a stand-in fetch with only a status, headers.get and arrayBuffer is still read', async () => {
    const sandbox = await sandboxWith({
      fetch: async () => ({
        status: 200,
        headers: { get: (name: string) => (name === 'content-length' ? '2' : null) },
        arrayBuffer: async () => new ArrayBuffer(2),
        body: { cancel: async () => {} },
      }),
      allowPrivateTargets: true,
      lookup: async () => [{ address: '10.20.30.40' }],
    });
    const answer = await raw(sandbox, 'POST', '/incidents', {
      json: { ...homeIncident, attachments: [{ url: 'http://files.internal.test/scan.pdf' }] },
    });
    expect(answer.status).toBe(201);
  });

  it('checks every redirect before following it; the message names no address', async () => {
    const lookups: string[] = [];
    const files = await startLocalServer((req): Reply => {
      if (req.path === '/to-ip') return { status: 302, headers: { location: 'http://10.9.9.9/secret' } };
      if (req.path === '/to-name')
        return { status: 301, headers: { location: 'http://rebound.test/secret' } };
      if (req.path === '/to-ftp') return { status: 307, headers: { location: 'ftp://127.0.0.1/x' } };
      if (req.path === '/relative') return { status: 303, headers: { location: '/final.txt' } };
      if (req.path.startsWith('/loop'))
        return { status: 302, headers: { location: `/loop${req.path.length}` } };
      return { body: 'the file', headers: { 'content-type': 'text/plain' } };
    });
    cleanups.push(() => files.close());
    const sandbox = await sandboxWith({
      lookup: async (name) => {
        lookups.push(name);
        return [{ address: '192.168.7.7' }];
      },
    });
    const attach = (path: string) =>
      raw(sandbox, 'POST', '/incidents', {
        json: { ...homeIncident, attachments: [{ url: `${files.url}${path}` }] },
      });
    for (const path of ['/to-ip', '/to-name']) {
      const answer = await attach(path);
      expect(answer.body).toMatchObject({
        details: [
          {
            code: 'attachment_refused',
            message: `the file could not be fetched: a redirect led elsewhere: ${REFUSED}`,
          },
        ],
      });
      expect(JSON.stringify(answer.body)).not.toMatch(/10\.9\.9\.9|192\.168|rebound/);
    }
    expect(lookups).toEqual(['rebound.test']);
    expect((await attach('/to-ftp')).body).toMatchObject({
      details: [
        {
          code: 'attachment_refused',
          message: 'the file could not be fetched: a redirect led to an address that is not http(s)',
        },
      ],
    });
    expect((await attach('/loop')).body).toMatchObject({
      details: [
        { code: 'attachment_unreachable', message: 'the file could not be fetched: more than 5 redirects' },
      ],
    });
    const followed = await attach('/relative');
    expect(followed.status).toBe(201);
    await sandbox.settled();
    const [linked] = sandbox.incidents.at(-1)?.events[0]?.attachments ?? [];
    expect(sandbox.attachment(linked?.attachmentId as string)?.data?.toString()).toBe('the file');
    // Only the redirects that reached the file server were asked of it: never a private address.
    expect(files.received.map((r) => r.path)).toEqual(
      expect.arrayContaining(['/to-ip', '/to-name', '/to-ftp', '/relative', '/final.txt']),
    );
  });

  it('words every failure alike: a closed port and a server that never answers say the same', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise((resolve) => {
          silent.closeAllConnections();
          silent.close(resolve);
        }),
    );
    const sandbox = await sandboxWith({
      downloadTimeoutMs: 300,
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    const answer = await raw(sandbox, 'POST', '/incidents', {
      json: {
        ...homeIncident,
        attachments: [
          { url: 'http://127.0.0.1:9/closed' },
          { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/silent` },
          { url: 'http://nowhere.test/x' },
        ],
      },
    });
    const messages = (answer.body as { details: Array<{ message: string; code: string }> }).details;
    expect(new Set(messages.map((m) => `${m.code}: ${m.message}`))).toEqual(
      new Set([
        'attachment_unreachable: the file could not be fetched: no answer (the name did not resolve, or the connection failed or timed out)',
      ]),
    );
    expect(messages).toHaveLength(3);
  });
});

describe('webhook deliveries', () => {
  it('are not sent to a private target; the delivery says so without the address', async () => {
    const { fetch, asked } = recordingFetch();
    const sandbox = await sandboxWith({ fetch, lookup: async () => [{ address: '172.20.0.3' }] });
    const { webhookId } = sandbox.createWebhook({
      url: 'http://receiver.internal.test/hook',
      headerName: 'x-secret',
      headerValue: 'v',
    });
    await deliverOneEvent(sandbox, webhookId);
    expect(sandbox.deliveries).toMatchObject([
      { status: 'failed', error: `the receiver could not be reached: ${REFUSED}` },
    ]);
    expect(sandbox.deliveries[0]).not.toHaveProperty('responseStatus');
    expect(asked).toEqual([]);
  });

  it('rebinding between the check and the connection is caught as the socket connects', async () => {
    let calls = 0;
    const receiver = await startLocalServer();
    cleanups.push(() => receiver.close());
    // First answer (the check) loopback, then (the connection) a private address.
    const sandbox = await sandboxWith({
      lookup: async () => [{ address: calls++ === 0 ? '127.0.0.1' : '10.0.0.1' }],
    });
    const { webhookId } = sandbox.createWebhook({
      url: `http://rebind.test:${new URL(receiver.url).port}/hook`,
    });
    await deliverOneEvent(sandbox, webhookId);
    expect(calls).toBe(2);
    expect(sandbox.deliveries).toMatchObject([
      { status: 'failed', error: `the receiver could not be reached: ${REFUSED}` },
    ]);
    expect(receiver.received).toEqual([]);
  });
});
