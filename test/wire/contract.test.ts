/**
 * The contract of a wire (src/wire/types.ts), held by both: an attempt whose signal aborts
 * rejects as stopped, carrying the signal's reason as `cause` (aborted before it began: nothing
 * is sent), and an attempt leaves no listener on its signal behind. (The transport then gives
 * the caller the platform's `AbortError`, with the call's outcome: call-errors.ts.)
 * The wires are driven directly here, as the transport drives them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireFailure } from '../../src/wire/failure.js';
import { fetchWire } from '../../src/wire/fetch-wire.js';
import type { Wire, WireRequest, WireSignal } from '../../src/wire/types.js';
import { undiciWire } from '../../src/wire/undici-wire.js';

let server: Server;
let origin = '';
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    // /slow never answers; anything else gets an empty JSON list.
    if (req.url === '/slow') return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await agent.close();
});

const agent = new Agent();
const WIRES: Array<[string, () => Wire]> = [
  ['undici wire', () => undiciWire(agent)],
  ['fetch wire', () => fetchWire(globalThis.fetch)],
];

/**
 * A signal as strict as the platform's `AbortSignal` about event names (the transport's own
 * ignores them): only `'abort'` listeners are kept and called. Counts its listeners.
 */
class TestSignal implements WireSignal {
  aborted = false;
  reason: unknown = undefined;
  readonly listeners = new Set<() => void>();
  addEventListener(type: 'abort', listener: () => void): void {
    if (type === 'abort') this.listeners.add(listener);
  }
  removeEventListener(type: 'abort', listener: () => void): void {
    if (type === 'abort') this.listeners.delete(listener);
  }
  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    for (const listener of [...this.listeners]) listener();
  }
}

function request(path: string, signal: WireSignal): WireRequest {
  return {
    url: origin + path,
    origin,
    path,
    method: 'GET',
    headers: { accept: 'application/json' },
    body: undefined,
    signal,
    timeoutMs: 5_000,
  };
}

describe.each(WIRES)('%s', (_name, make) => {
  it('a signal aborted before the attempt: stopped with the reason as cause, nothing sent', async () => {
    const signal = new TestSignal();
    const reason = new Error('the caller gave up');
    signal.abort(reason);
    const path = `/never-${_name.replace(' ', '-')}`;
    const error = await make()(request(path, signal)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WireFailure);
    expect(error).toMatchObject({
      kind: 'stopped',
      name: 'AbortError',
      message: 'The operation was aborted',
    });
    expect((error as Error).cause).toBe(reason);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hits).not.toContain(path);
  });

  it('a signal aborted while waiting for the answer: stopped with the reason as cause', async () => {
    const signal = new TestSignal();
    const reason = new Error('stop now');
    const attempt = make()(request('/slow', signal)).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    signal.abort(reason);
    const error = await attempt;
    expect((error as Error).name).toBe('AbortError');
    expect((error as Error).cause).toBe(reason);
  });

  it('an abort without a reason: stopped without a cause (nothing empty to show in logs)', async () => {
    const signal = new TestSignal();
    const attempt = make()(request('/slow', signal)).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    signal.abort(undefined);
    const error = await attempt;
    expect((error as Error).name).toBe('AbortError');
    expect(Object.hasOwn(error as object, 'cause')).toBe(false);
  });

  it('an attempt read to its end leaves no listener on its signal', async () => {
    const signal = new TestSignal();
    const response = await make()(request('/list', signal));
    expect(response.status).toBe(200);
    await expect(response.text(1_000)).resolves.toEqual({ text: '[]', truncated: false });
    expect(signal.listeners.size).toBe(0);
  });
});
