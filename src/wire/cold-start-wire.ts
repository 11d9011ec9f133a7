import type { ClosableWire } from '../platform/types.js';
import type { Wire, WireRequest, WireResponse } from './types.js';

/**
 * Which wire the client's own connections use. Not an option of the public API: the fault
 * tests set it (as a `Symbol.for` key of the client options) to run every fault on each wire.
 *
 * - `'cold-start'` (the default): `node:http` until undici is loaded, then undici;
 * - `'http'`: `node:http` for every JSON call, undici never loaded for them;
 * - `'undici'`: undici from the first call, as before the cold-start wire.
 */
export type WireChoice = 'cold-start' | 'http' | 'undici';

/** The client option key of {@link WireChoice}. */
export const WIRE_CHOICE: unique symbol = Symbol.for('claims-notification-sdk.wire') as never;

/**
 * A client that made this many calls is busy: undici is then loaded even while calls are in
 * flight (they wait for its ~70 ms load once), as its throughput is 1.2–1.6× node:http's.
 */
const BUSY_CALLS = 64;

/**
 * The default wire of the Node entry. undici takes ~70 ms to load (its module evaluation
 * blocks the thread), more than a whole first call over `node:http`; a serverless function's
 * first call should not pay it. So calls go over `node:http` (see `http-wire.ts`) until undici
 * is loaded, and over undici from then on, for its throughput.
 *
 * undici's load starts on the first moment no call is under way: a turn of the event loop after
 * a call settled with no other in flight (an unref'd `setImmediate`, so a script that made its
 * one call and has nothing left to do ends without loading it), or at once once the client is
 * busy ({@link BUSY_CALLS}). A streamed body (an upload) goes to undici at once, waiting for
 * it to load: uploads run long, and only one wire then has to handle streams.
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
  #inFlight = 0;
  #calls = 0;
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
    return this.#viaHttp(req);
  };

  async #viaHttp(req: WireRequest): Promise<WireResponse> {
    this.#inFlight++;
    this.#calls++;
    let response: WireResponse;
    try {
      response = await this.http.wire(req);
    } catch (error) {
      this.#settled();
      throw error;
    }
    return new SettlingResponse(response, () => this.#settled());
  }

  /** A call on the http wire is over (its answer read, or failed). */
  #settled(): void {
    this.#inFlight--;
    if (!this.switches || this.#loading || this.#scheduled || this.#closed) return;
    if (!this.#idleOrBusy()) return;
    this.#scheduled = true;
    // After the settled call's caller has run on (its await resumes in this turn's microtasks).
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#idleOrBusy()) this.#load();
    }).unref();
  }

  #idleOrBusy(): boolean {
    return this.#inFlight === 0 || this.#calls >= BUSY_CALLS;
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

/** An answer whose reading ends its call: `onSettled` runs once the body is read or failed. */
class SettlingResponse implements WireResponse {
  readonly status: number;

  constructor(
    private readonly response: WireResponse,
    private onSettled: () => void,
  ) {
    this.status = response.status;
  }

  headers(): Record<string, string> {
    return this.response.headers();
  }

  async text(maxBytes: number): Promise<{ text: string; truncated: boolean }> {
    try {
      return await this.response.text(maxBytes);
    } finally {
      const settled = this.onSettled;
      this.onSettled = () => undefined;
      settled();
    }
  }
}
