import type { Agent as HttpAgent } from 'node:http';
import { ClaimsError } from '../errors.js';
import { IDLE_LIMIT_MS, type TlsOptions } from './dispatcher.js';

/** Taken off the server's announced keep-alive, as {@link OwnDispatcher} does. */
const SERVER_KEEP_ALIVE_MARGIN_MS = 1_000;

/**
 * The `node:http` keep-alive agent of one client, for the cold-start wire: the same stale
 * socket rule as the undici side's `OwnDispatcher`. A function frozen between invocations
 * cannot see the server close an idle socket, so after an idle gap longer than
 * min({@link IDLE_LIMIT_MS}, the server's keep-alive less 1 s) the next request goes out through
 * a fresh agent, on a fresh connection; the old agent's idle sockets are closed at once and its
 * busy ones when their answer is read.
 */
export class OwnHttpAgent {
  readonly #create: (client: HttpClient) => HttpAgent;
  #current: HttpAgent | undefined;
  #lastActive = 0;
  #idleLimitMs = IDLE_LIMIT_MS;
  #closed = false;

  constructor(create: (client: HttpClient) => HttpAgent) {
    this.#create = create;
  }

  /**
   * The agent for a request starting now, made by `node:http` or `node:https`. A client sends
   * to one origin only (its `baseUrl`'s), so its agent is always of the right kind.
   */
  take(now: number, client: HttpClient): HttpAgent {
    if (this.#closed)
      throw new ClaimsError('The client is closed (client.close() was called): nothing was sent');
    let current = this.#current;
    if (current === undefined) {
      current = this.#current = this.#create(client);
    } else if (now - this.#lastActive > this.#idleLimitMs) {
      windDown(current);
      current = this.#current = this.#create(client);
    }
    this.#lastActive = now;
    return current;
  }

  /**
   * The agent for a request that took `agent` and then waited (a turn of the event loop): the
   * fresh one if `agent` was retired meanwhile, so calls failing together still share one fresh
   * pool; `agent` itself once the client is closed (a call already under way finishes).
   */
  stillCurrent(agent: HttpAgent, now: number, client: HttpClient): HttpAgent {
    return this.#closed || this.#current === agent ? agent : this.take(now, client);
  }

  /**
   * Drops `agent` for a fresh one, unless that happened already: one of its kept-alive sockets
   * was found dead, and the others, as old, are likely dead too. Calls failing together (after
   * a freeze) thus all go on to one fresh agent, whose sockets stay (as `OwnDispatcher.retire`).
   */
  retire(agent: HttpAgent): void {
    if (this.#current !== agent) return;
    this.#current = undefined;
    windDown(agent);
  }

  /** Notes activity now, with the answer's `keep-alive` header (`timeout=5`) when it has one. */
  touch(now: number, keepAlive: string | undefined): void {
    this.#lastActive = now;
    // Stryker disable next-line ConditionalExpression: the regex finds nothing in "undefined" either
    const seconds = keepAlive === undefined ? undefined : /timeout=(\d+)/i.exec(keepAlive)?.[1];
    if (seconds === undefined) return;
    const serverMs = Number(seconds) * 1000 - SERVER_KEEP_ALIVE_MARGIN_MS;
    this.#idleLimitMs = Math.max(0, Math.min(IDLE_LIMIT_MS, serverMs));
  }

  /** Closes the idle sockets now and the busy ones once their answer is read; later calls are refused. */
  close(): void {
    this.#closed = true;
    if (this.#current) windDown(this.#current);
    this.#current = undefined;
  }
}

/** Whether `agent` holds a kept-alive socket that its next request would reuse. */
export function hasIdleSockets(agent: HttpAgent): boolean {
  const free = agent.freeSockets;
  for (const key in free) if ((free[key]?.length ?? 0) > 0) return true;
  return false;
}

/**
 * Ends an agent without cutting a request short: its idle sockets now; a busy one when it is
 * released, as an agent without keep-alive destroys a socket given back to it.
 */
function windDown(agent: HttpAgent): void {
  // Node's own field (not in its typings): read when a socket is given back, which it then destroys.
  (agent as HttpAgent & { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets))
    for (const socket of sockets ?? []) socket.destroy();
}

/** `node:http` or `node:https`: what the wire sends with and makes agents from. */
export interface HttpClient {
  readonly Agent: new (options: { keepAlive: boolean } & TlsOptions) => HttpAgent;
  readonly request: typeof import('node:http').request;
  /** True for `node:https`. */
  readonly secure: boolean;
}

/** The agents of a client; an `https` one has the client's TLS options (mutual TLS, a private CA). */
export function ownHttpAgent(tls: TlsOptions | undefined): OwnHttpAgent {
  return new OwnHttpAgent((client) => new client.Agent({ keepAlive: true, ...(client.secure ? tls : {}) }));
}
