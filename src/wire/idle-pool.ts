import { WireFailure } from './failure.js';

/**
 * How long a connection may sit idle before the next request is sent on a fresh connection
 * instead, unless the server announced a shorter keep-alive. undici's own default keep-alive is 4 s.
 */
export const IDLE_LIMIT_MS = 4_000;
/** Taken off the server's announced keep-alive: its timer and ours do not start together. */
const SERVER_KEEP_ALIVE_MARGIN_MS = 1_000;

/**
 * The connection pool of one client (undici's dispatcher, or a `node:http` agent), replaced by
 * a fresh one when its connections may be stale. A serverless function is frozen between
 * invocations while the server or a load balancer closes idle keep-alive sockets; the pool's
 * own timers that would drop them cannot run while frozen, so the next request would be
 * written to a dead socket and fail after it may have left, which a POST (no idempotency key)
 * cannot retry. So after an idle gap longer than min({@link IDLE_LIMIT_MS}, the server's
 * keep-alive less 1 s), the next request goes out through a fresh pool; the old one is ended
 * gracefully (requests still running on it finish).
 *
 * @typeParam P the pool.
 * @typeParam C what a pool is made with (undici's classes, or `node:http`/`node:https`).
 */
export class IdlePool<P, C> {
  #current: P | undefined = undefined;
  #lastActive = 0;
  #idleLimitMs = IDLE_LIMIT_MS;
  #closed = false;

  /**
   * @param create makes a pool.
   * @param end ends a pool once its requests finish (its promise, when it gives one, settles then).
   */
  constructor(
    private readonly create: (context: C) => P,
    private readonly end: (pool: P) => Promise<void> | undefined,
  ) {}

  /** The pool for a request starting now. Refused (nothing sent) once the client is closed. */
  take(context: C, now: number): P {
    if (this.#closed) {
      throw new WireFailure(
        'refused',
        'The client is closed (client.close() was called): nothing was sent',
        // Stryker disable next-line StringLiteral: a refusal is never sent whatever its `sent` says (the transport reads a 'refused' failure as one)
        'not_connected',
      );
    }
    let current = this.#current;
    if (current === undefined) current = this.#current = this.create(context);
    else if (now - this.#lastActive > this.#idleLimitMs) {
      this.#end(current);
      current = this.#current = this.create(context);
    }
    this.#lastActive = now;
    return current;
  }

  /**
   * The pool for a request that took `pool` and then waited (a turn of the event loop): the
   * fresh one if `pool` was retired meanwhile, so calls failing together still share one fresh
   * pool; `pool` itself once the client is closed (a call already under way finishes).
   */
  stillCurrent(pool: P, context: C, now: number): P {
    return this.#closed || this.#current === pool ? pool : this.take(context, now);
  }

  /**
   * Drops `pool` for a fresh one, unless that happened already: one of its kept-alive
   * connections was found dead, and the others, as old, are likely dead too. Calls failing
   * together (after a freeze) thus all go on to one fresh pool, whose connections stay.
   */
  retire(pool: P): void {
    if (this.#current !== pool) return;
    this.#current = undefined;
    this.#end(pool);
  }

  /**
   * Notes that the connection was active now, with the answer's `keep-alive` header as the
   * wire got it (`timeout=5`): the server's own idle limit, which may be shorter than ours.
   */
  touch(now: number, keepAlive: string | readonly string[] | undefined): void {
    this.#lastActive = now;
    // Repeated lines are one comma-separated list (RFC 9110, 5.3), as String() joins them; and
    // String(undefined) is 'undefined', which holds no timeout= either.
    const seconds = /timeout=(\d+)/i.exec(String(keepAlive))?.[1];
    if (seconds === undefined) return;
    this.#idleLimitMs = Math.max(
      0,
      Math.min(IDLE_LIMIT_MS, Number(seconds) * 1000 - SERVER_KEEP_ALIVE_MARGIN_MS),
    );
  }

  /** Refuses later requests and ends the pool once the requests still running finish. */
  async close(): Promise<void> {
    this.#closed = true;
    const current = this.#current;
    this.#current = undefined;
    if (current !== undefined) await this.end(current);
  }

  #end(pool: P): void {
    this.end(pool)?.catch(() => undefined);
  }
}
