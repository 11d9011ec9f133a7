/**
 * The three wires a `ClaimsClient` can send on, each forced the way the README's "Connections"
 * section says: the default (Node's `node:http` until the client is busy), undici (a
 * `dispatcher` of one's own), and `fetch`. Each also says how to tell, from the headers the
 * sandbox recorded, that the call really went over that wire.
 */
import { Agent } from 'undici';
import type { ClaimsClientOptions } from '../../src/index.js';

export interface ClientWire {
  name: string;
  /** Client options that force the wire (a fresh dispatcher each time). */
  options(): Partial<ClaimsClientOptions>;
  /** True when recorded request headers came from this wire. */
  sentBy(headers: Record<string, string>): boolean;
}

const names = (headers: Record<string, string>) => Object.keys(headers);

export const CLIENT_WIRES: readonly ClientWire[] = [
  {
    name: 'node:http (the default)',
    options: () => ({}),
    // node:http writes Host after the caller's headers; undici first.
    sentBy: (h) => names(h).includes('host') && names(h)[0] !== 'host' && !('sec-fetch-mode' in h),
  },
  {
    name: 'undici (a dispatcher)',
    options: () => ({ dispatcher: new Agent() }),
    sentBy: (h) => names(h)[0] === 'host' && !('sec-fetch-mode' in h),
  },
  {
    name: 'fetch',
    options: () => ({ fetch: globalThis.fetch }),
    sentBy: (h) => h['sec-fetch-mode'] === 'cors',
  },
];
