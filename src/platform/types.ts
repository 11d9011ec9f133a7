import type { Dispatcher } from 'undici';
import type { ValidationIssue } from '../errors.js';
import type { WatchBody } from '../internal/progress.js';
import type { TraceCall } from '../telemetry/types.js';
import type { PrepareUpload } from '../uploads/prepare.js';
import type { WIRE_CHOICE, WireChoice } from '../wire/cold-start-wire.js';
import type { TlsOptions } from '../wire/dispatcher.js';
import type { FetchLike } from '../wire/fetch-wire.js';
import type { ClosableWire, Wire } from '../wire/types.js';

/**
 * The client options that say how connections are made (`ClaimsClientOptions` documents them):
 * only the Node entry has them. Tests may add {@link WIRE_CHOICE} (not a public option).
 * Declared here, not picked from the client's options, so the platforms sit below the client.
 */
export interface ConnectionOptions {
  /** See `ClaimsClientOptions.dispatcher`. */
  dispatcher?: Dispatcher;
  /** See `ClaimsClientOptions.tls`. */
  tls?: TlsOptions;
  /** See `ClaimsClientOptions.fetch`. */
  fetch?: FetchLike;
  /** Tests only: which wire the client's own connections use (not a public option). */
  [WIRE_CHOICE]?: WireChoice;
}

/**
 * What differs between the runtimes the client runs on. Each entry gives its own: the Node
 * entry (undici, Node streams and files) and the edge entry (fetch and web streams only, for
 * workerd, Deno, Bun and browsers). The rest of the client is the same code on both.
 */
export interface Platform {
  /** The runtime in the User-Agent, e.g. `node/20.19.0` or `deno/2.1.4`. */
  readonly runtime: string;
  /** Problems with `dispatcher` and `tls` (and their mix with `fetch`) on this runtime. */
  connectionOptionIssues(options: ConnectionOptions): ValidationIssue[];
  /** The wire used when the client is given no `fetch`; options checked by `connectionOptionIssues`. */
  defaultWire(options: ConnectionOptions): ClosableWire;
  /** The wire over a `fetch` the client was given. */
  fetchWire(fetch: FetchLike): Wire;
  /** Checks upload items and builds their multipart body. */
  readonly prepareUpload: PrepareUpload;
  /** Watches a streamed request body for progress (Node streams, or web streams on the edge). */
  readonly watchBody: WatchBody;
  /** OpenTelemetry spans per call (Node only); calls are untraced without it. */
  readonly trace?: TraceCall;
}
