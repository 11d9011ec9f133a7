import type { ClosableWire, Wire } from './types.js';

/**
 * Which wire the client's own connections use. Not an option of the public API: the fault
 * tests set it (as a `Symbol.for` key of the client options) to run every fault on each wire.
 *
 * - `'cold-start'` (the default): `node:http` until the client is busy, then undici;
 * - `'http'`: `node:http` for every JSON call, undici never loaded for them;
 * - `'undici'`: undici from the first call, as before the cold-start wire.
 */
export type WireChoice = 'cold-start' | 'http' | 'undici';

/** The client option key of {@link WireChoice}. */
export const WIRE_CHOICE: unique symbol = Symbol.for('claims-notification-sdk.wire') as never;

/**
 * A client that makes this many calls within {@link BUSY_WINDOW_MS} is busy: it then gains from
 * undici's throughput (1.2–1.6× node:http's at concurrency 1–32), and the ~70 ms that loading
 * undici stalls its calls in flight is paid once.
 */
const BUSY_CALLS = 64;
const BUSY_WINDOW_MS = 1_000;

/**
 * The default wire of the Node entry. undici takes ~70 ms to load (its module evaluation
 * blocks the thread) and its first request ~20 ms more (llhttp's WebAssembly compile): more than
 * a whole first call over `node:http` (see `http-wire.ts`). A serverless function should not pay
 * that on its cold start, nor on a later invocation: so JSON calls go over `node:http` until the
 * client is busy ({@link BUSY_CALLS} calls within {@link BUSY_WINDOW_MS}), when undici is loaded
 * (on the next turn of the event loop, an unref'd `setImmediate`) and takes every call from then
 * on. A client making a few calls a second (one per Lambda invocation) stays on `node:http`,
 * where a call costs some 25–40 µs more CPU than on undici (1.3–1.5×), nothing next to its
 * network time. A streamed body (an upload) goes to undici at once, waiting for it to load:
 * uploads run long, and one wire then handles streams.
 */
export function coldStartWire(
  http: ClosableWire,
  undici: ClosableWire,
  loadUndici: () => Promise<unknown>,
  choice: 'cold-start' | 'http' = 'cold-start',
): ClosableWire {
  const cold = new ColdStartWire(http, undici, loadUndici, choice === 'cold-start');
  return { wire: cold.wire, close: () => cold.close() };
}

class ColdStartWire {
  #warm = false;
  #loading: Promise<void> | undefined;
  #scheduled = false;
  /** Calls sent over node:http since `#windowStart` (a `performance.now()`). */
  #windowCalls = 0;
  #windowStart = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(
    private readonly http: ClosableWire,
    private readonly undici: ClosableWire,
    private readonly loadUndici: () => Promise<unknown>,
    private readonly switches: boolean,
  ) {}

  readonly wire: Wire = (req) => {
    if (this.#warm) return this.undici.wire(req);
    // Once closed, the http wire refuses the call without loading undici for nothing.
    if (typeof req.body === 'object' && !this.#closed) {
      this.#load();
      return this.undici.wire(req);
    }
    if (this.switches && this.#busy()) this.#loadSoon();
    return this.http.wire(req);
  };

  /** Counts a call; true once {@link BUSY_CALLS} fell within one window. */
  #busy(): boolean {
    const now = performance.now();
    if (now - this.#windowStart > BUSY_WINDOW_MS) {
      this.#windowStart = now;
      this.#windowCalls = 0;
    }
    return ++this.#windowCalls >= BUSY_CALLS;
  }

  /** Loads undici on the next turn: the call starting now is sent first. */
  #loadSoon(): void {
    // One turn asked for, not one per busy call: #load starts one load however often it runs.
    if (this.#loading || this.#scheduled || this.#closed) return;
    this.#scheduled = true;
    setImmediate(() => this.#load()).unref();
  }

  #load(): void {
    this.#loading ??= this.loadUndici().then(
      () => {
        this.#warm = true;
        // Its busy sockets close once their answers are read; no new call takes it.
        void this.http.close();
      },
      // undici cannot be loaded (a bundle that left it out): JSON calls stay on node:http.
      () => undefined,
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([this.http.close(), this.undici.close()]);
  }
}
