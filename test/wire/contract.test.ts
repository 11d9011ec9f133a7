/**
 * The contract of a wire (src/wire/types.ts), held by every wire and driven directly, as the
 * transport drives them: an attempt whose signal aborts rejects as stopped, carrying the
 * signal's reason as `cause` (aborted before it began: nothing is sent); no listener stays on
 * the signal once an attempt is over; a stall is a timeout naming `timeoutMs`; and the answer's
 * head reaches the caller alike. (The transport then gives the caller the platform's
 * `AbortError`, with the call's outcome: call-errors.ts.)
 */
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClaimsApiError, ClaimsTimeoutError } from '../../src/index.js';
import { ownDispatcher } from '../../src/wire/dispatcher.js';
import { WireFailure } from '../../src/wire/failure.js';
import { fetchWire } from '../../src/wire/fetch-wire.js';
import { ownHttpAgent } from '../../src/wire/http-agent.js';
import { httpWire } from '../../src/wire/http-wire.js';
import type { Wire } from '../../src/wire/types.js';
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
      expect(error).toBeInstanceOf(WireFailure);
      expect(error).toMatchObject({
        kind: 'stopped',
        name: 'AbortError',
        message: 'The operation was aborted',
      });
      expect(error.cause).toBe(reason);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.seen).toHaveLength(0);
      expect(signal.listeners).toBe(0);
    });

    it('an abort while waiting for the answer: stopped at once, no listener left', async () => {
      const server = await local(() => undefined);
      const signal = new CountingSignal();
      // An idle timeout past the test's own: only the abort can end the request.
      const pending = make()(kitRequest(server.origin, signal, { timeoutMs: 600_000 }));
      while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const reason = new Error('caller gave up');
      signal.abort(reason);
      const { error } = await rejection(pending);
      expect(error).toMatchObject({ kind: 'stopped', name: 'AbortError' });
      expect(error.cause).toBe(reason);
      expect(signal.listeners).toBe(0);
    });

    it('an abort without a reason: stopped without a cause (nothing empty to show in logs)', async () => {
      const server = await local(() => undefined);
      const signal = new CountingSignal();
      const pending = make()(kitRequest(server.origin, signal, { timeoutMs: 5_000 }));
      while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      signal.abort(undefined);
      const { error } = await rejection(pending);
      expect(error).toMatchObject({ kind: 'stopped', name: 'AbortError' });
      expect(Object.hasOwn(error, 'cause')).toBe(false);
    });

    it('a call read to its end leaves no listener on the signal', async () => {
      const server = await local(ok);
      const signal = new CountingSignal();
      const response = await make()(kitRequest(server.origin, signal));
      expect(await response.text(1_000)).toEqual({ text: '{"ok":true}', truncated: false });
      expect(signal.listeners).toBe(0);
    });

    it('an abort after the head, the body never read: the listener does not stay on the signal', async () => {
      const server = await local(stalled);
      const signal = new CountingSignal();
      await make()(kitRequest(server.origin, signal, { timeoutMs: 5_000 }));
      expect(signal.listeners).toBe(1);
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
    });

    it('a slow body whose chunks come within timeoutMs of each other is read whole', async () => {
      // Nine chunks 150 ms apart: 1.2 s in all, longer than timeoutMs, so only a wait restarted
      // by each chunk lets it through.
      const chunks = ['{"a":', '1,', '"b":', '2,', '"c":', '3,', '"d":', '4', '}'];
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
