import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressKind, unbracket } from './addresses.js';

/**
 * Resolves a host name to its addresses, as `dns.promises.lookup(name, { all: true })` does:
 * the sandbox's own requests (url downloads, webhook deliveries) check each before connecting.
 * Give your own to map test host names (`receiver.test` → `127.0.0.1`).
 */
export type SandboxLookup = (
  hostname: string,
) => Promise<ReadonlyArray<{ address: string; family?: number }>>;

/** Why the sandbox would not send a request somewhere. Its message names no address. */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
}

/** The wording of a refusal: it names the rule and the way out, never the address. */
export const REFUSED_TARGET =
  'the address is on a private or link-local network, which the sandbox does not reach unless allowPrivateTargets is true';

const systemLookup: SandboxLookup = (hostname) => dnsLookup(hostname, { all: true });

/**
 * Decides where the sandbox's own requests may go: loopback and the public internet, and
 * private or link-local networks only with `allowPrivateTargets`. Each request (and each
 * redirect) is checked before it is sent, and the default fetch checks again as it connects,
 * so a name that resolves differently the second time (DNS rebinding) is caught too.
 */
export class TargetGuard {
  readonly #lookup: SandboxLookup;
  readonly #allowPrivate: boolean;

  constructor(options: { lookup?: SandboxLookup; allowPrivateTargets?: boolean } = {}) {
    this.#lookup = options.lookup ?? systemLookup;
    this.#allowPrivate = options.allowPrivateTargets === true;
  }

  /**
   * Checks a URL's host: an IP address as it is, a name by every address it resolves to.
   * @throws TargetRefusedError for a refused address; the lookup's own error when it fails.
   */
  async check(url: URL): Promise<void> {
    await this.resolve(unbracket(url.hostname));
  }

  /** The addresses of a host, each checked (an IP address is its own). */
  async resolve(host: string): Promise<Array<{ address: string; family: number }>> {
    const family = isIP(host);
    const found = family
      ? [{ address: host, family }]
      : (await this.#lookup(host)).map((a) => ({
          address: a.address,
          family: a.family ?? (a.address.includes(':') ? 6 : 4),
        }));
    if (found.length === 0) throw new Error('the name has no address');
    if (!this.#allowPrivate && found.some((a) => addressKind(a.address) === 'private')) {
      throw new TargetRefusedError(REFUSED_TARGET);
    }
    return found;
  }

  /**
   * A `lookup` for `net.connect` (undici's `connect` option): the addresses the socket will
   * use, checked as it opens, whichever form (`all` or one address) Node asks for.
   */
  readonly connectLookup = (
    hostname: string,
    options: { all?: boolean },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    this.resolve(hostname).then(
      (found) => {
        if (options.all) callback(null, found);
        else callback(null, (found[0] as LookupAddress).address, (found[0] as LookupAddress).family);
      },
      (error: Error) => callback(error, []),
    );
  };
}
