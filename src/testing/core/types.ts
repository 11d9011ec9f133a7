/**
 * One request as the sandbox core sees it, whatever carried it (node:http or msw).
 * `path` is the path below the sandbox's base address, e.g. `/incidents/abc/events`.
 */
export interface SandboxRequest {
  /** The HTTP method, upper case, e.g. `'POST'`. */
  method: string;
  /** The path below the base address, starting with `/`, without the query, e.g. `'/incidents'`. */
  path: string;
  /** The query string's parameters (empty when there is none). */
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The raw request body (empty when there is none). */
  body: Uint8Array;
  /** Aborted when the caller goes away: a fault's wait (`delayMs`) stops then. */
  signal?: AbortSignal;
}

/**
 * What a fault asks the server in front of the core to do with the answer's bytes, beyond
 * what an answer can say: reset the connection instead of answering, hold it without
 * answering, cut the body after some bytes, or send it slowly. `createSandbox` and
 * `claimsHandlers` both do it; an adapter of your own may too.
 */
export type SandboxNetworkFault =
  | {
      /** Reset the connection (TCP RST) instead of answering. */
      kind: 'reset';
    }
  | {
      /** Hold the connection without answering until the client leaves (at most 10 minutes). */
      kind: 'hang';
    }
  | {
      /** Send the head (with the whole body's length) and the start of the body, then close. */
      kind: 'truncate';
      /** How many bytes of the body to send before closing. */
      afterBytes: number;
    }
  | {
      /** Send the body a few bytes at a time. */
      kind: 'drip';
      /** Bytes per write. */
      bytes: number;
      /** Wait between writes, in ms. */
      everyMs: number;
    };

/** The core's answer, for an adapter to write out. */
export interface SandboxResponse {
  /** The HTTP status to answer with, e.g. `201`. */
  status: number;
  /** Headers to answer with, names in lower case, e.g. `{ 'content-type': 'application/json' }`. */
  headers: Record<string, string>;
  /** JSON text, or `undefined` for an empty body. */
  body: string | undefined;
  /** What to do with the connection instead of a plain answer, when a fault says so. */
  network?: SandboxNetworkFault;
  /** The call's id in `sandbox.calls`. */
  callId?: number;
}

/** One element of the `details` list of an error answer. */
export interface SandboxErrorDetail {
  /** Where the problem is, e.g. `extendedFields[1].value` or `attachments[0].url`. */
  path: string;
  /** What kind of problem, e.g. `not_in_list`, `too_long`, `unknown_attachment`. */
  code: string;
  /** The problem in words, e.g. `'must be one of: Fire, Storm; got "Fir"'`. */
  message: string;
}

/**
 * The one error body the sandbox answers with (any status >= 400):
 * `{ "message": "...", "code": "validation_failed", "details": [...] }`.
 * `message` is top-level so the SDK's error messages quote it.
 */
export interface SandboxErrorBody {
  /** The error in words; the SDK's error message quotes it. */
  message: string;
  /** What kind of error, e.g. `'validation_failed'`, `'not_found'`, `'unauthorized'`. */
  code: string;
  /** One entry per problem, for `validation_failed`; absent otherwise. */
  details?: SandboxErrorDetail[];
}
