import type { Dispatcher } from 'undici';
import { ClaimsError } from '../errors.js';
import type { UndiciAgents } from './undici-agents.js';

/** Client certificates and trust for mutual TLS (insurers' B2B links often require it). */
export interface TlsOptions {
  /** The client certificate chain, PEM. */
  cert?: string | Buffer | Array<string | Buffer>;
  /** The client certificate's private key, PEM. */
  key?: string | Buffer | Array<string | Buffer>;
  /** The key's passphrase, when it has one. */
  passphrase?: string;
  /** Certificate authorities to trust instead of Node's bundled ones, PEM (a private CA). */
  ca?: string | Buffer | Array<string | Buffer>;
}

/**
 * How long a socket may sit idle before the next request is sent on a fresh connection instead,
 * unless the server announced a shorter keep-alive. undici's own default keep-alive is 4 s.
 */
export const IDLE_LIMIT_MS = 4_000;
/** Taken off the server's announced keep-alive: its timer and ours do not start together. */
const SERVER_KEEP_ALIVE_MARGIN_MS = 1_000;

/**
 * The undici dispatcher of one client: its own, never undici's process-wide global one, so its
 * TLS and proxy settings stay its own and `close()` frees only its sockets.
 *
 * Stale sockets: a serverless function is frozen between invocations while the server or a load
 * balancer closes idle keep-alive sockets; undici's timer that would drop them cannot run while
 * frozen, so the next request would be written to a dead socket and fail after it may have left,
 * which a POST (no idempotency key) cannot retry. So after an idle gap longer than the server
 * allows (or {@link IDLE_LIMIT_MS}), the next request goes through a fresh dispatcher: the old one
 * is closed gracefully (requests still running on it finish).
 */
export class OwnDispatcher {
  /**
   * True when requests go through a proxy agent, which writes to the headers it is given: they
   * must then be a copy, as the transport shares its header sets between requests.
   */
  readonly writesHeaders: boolean;
  readonly #create: (undici: UndiciAgents) => Dispatcher;
  #current: Dispatcher | undefined;
  #lastActive = 0;
  #idleLimitMs = IDLE_LIMIT_MS;
  #closed = false;

  constructor(create: (undici: UndiciAgents) => Dispatcher, writesHeaders: boolean) {
    this.#create = create;
    this.writesHeaders = writesHeaders;
  }

  /** The dispatcher for a request starting now. */
  take(undici: UndiciAgents, now: number): Dispatcher {
    if (this.#closed)
      throw new ClaimsError('The client is closed (client.close() was called): nothing was sent');
    let current = this.#current;
    if (current === undefined) {
      current = this.#current = this.#create(undici);
    } else if (now - this.#lastActive > this.#idleLimitMs) {
      const stale = current;
      current = this.#current = this.#create(undici);
      stale.close().catch(() => undefined);
    }
    this.#lastActive = now;
    return current;
  }

  /**
   * Drops `dispatcher` for a fresh one, unless that happened already: one of its kept-alive
   * connections was found dead, and the others, as old, are likely dead too. Calls failing
   * together (after a freeze) thus all go on to one fresh dispatcher, whose connections stay.
   */
  retire(dispatcher: Dispatcher): void {
    if (this.#current !== dispatcher) return;
    this.#current = undefined;
    dispatcher.close().catch(() => undefined);
  }

  /**
   * Notes that the connection was active now, with the answer's `keep-alive` header when it has
   * one (`timeout=5`): the server's own idle limit, which may be shorter than ours.
   */
  touch(now: number, keepAlive: string | undefined): void {
    this.#lastActive = now;
    // Stryker disable next-line ConditionalExpression: the regex finds nothing in "undefined" either
    if (keepAlive === undefined) return;
    const match = /timeout=(\d+)/i.exec(keepAlive);
    if (match) {
      const serverMs = Number(match[1]) * 1000 - SERVER_KEEP_ALIVE_MARGIN_MS;
      this.#idleLimitMs = Math.max(0, Math.min(IDLE_LIMIT_MS, serverMs));
    }
  }

  /** Closes the sockets, after the requests still running finish. */
  async close(): Promise<void> {
    this.#closed = true;
    const current = this.#current;
    this.#current = undefined;
    if (current) await current.close();
  }
}

/**
 * The dispatcher a client makes for itself: an `EnvHttpProxyAgent` when `HTTPS_PROXY`,
 * `HTTP_PROXY` (or their lower-case forms) is set, which also honours `NO_PROXY`; a plain
 * `Agent` otherwise; either with the client's TLS options. The environment is read once, here.
 */
export function ownDispatcher(
  tls: TlsOptions | undefined,
  env: NodeJS.ProcessEnv = process.env,
): OwnDispatcher {
  const connect = tls ? { ...tls } : undefined;
  const proxied = Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
  const create = (undici: UndiciAgents): Dispatcher => {
    const options = {
      keepAliveTimeout: IDLE_LIMIT_MS,
      ...(connect ? { connect } : {}),
    };
    if (!proxied) return new undici.Agent(options);
    // The proxy is reached in the clear or over its own TLS; the client's certificates are for
    // the API, at the end of the tunnel.
    return new undici.EnvHttpProxyAgent({ ...options, ...(connect ? { requestTls: connect } : {}) });
  };
  return new OwnDispatcher(create, proxied);
}
