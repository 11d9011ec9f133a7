import type { Socket } from 'node:net';

/**
 * Proves that `node:http` wrote no byte of one request on a kept-alive socket: the only thing
 * that makes a failed POST safe to send again. The wire calls `end(body)` before the request
 * has a socket, so the whole request waits in the request object; a socket from the pool is
 * handed over on the next tick, where `node:http` emits `'socket'` and then, in the same run,
 * writes the request in one corked write (one `writev`). That write fails taking no byte when
 * the kernel refuses it (an RST that arrived while the event loop could not read it: a
 * freeze): only that failure errors the socket before the write returns, a failure after a
 * partial write comes later, from the event loop (undici's wire relies on the same, see
 * `WriteWatch`). A tick queued from `'socket'` runs after the write and before the socket's error is
 * emitted (queued by the write), so it sees exactly the errors of that write.
 *
 * Anything else (a FIN the event loop had not read, an RST after the write) may have left: an
 * HTTP/1.1 server may read a request written after its FIN. It is not claimed.
 */
export class HttpWriteWatch {
  #neverWritten = false;

  /** Called from the request's `'socket'` event, for a socket taken from the pool. */
  constructor(socket: Socket) {
    const erroredBefore = socket.errored;
    process.nextTick(() => {
      const errored = socket.errored as { syscall?: unknown } | null;
      this.#neverWritten = erroredBefore == null && errored?.syscall === 'write';
    });
  }

  /** True when node:http provably wrote no byte of the request. */
  get neverWritten(): boolean {
    return this.#neverWritten;
  }
}
