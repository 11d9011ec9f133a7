import type { IncomingHttpHeaders } from 'node:http';
import { addressKind } from '../core/addresses.js';
import { SandboxHttpError } from '../core/http.js';

/**
 * Which requests the sandbox's server answers, one rule for the API and `/_sandbox/` alike:
 *
 * - the `Host` must name this machine: `localhost` (or a `*.localhost` name, which browsers
 *   resolve to loopback themselves), a loopback address (127.0.0.0/8, `[::1]`), or a name in
 *   `allowedHosts`. A page elsewhere that makes its own DNS name resolve to 127.0.0.1 (DNS
 *   rebinding) still sends its own name as `Host`, and is refused;
 * - a browser's request from another origin is refused: an `Origin` other than the sandbox's
 *   own, or `Sec-Fetch-Site` other than `same-origin` or `none` (typed in the address bar),
 *   except a plain navigation to a page (a link to the inspector), which changes nothing.
 */
export class HostRule {
  readonly #any: boolean;
  readonly #names: ReadonlySet<string>;
  readonly #suffixes: readonly string[];

  /**
   * @param allowedHosts more host names to answer: `'sandbox.test'` that name, `'.test'` that
   * name and every name under it; `true` any name (DNS rebinding protection off).
   */
  constructor(allowedHosts: readonly string[] | true = []) {
    this.#any = allowedHosts === true;
    // Stryker disable next-line ArrayDeclaration: with `true` every name is served, and the lists are never read
    const names = allowedHosts === true ? [] : allowedHosts.map((h) => h.trim().toLowerCase());
    // A '.domain' entry in the exact set matches no host name (none starts with a dot): harmless.
    this.#names = new Set(names);
    this.#suffixes = names.filter((h) => h.startsWith('.'));
  }

  /** Why a request is refused (a 403 to answer with), or `undefined` when it is served. */
  refusal(method: string, headers: IncomingHttpHeaders): SandboxHttpError | undefined {
    const host = headers.host;
    // Stryker disable next-line ConditionalExpression: #hostAllowed refuses what `undefined` would read as too
    if (!this.#any && !(host !== undefined && this.#hostAllowed(host))) {
      return new SandboxHttpError(
        403,
        'host_not_allowed',
        'This sandbox answers only requests to localhost, a loopback address or a name in its allowedHosts option',
      );
    }
    const navigation = method.toUpperCase() === 'GET' && headers['sec-fetch-mode'] === 'navigate';
    const origin = headers.origin;
    const site = headers['sec-fetch-site'];
    const crossOrigin =
      (origin !== undefined && origin.toLowerCase() !== `http://${host?.toLowerCase()}`) ||
      (site !== undefined && site !== 'same-origin' && site !== 'none');
    if (crossOrigin && !navigation) {
      return new SandboxHttpError(
        403,
        'cross_origin',
        'This sandbox refuses requests that web pages of other origins make: open its own pages instead',
      );
    }
    return undefined;
  }

  #hostAllowed(host: string): boolean {
    // A name or an address, and a port: nothing a URL parser would read as more (`a@b`).
    if (!/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host)) return false;
    let hostname: string;
    try {
      hostname = new URL(`http://${host}`).hostname;
    } catch {
      return false;
    }
    if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
    if (addressKind(hostname) === 'loopback') return true;
    return (
      this.#names.has(hostname) || this.#suffixes.some((s) => hostname.endsWith(s) || hostname === s.slice(1))
    );
  }
}
