import type { Readable } from 'node:stream';
import type { WireFailure } from './failure.js';

/**
 * A streamed request body: a Node `Readable` (the Node entry's multipart) or a web stream (the
 * edge entry's). Both can be destroyed, which the transport does when an attempt fails.
 */
export type StreamedBody = Readable | WebStreamBody;

/** A web `ReadableStream` body; `destroy()` cancels it and the sources it reads. */
export interface WebStreamBody {
  readonly web: ReadableStream<Uint8Array>;
  destroy(error?: Error): void;
}

/** One HTTP attempt, as the transport hands it to a wire. */
export interface WireRequest {
  /** The full URL. */
  url: string;
  /** The same URL split, for wires that take it so: `https://host:port` … */
  origin: string;
  /** … and the path with its query. */
  path: string;
  method: string;
  headers: Record<string, string>;
  /** A JSON string, a stream (multipart upload) or nothing. */
  body: string | StreamedBody | undefined;
  /** The call's own signal: aborts on the caller's abort, the deadline or a stall. */
  signal: WireSignal;
  /** Longest time without progress: waiting for headers, or between body chunks. */
  timeoutMs: number;
  /**
   * Send on a new connection, not a kept-alive one: set for the one repeat of a request whose
   * kept-alive connection the wire found dead before writing any byte of it (a failure it said
   * was `sent: 'dead_connection'`, src/wire/failure.ts): a connection opened after that
   * failure. A wire that dropped the dead connection's pool when it said so (the undici and
   * `node:http` wires do) has nothing more to do; one that cannot choose its connections (a
   * user's `fetch`) never says so.
   */
  freshConnection?: boolean;
}

/**
 * The part of `AbortSignal` a wire may use. The call's signal is not a platform one (a platform
 * `AbortController` per request cost a quarter of the throughput); undici accepts it, as it
 * takes any object with `addEventListener`.
 */
export interface WireSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Raw answer headers: a record (undici, `node:http`) or a `Headers` (fetch). */
export type RawHeaders =
  | Readonly<Record<string, string | string[] | undefined>>
  | { forEach(callback: (value: string, name: string) => void): void };

/** The answer's head; the body is read by one of the methods, exactly once. */
export interface WireResponse {
  status: number;
  /** The headers as the wire got them (a record, or fetch's `Headers`): nothing else of the answer. */
  readonly rawHeaders: RawHeaders;
  /** Response headers, lower-case names, repeated values joined with `, `. */
  headers(): Record<string, string>;
  /**
   * The body as UTF-8 text (a byte order mark kept), read up to `maxBytes`: past them the
   * read stops, the rest is never read (the connection is closed) and `truncated` is true.
   * Memory stays bounded by `maxBytes` whatever the server sends.
   */
  text(maxBytes: number): Promise<{ text: string; truncated: boolean }>;
}

/**
 * Sends one attempt. Rejects with a {@link WireFailure} saying how far the request got (the
 * underlying error as `cause`); the transport builds the call's error from it.
 */
export type Wire = (request: WireRequest) => Promise<WireResponse>;

/** A wire and how to end what it holds open (`client.close()`). */
export interface ClosableWire {
  readonly wire: Wire;
  close(): Promise<void>;
}
