/**
 * The contract of a wire (src/wire/types.ts), held by both: an attempt whose signal aborts
 * rejects as stopped, carrying the signal's reason as `cause` (aborted before it began: nothing
 * is sent), and an attempt leaves no listener on its signal behind. (The transport then gives
 * the caller the platform's `AbortError`, with the call's outcome: call-errors.ts.)
 * The wires are driven directly here, as the transport drives them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimsApiError, ClaimsTimeoutError } from '../../src/index.js';
import { ownDispatcher } from '../../src/wire/dispatcher.js';
import { WireFailure } from '../../src/wire/failure.js';
import { fetchWire } from '../../src/wire/fetch-wire.js';
import { ownHttpAgent } from '../../src/wire/http-agent.js';
import { httpWire } from '../../src/wire/http-wire.js';
import type { Wire, WireRequest, WireSignal } from '../../src/wire/types.js';
import { undiciWire } from '../../src/wire/undici-wire.js';
import { WIRES as CLIENT_WIRES, httpFaultServer, makeClient, scenario } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';
import {
  CountingSignal,
  closeLocals,
  request as kitRequest,
  local,
  ok,
  rejection,
} from '../helpers/wire-kit.js';

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

/**
 * The answer's head as each wire hands it on: one value per header name, lower-case, a header
 * the server repeats joined with `, ` (as `fetch`'s `Headers` does), on both wires alike.
 */
describe.each(CLIENT_WIRES)('$name', ({ options: wire }) => {
  it('a repeated header reaches withResponse() as one value joined with ", "', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('X-Trace', ['hop-1', 'hop-2']);
        res.writeHead(201);
        res.end('{"incidentId":"I-1"}');
      }),
      async (server) => {
        const { headers } = await makeClient(server.url, wire).incidents.create(incident).withResponse();
        expect(headers['x-trace']).toBe('hop-1, hop-2');
        expect(headers['content-type']).toBe('application/json');
      },
    );
  });

  it('and on an error answer’s headers', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('Warning', ['199 - "first"', '199 - "second"']);
        res.writeHead(409);
        res.end('{"message":"duplicate"}');
      }),
      async (server) => {
        const error = (await makeClient(server.url, wire)
          .incidents.create(incident)
          .catch((e: unknown) => e)) as ClaimsApiError;
        expect(error.status).toBe(409);
        expect(error.headers.warning).toBe('199 - "first", 199 - "second"');
      },
    );
  });
});

/**
 * What every wire promises the transport about the call's signal and a stall, called directly
 * against a local server: a signal aborted before the call is a stopped failure with its reason
 * and nothing is sent; an abort while waiting ends the call at once as stopped, not a timeout;
 * no abort listener stays on the signal once a call is over (read to its end, aborted or
 * failed), as a caller's long-lived signal would otherwise collect one per request; a stall
 * before the head or inside the body is a timeout naming `timeoutMs`; a body whose chunks keep
 * coming is read whole. (The transport words the call's error from these: call-errors.ts.)
 */
describe('the signal and stalls', () => {
  afterEach(closeLocals);

  const WIRES: { name: string; make: () => Wire; timeoutCode: string; closed?: () => Promise<Wire> }[] = [
    {
      name: 'node:http wire',
      make: () => httpWire(ownHttpAgent(undefined)),
      timeoutCode: '',
      async closed() {
        const agents = ownHttpAgent(undefined);
        await agents.close();
        return httpWire(agents);
      },
    },
    // undici's headersTimeout/bodyTimeout run on its coarse timers: a stall ends within ~1.5 s.
    {
      name: 'undici wire',
      make: () => undiciWire(ownDispatcher(undefined, {})),
      timeoutCode: 'UND_ERR_',
      async closed() {
        const dispatcher = ownDispatcher(undefined, {});
        await dispatcher.close();
        return undiciWire(dispatcher);
      },
    },
    { name: 'fetch wire', make: () => fetchWire(globalThis.fetch), timeoutCode: '' },
  ];

  const stalled = (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"ok":');
  };

  // Only the wires with a pool of their own can be closed (fetch's pool belongs to the fetch).
  describe.each(WIRES.filter((w) => w.closed !== undefined))('$name, closed', ({ closed }) => {
    it("a call after the client's own pool was closed: refused, nothing sent", async () => {
      const server = await local(ok);
      const wire = await (closed as () => Promise<Wire>)();
      const { error } = await rejection(wire(kitRequest(server.origin, new CountingSignal())));
      expect(error).toBeInstanceOf(WireFailure);
      expect(error).toMatchObject({ kind: 'refused', name: 'ClaimsError' });
      expect(error.message).toBe('The client is closed (client.close() was called): nothing was sent');
      expect(server.seen).toHaveLength(0);
    });
  });

  describe.each(WIRES)('$name', ({ make, timeoutCode }) => {
    it('a signal aborted before the call: stopped with its reason, nothing sent, no listener left', async () => {
      const server = await local(ok);
      const signal = new CountingSignal();
      const reason = new Error('caller gave up');
      signal.abort(reason);
      const { error } = await rejection(make()(kitRequest(server.origin, signal)));
      expect(error).toMatchObject({ kind: 'stopped', name: 'AbortError' });
      expect(error.cause).toBe(reason);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.seen).toHaveLength(0);
      expect(signal.listeners).toBe(0);
    });

    it('an abort while waiting for the answer: stopped at once, no listener left', async () => {
      const server = await local(() => undefined);
      const signal = new CountingSignal();
      const pending = make()(kitRequest(server.origin, signal, { timeoutMs: 5_000 }));
      while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const reason = new Error('caller gave up');
      signal.abort(reason);
      const { error, ms } = await rejection(pending);
      expect(error).toMatchObject({ kind: 'stopped', name: 'AbortError' });
      expect(error.cause).toBe(reason);
      expect(ms).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(signal.listeners).toBe(0);
    });

    it('a call read to its end leaves no listener on the signal', async () => {
      const server = await local(ok);
      const signal = new CountingSignal();
      const response = await make()(kitRequest(server.origin, signal));
      expect(await response.text(1_000)).toEqual({ text: '{"ok":true}', truncated: false });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(signal.listeners).toBe(0);
    });

    it('an abort after the head, the body never read: the listener does not stay on the signal', async () => {
      const server = await local(stalled);
      const signal = new CountingSignal();
      await make()(kitRequest(server.origin, signal, { timeoutMs: 5_000 }));
      signal.abort(new Error('caller gave up'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(signal.listeners).toBe(0);
    });

    it('a refused connection leaves no listener on the signal', async () => {
      const server = await local(ok);
      const origin = server.origin;
      await server.close();
      const signal = new CountingSignal();
      const { error } = await rejection(make()(kitRequest(origin, signal)));
      expect(error).toMatchObject({
        kind: 'connection',
        sent: 'not_connected',
        name: 'ClaimsConnectionError',
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(signal.listeners).toBe(0);
    });

    it('no answer: a timeout naming timeoutMs, not before it', async () => {
      const server = await local(() => undefined);
      const { error, ms } = await rejection(make()(kitRequest(server.origin, new CountingSignal())));
      expect(error).toMatchObject({ kind: 'timeout', sent: 'maybe', name: 'ClaimsTimeoutError' });
      expect(error.message).toContain(
        `Request timed out: no progress for 300 ms${timeoutCode ? ' (UND_ERR_HEADERS_TIMEOUT)' : ''}`,
      );
      expect(ms).toBeGreaterThanOrEqual(280);
      expect(ms).toBeLessThan(3_000);
    });

    it('a body that stops after the head: the reader fails with a timeout naming timeoutMs', async () => {
      const server = await local(stalled);
      const response = await make()(kitRequest(server.origin, new CountingSignal()));
      const { error, ms } = await rejection(response.text(1_000));
      expect(error).toMatchObject({ kind: 'body_timeout', name: 'ClaimsTimeoutError' });
      expect(error.message).toContain(
        `Request timed out: no progress for 300 ms${timeoutCode ? ' (UND_ERR_BODY_TIMEOUT)' : ''}`,
      );
      expect(ms).toBeGreaterThanOrEqual(280);
      expect(ms).toBeLessThan(3_000);
    });

    it('a slow body whose chunks come within timeoutMs of each other is read whole', async () => {
      const chunks = ['{"a":', '1,', '"b":', '2,', '"c":', '3}'];
      const server = await local((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        let i = 0;
        const next = () => {
          if (i === chunks.length) return void res.end();
          res.write(chunks[i++]);
          setTimeout(next, 150);
        };
        next();
      });
      // undici checks its timeouts on a ~0.5 s tick: chunks 150 ms apart against 1 s.
      const response = await make()(kitRequest(server.origin, new CountingSignal(), { timeoutMs: 1_000 }));
      expect(await response.text(1_000)).toEqual({ text: chunks.join(''), truncated: false });
    });
  });

  describe("undici wire, an upload whose source fails with the SDK's own error", () => {
    it('rejects naming that error as cause (the upload then says the source failed: attachments.ts)', async () => {
      const server = await local(ok);
      const failure = new ClaimsTimeoutError('The upload source stalled');
      const body = new Readable({
        read() {
          this.destroy(failure);
        },
      });
      const wire = undiciWire(ownDispatcher(undefined, {}));
      const { error } = await rejection(
        wire(
          kitRequest(server.origin, new CountingSignal(), {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/octet-stream' },
          }),
        ),
      );
      expect(error).toBeInstanceOf(WireFailure);
      expect(error.cause).toBe(failure);
    });
  });

  describe.each(WIRES.filter((w) => w.closed))(
    '$name, the server announcing a shorter keep-alive',
    ({ make }) => {
      it('a process frozen past it (less a 1 s margin): the next call goes out on a fresh connection', async () => {
        const server = await local((_req, res, count) => {
          res.writeHead(200, {
            'content-type': 'application/json',
            'keep-alive': count === 1 ? 'timeout=3' : 'timeout=60',
          });
          res.end('{}');
        });
        const wire = make();
        await (await wire(kitRequest(server.origin, new CountingSignal()))).text(1_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
        // Frozen (no timer runs, the pool's own idle timers included): 2.1 s against the 2 s limit.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2_100);
        await (await wire(kitRequest(server.origin, new CountingSignal()))).text(1_000);
        expect(server.seen.map((hit) => hit.socket)).toEqual([1, 2]);
      });
    },
  );
});
