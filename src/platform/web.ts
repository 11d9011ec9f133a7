import { ClaimsClientBase, type ClaimsClientOptions } from '../client.js';
import { ClaimsError } from '../errors.js';
import { prepareWebUpload } from '../uploads/web-multipart.js';
import { type FetchLike, fetchWire } from '../wire/fetch-wire.js';
import type { Platform } from './types.js';

// workerd refuses `redirect: 'error'` (see FetchWireRuntime); the Node entry keeps it.
const EDGE_FETCH = { streamRedirect: 'manual' } as const;

/**
 * Runtimes without Node (workerd, Deno, Bun, browsers): every call goes through `fetch`, the
 * client's own or the runtime's `globalThis.fetch`, and uploads are built from web streams.
 * Nothing here, nor anything it imports, loads a `node:` module or undici.
 */
export const webPlatform: Platform = {
  runtime: runtimeName(),
  defaultWire: () => fetchWire(globalFetch, EDGE_FETCH),
  fetchWire: (fetch) => fetchWire(fetch, EDGE_FETCH),
  prepareUpload: prepareWebUpload,
};

// Looked up on each call, not once: a test (msw) or a polyfill may replace it after the client is built.
const globalFetch: FetchLike = (url, init) => {
  if (typeof globalThis.fetch !== 'function') {
    throw new ClaimsError('This runtime has no global fetch: give the client one with the `fetch` option');
  }
  return globalThis.fetch(url, init);
};

/** `deno/2.1.4`, `bun/1.2.0`, or the runtime's own `navigator.userAgent` (`Cloudflare-Workers`). */
function runtimeName(): string {
  const host = globalThis as {
    Deno?: { version?: { deno?: string } };
    Bun?: { version?: string };
    navigator?: { userAgent?: unknown };
  };
  if (host.Deno?.version?.deno) return `deno/${host.Deno.version.deno}`;
  if (host.Bun?.version) return `bun/${host.Bun.version}`;
  const agent = host.navigator?.userAgent;
  // A header value must be printable ASCII; a browser's long agent string says little here.
  return typeof agent === 'string' && /^[\x21-\x7e]{1,40}$/.test(agent) ? agent : 'edge';
}

/**
 * The Claims Notification API client, for runtimes without Node (the package's `workerd`,
 * `edge-light`, `deno`, `bun`, `worker` and `browser` export conditions). It is the Node
 * entry's client with `fetch` as its wire: same options, methods, errors and retries. Uploads
 * take `Blob`, `Uint8Array` and web `ReadableStream` data; file paths and Node streams are
 * refused with a `ClaimsValidationError`.
 *
 * @example
 * const client = new ClaimsClient({ baseUrl: env.CLAIMS_URL, accessToken: env.CLAIMS_TOKEN });
 */
export class ClaimsClient extends ClaimsClientBase {
  constructor(options: ClaimsClientOptions) {
    super(options, webPlatform);
  }
}
