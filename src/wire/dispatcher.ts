import type { Dispatcher } from 'undici';
import { IDLE_LIMIT_MS, IdlePool } from './idle-pool.js';
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
 * The undici dispatcher of one client: its own, never undici's process-wide global one, so its
 * TLS and proxy settings stay its own and `close()` frees only its sockets. Replaced by a fresh
 * one when its connections may be stale (see {@link IdlePool}); an old one is closed gracefully.
 */
export class OwnDispatcher extends IdlePool<Dispatcher, UndiciAgents> {
  /**
   * @param writesHeaders true when requests go through a proxy agent, which writes to the
   *   headers it is given: they must then be a copy, as the transport shares its header sets.
   */
  constructor(
    create: (undici: UndiciAgents) => Dispatcher,
    readonly writesHeaders: boolean,
  ) {
    super(create, (dispatcher) => dispatcher.close());
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
