import type { Agent as HttpAgent } from 'node:http';
import type { TlsOptions } from './dispatcher.js';
import { IdlePool } from './idle-pool.js';

/**
 * The `node:http` keep-alive agent of one client, for the cold-start wire: the same stale
 * socket rule as the undici side's `OwnDispatcher` (see {@link IdlePool}). An old agent's idle
 * sockets are closed at once and its busy ones when their answer is read.
 */
export class OwnHttpAgent extends IdlePool<HttpAgent, HttpClient> {
  constructor(create: (client: HttpClient) => HttpAgent) {
    super(create, windDown);
  }
}

/** Whether `agent` holds a kept-alive socket that its next request would reuse. */
export function hasIdleSockets(agent: HttpAgent): boolean {
  const free = agent.freeSockets;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,OptionalChaining: node:http deletes a freeSockets entry once its list is empty, so every key listed holds a socket
  for (const key in free) if ((free[key]?.length ?? 0) > 0) return true;
  return false;
}

/**
 * Ends an agent without cutting a request short: its idle sockets now; a busy one when it is
 * released, as an agent without keep-alive destroys a socket given back to it.
 */
function windDown(agent: HttpAgent): undefined {
  // Node's own field (not in its typings): read when a socket is given back, which it then destroys.
  (agent as HttpAgent & { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets))
    for (const socket of sockets ?? []) socket.destroy();
  return undefined;
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
