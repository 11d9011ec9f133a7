import type { Readable } from 'node:stream';

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
  body: string | Readable | undefined;
  signal: AbortSignal | undefined;
  /** Longest time without progress: waiting for headers, or between body chunks. */
  timeoutMs: number;
}

/** The answer's head; the body is read by one of the methods, exactly once. */
export interface WireResponse {
  status: number;
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
 * Sends one attempt. Rejects with `ClaimsConnectionError`/`ClaimsTimeoutError` (the
 * underlying error as `cause`), or with the platform's `AbortError` when `signal` aborted.
 */
export type Wire = (request: WireRequest) => Promise<WireResponse>;
