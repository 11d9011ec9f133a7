/**
 * The proof that lets the undici wire send a failed POST again: `WriteWatch` says "never
 * written" only when undici created exactly one request in the dispatch, and either never
 * started writing it, or the kernel refused its one corked write. Driven here by publishing
 * undici's diagnostics messages by hand, so each rule is checked alone (dead-connections.test.ts
 * checks the whole against real sockets and real freezes; undici-write-order.test.ts that undici
 * publishes these messages in this order).
 */
import { channel, subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteWatch } from '../../src/wire/write-watch.js';

const create = channel('undici:request:create');
const sendHeaders = channel('undici:client:sendHeaders');
const bodySent = channel('undici:request:bodySent');

/** A socket as undici hands it over: `errored` is what the watch reads. */
function socket(errored: unknown = null) {
  return { errored };
}

const refusedWrite = () =>
  Object.assign(new Error('write ECONNRESET'), { code: 'ECONNRESET', syscall: 'write' });

/** A watch whose dispatch created one request; returns both. */
function watched(oneWrite = true) {
  const watch = new WriteWatch(oneWrite);
  const request = {};
  const result = watch.dispatch(() => {
    create.publish({ request });
    return 'dispatched';
  });
  expect(result).toBe('dispatched');
  return { watch, request };
}

/** undici starts writing on `s`, the write errors it with `error` (or not), and the body is sent. */
function write(request: object, s: { errored: unknown }, error?: unknown) {
  sendHeaders.publish({ request, socket: s });
  if (error !== undefined) s.errored = error;
  bodySent.publish({ request });
}

describe('WriteWatch: when undici provably wrote no byte of a request', () => {
  // First in the file: the channels are subscribed to once per module, by the first watch, so
  // this test is the one that sees a mistake there.
  it('each watch follows its own request over all three messages, however many watches there are', () => {
    const sent = watched();
    const refused = watched();
    const idle = watched();
    write(sent.request, socket());
    write(refused.request, socket(), refusedWrite());
    expect([sent.watch.created, refused.watch.created, idle.watch.created]).toEqual([1, 1, 1]);
    expect([sent.watch.starts, refused.watch.starts, idle.watch.starts]).toEqual([1, 1, 0]);
    expect([sent.watch.neverWritten, refused.watch.neverWritten, idle.watch.neverWritten]).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('undici started writing and the request failed before its body was sent: it may have left', () => {
    const { watch, request } = watched();
    sendHeaders.publish({ request, socket: socket() });
    expect(watch.neverWritten).toBe(false);
  });

  it('a request undici never started writing was never written', () => {
    const { watch } = watched();
    expect(watch.neverWritten).toBe(true);
  });

  it('a write that went through (the socket not errored by it) may have left', () => {
    const { watch, request } = watched();
    write(request, socket());
    expect(watch.neverWritten).toBe(false);
  });

  it('the one corked write refused by the kernel (a write error on a socket that had none): never written', () => {
    const { watch, request } = watched();
    write(request, socket(), refusedWrite());
    expect(watch.neverWritten).toBe(true);
  });

  it('a body written in several pieces (a stream): a refused write proves nothing about the ones before', () => {
    const { watch, request } = watched(false);
    write(request, socket(), refusedWrite());
    expect(watch.neverWritten).toBe(false);
  });

  it('a socket that had failed before the write: not claimed', () => {
    const { watch, request } = watched();
    write(request, socket(refusedWrite()));
    expect(watch.neverWritten).toBe(false);
  });

  it('a socket errored by something other than a write (a read error): not claimed', () => {
    const { watch, request } = watched();
    write(request, socket(), Object.assign(new Error('read ECONNRESET'), { syscall: 'read' }));
    expect(watch.neverWritten).toBe(false);
  });

  it('a request written twice (which undici never does): not claimed', () => {
    const { watch, request } = watched();
    write(request, socket(), refusedWrite());
    sendHeaders.publish({ request, socket: socket() });
    expect(watch.neverWritten).toBe(false);
  });

  it('a dispatch that created no request, or two: not claimed, the request is not known to be ours', () => {
    const none = new WriteWatch(true);
    none.dispatch(() => undefined);
    expect(none.neverWritten).toBe(false);
    const two = new WriteWatch(true);
    two.dispatch(() => {
      create.publish({ request: {} });
      create.publish({ request: {} });
    });
    expect(two.neverWritten).toBe(false);
  });

  it('requests created outside a dispatch (another undici user, Node’s fetch) belong to no watch', () => {
    const { watch, request } = watched();
    const other = {};
    create.publish({ request: other });
    write(other, socket());
    expect(watch.created).toBe(1);
    expect(watch.starts).toBe(0);
    expect(watch.neverWritten).toBe(true);
    write(request, socket(), refusedWrite());
    expect(watch.neverWritten).toBe(true);
  });

  it('a dispatch that throws still ends the watch’s dispatch: later requests are not counted', () => {
    const watch = new WriteWatch(true);
    expect(() =>
      watch.dispatch(() => {
        create.publish({ request: {} });
        throw new Error('invalid');
      }),
    ).toThrow('invalid');
    create.publish({ request: {} });
    expect(watch.created).toBe(1);
  });

  it('a body sent without the headers seen (another request) changes nothing', () => {
    const { watch, request } = watched();
    bodySent.publish({ request });
    expect(watch.neverWritten).toBe(true);
  });
});

/**
 * What src/wire/write-watch.ts relies on in undici's HTTP/1.1 write path, pinned so an undici
 * upgrade that changes it fails here rather than making the SDK claim 'not_sent' wrongly:
 *
 * - `undici:request:create` is published inside the `request()` call, before it returns;
 * - `undici:client:sendHeaders` comes before any byte of the request reaches the socket;
 * - for a string body (or none), `undici:request:bodySent` comes in the same synchronous run,
 *   after the whole request was handed to the socket in one go.
 */
describe("the order of undici's diagnostics channels", () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  let origin = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    ['a string body', 'POST', '{"claim":1}'],
    ['no body', 'GET', undefined],
  ] as const)(
    '%s: create inside request(), sendHeaders before any byte, bodySent in the same run after all of them',
    async (_, method, body) => {
      const agent = new Agent();
      const events: string[] = [];
      let socket: Socket | undefined;
      let writtenAtHeaders = -1;
      let sameRun = false;
      const onCreate = (): void => {
        events.push('create');
      };
      const onHeaders = (message: unknown): void => {
        events.push('sendHeaders');
        socket = (message as { socket: Socket }).socket;
        writtenAtHeaders = socket.bytesWritten;
        sameRun = true;
        queueMicrotask(() => {
          sameRun = false;
        });
      };
      let writtenAtSent = -1;
      let sentInSameRun = false;
      const onSent = (): void => {
        events.push('bodySent');
        writtenAtSent = socket?.bytesWritten ?? -1;
        sentInSameRun = sameRun;
      };
      subscribe('undici:request:create', onCreate);
      subscribe('undici:client:sendHeaders', onHeaders);
      subscribe('undici:request:bodySent', onSent);
      try {
        // A first request opens the connection, so the second is on a kept-alive socket.
        await (await agent.request({ origin, path: '/', method: 'GET' })).body.text();
        events.length = 0;
        const pending = agent.request({ origin, path: '/claims', method, body });
        expect(events).toEqual(['create']);
        const res = await pending;
        await res.body.text();
        expect(events).toEqual(['create', 'sendHeaders', 'bodySent']);
        expect(sentInSameRun).toBe(true);
        // Nothing of this request was written at sendHeaders; all of it was at bodySent.
        const head = `${method} /claims HTTP/1.1\r\n`;
        expect(writtenAtSent - writtenAtHeaders).toBeGreaterThan(head.length + (body?.length ?? 0));
      } finally {
        unsubscribe('undici:request:create', onCreate);
        unsubscribe('undici:client:sendHeaders', onHeaders);
        unsubscribe('undici:request:bodySent', onSent);
        await agent.close();
      }
    },
  );
});
