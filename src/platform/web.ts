import { ClaimsClientBase, type ClaimsClientOptions } from '../client.js';
import type { ValidationIssue } from '../errors.js';
import { watchWebBody } from '../internal/web-progress.js';
import { prepareWebUpload } from '../uploads/web-multipart.js';
import { WireFailure } from '../wire/failure.js';
import { type FetchLike, fetchWire } from '../wire/fetch-wire.js';
import type { ConnectionOptions, Platform } from './types.js';

// workerd refuses `redirect: 'error'` (see FetchWireRuntime); the Node entry keeps it.
const EDGE_FETCH = { streamRedirect: 'manual' } as const;

/**
 * Runtimes without Node (workerd, Deno, Bun, browsers): every call goes through `fetch`, the
 * client's own or the runtime's `globalThis.fetch`, and uploads are built from web streams.
 * Nothing here, nor anything it imports, loads a `node:` module or undici.
 */
export const webPlatform: Platform = {
  runtime: runtimeName(),
  connectionOptionIssues,
  // The runtime's fetch owns its connections: close() has nothing to end.
  defaultWire: () => ({ wire: fetchWire(globalFetch, EDGE_FETCH), close: async () => undefined }),
  fetchWire: (fetch) => fetchWire(fetch, EDGE_FETCH),
  prepareUpload: prepareWebUpload,
  watchBody: watchWebBody,
};

/**
 * Why `dispatcher` and `tls` are refused here rather than ignored: each changes where or how a
 * request goes (a proxy, a client certificate), and a client that silently sent without them
 * would reach the API another way than its caller set up.
 */
const NEEDS_NODE: Readonly<Record<'dispatcher' | 'tls', string>> = {
  dispatcher:
    'needs Node (an undici dispatcher), and this build of the SDK sends every request with fetch: give your own fetch instead',
  tls: 'needs Node (an undici dispatcher), and this build of the SDK sends every request with fetch: set up mutual TLS in the runtime and give its fetch (e.g. a Workers mTLS certificate binding, a Deno.createHttpClient client)',
};

function connectionOptionIssues(options: ConnectionOptions): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name of ['dispatcher', 'tls'] as const) {
    if (options?.[name] !== undefined) issues.push({ path: name, message: NEEDS_NODE[name] });
  }
  return issues;
}

// Looked up on each call, not once: a test (msw) or a polyfill may replace it after the client is built.
const globalFetch: FetchLike = (url, init) => {
  if (typeof globalThis.fetch !== 'function') {
    throw new WireFailure(
      'refused',
      'This runtime has no global fetch: give the client one with the `fetch` option',
      // Stryker disable next-line StringLiteral: a refusal is never sent whatever its `sent` says (the transport reads a 'refused' failure as one)
      'not_connected',
    );
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
 * refused with a `ClaimsValidationError`, as are the `dispatcher` and `tls` options. `close()`
 * exists and does nothing: the runtime's fetch holds the connections.
 *
 * @example
 * const client = new ClaimsClient({ baseUrl: env.CLAIMS_URL, accessToken: env.CLAIMS_TOKEN });
 */
export class ClaimsClient extends ClaimsClientBase {
  constructor(options: ClaimsClientOptions) {
    super(options, webPlatform);
  }
}
