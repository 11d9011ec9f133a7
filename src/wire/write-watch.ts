import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/**
 * Proves, from undici's diagnostics channels, that undici wrote no byte of one request: the
 * only thing that makes a failed POST safe to send again. Before it writes to a kept-alive
 * socket, undici 7 lets the event loop read it once (its idle-socket check): a FIN found then
 * makes it use another connection by itself. It still fails a request it never wrote in two ways:
 *
 * - an RST found while the request waits for the socket (`read ECONNRESET`) fails every request
 *   waiting, not only one on the wire (client.js `onError`). undici publishes
 *   `undici:client:sendHeaders` before it writes any byte of a request, so a request that failed
 *   without it was never written.
 * - an RST that arrived after that check (a freeze, or the server's close, at just that moment)
 *   makes the kernel refuse the write. A body undici writes in one piece (a string, or none)
 *   goes out in one corked `writev`: the system call takes bytes, or fails taking none, and only
 *   that failure errors the socket before `socket.write` returns (a failure after a partial
 *   write comes later, from the event loop). `undici:request:bodySent` follows that write in the
 *   same run: a socket errored by a `write` in between took none of the request.
 *
 * Anything else (a FIN that arrived after the check, an RST after the write) may have left: an
 * HTTP/1.1 server may read a request written after its FIN. It is not claimed.
 * test/wire/write-watch.test.ts pins the order of these channels.
 */
export class WriteWatch {
  /** undici requests created while this one was dispatched: exactly one to be sure it is ours. */
  created = 0;
  /** Times undici started writing it (it never writes a request twice; more would be a surprise). */
  starts = 0;
  /** The socket and its error when undici started writing, until the write is judged. */
  socket: Socket | undefined = undefined;
  erroredBefore: unknown = undefined;
  /** The kernel refused the first write: no byte left. */
  refused = false;

  /** @param oneWrite whether undici writes the whole request in one piece (a string body, or none). */
  constructor(readonly oneWrite: boolean) {
    subscribeOnce();
  }

  /**
   * Runs `dispatch`, which must create its one undici request synchronously (a plain `Agent`
   * or `EnvHttpProxyAgent` does), and links that request to this watch.
   */
  dispatch<T>(dispatch: () => T): T {
    watching = this;
    try {
      return dispatch();
    } finally {
      watching = undefined;
    }
  }

  /** True when undici provably wrote no byte of the request. */
  get neverWritten(): boolean {
    if (this.created !== 1) return false;
    return this.starts === 0 || (this.starts === 1 && this.refused);
  }
}

let watching: WriteWatch | undefined;
let subscribed = false;
/** undici's request objects (its own class, opaque here) to their watch. */
const watches = new WeakMap<object, WriteWatch>();

interface RequestMessage {
  request: object;
}
interface SendHeadersMessage extends RequestMessage {
  socket: Socket;
}

// Channels are looked up by name, so these also see other undici copies (Node's own fetch):
// their requests are in no watch, and cost one WeakMap look-up each.
function subscribeOnce(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:request:create', (message) => {
    const watch = watching;
    if (watch === undefined) return;
    watch.created++;
    watches.set((message as RequestMessage).request, watch);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as SendHeadersMessage;
    const watch = watches.get(request);
    if (watch === undefined) return;
    watch.starts++;
    watch.socket = socket;
    watch.erroredBefore = socket.errored;
  });
  subscribe('undici:request:bodySent', (message) => {
    const watch = watches.get((message as RequestMessage).request);
    const socket = watch?.socket;
    // No watch (a request not ours), or one whose write was judged already.
    if (socket === undefined) return;
    (watch as WriteWatch).socket = undefined;
    const errored = socket.errored as { syscall?: unknown } | null;
    (watch as WriteWatch).refused =
      (watch as WriteWatch).oneWrite &&
      (watch as WriteWatch).erroredBefore == null &&
      errored?.syscall === 'write';
  });
}
