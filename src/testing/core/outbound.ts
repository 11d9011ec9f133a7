import { fetch as undiciFetch } from 'undici';

/** The parts of a body stream's reader the sandbox uses (a web `ReadableStreamDefaultReader`). */
export interface OutboundBodyReader {
  /** The next chunk of the body; `done: true` at its end. */
  read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
  /** Stops reading: called when a download passes the size limit. */
  cancel(reason?: unknown): Promise<void>;
}

/** The parts of a fetch `Response` the sandbox reads. */
export interface OutboundResponse {
  /** The HTTP status; a delivery counts as `delivered` for 2xx, a download succeeds on 2xx. */
  status: number;
  /** The answer's headers; downloads read `content-type`, `content-length`, `content-disposition`. */
  headers: {
    /** A header's value by name (any case), or `null` when absent. */
    get(name: string): string | null;
  };
  /** The whole body: used when `body` has no `getReader`. */
  arrayBuffer(): Promise<ArrayBuffer>;
  /**
   * `getReader` lets a download stop at the size limit instead of reading the file whole.
   * Optional so a minimal stand-in fetch without a body stream still works (it is then read
   * whole with `arrayBuffer()`, and checked afterwards).
   */
  body: {
    /** Drops the body unread (a delivery's answer, a refused download). */
    cancel(): Promise<void>;
    /** A reader over the body's chunks, read up to the size limit. */
    getReader?(): OutboundBodyReader;
  } | null;
}

/**
 * How the sandbox makes its own requests (downloading `url` attachments, delivering
 * webhooks): any fetch-compatible function.
 */
export type OutboundFetch = (
  url: string,
  init: {
    method: string;
    headers?: Record<string, string>;
    body?: string;
    signal?: AbortSignal;
    redirect?: 'follow' | 'manual';
  },
) => Promise<OutboundResponse>;

/**
 * undici's own `fetch`, not `globalThis.fetch`: msw patches the global one, and a sandbox
 * running as msw handlers must still reach a real webhook receiver or file server. Pass
 * `fetch: globalThis.fetch` in the sandbox options to route these through msw instead.
 */
export const defaultOutboundFetch: OutboundFetch = (url, init) => undiciFetch(url, init);
