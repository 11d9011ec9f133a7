import type { PrepareUpload } from '../uploads.js';
import type { FetchLike } from '../wire/fetch-wire.js';
import type { Wire } from '../wire/types.js';

/**
 * What differs between the runtimes the client runs on. Each entry gives its own: the Node
 * entry (undici, Node streams and files) and the edge entry (fetch and web streams only, for
 * workerd, Deno, Bun and browsers). The rest of the client is the same code on both.
 */
export interface Platform {
  /** The runtime in the User-Agent, e.g. `node/20.19.0` or `deno/2.1.4`. */
  readonly runtime: string;
  /** The wire used when the client is given no `fetch`. */
  defaultWire(): Wire;
  /** The wire over a `fetch` the client was given. */
  fetchWire(fetch: FetchLike): Wire;
  /** Checks upload items and builds their multipart body. */
  readonly prepareUpload: PrepareUpload;
}
