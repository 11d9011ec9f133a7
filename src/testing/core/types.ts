/**
 * One request as the sandbox core sees it, whatever carried it (node:http or msw).
 * `path` is the path below the sandbox's base address, e.g. `/incidents/abc/events`.
 */
export interface SandboxRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The raw request body (empty when there is none). */
  body: Uint8Array;
}

/** The core's answer, for an adapter to write out. */
export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON text, or `undefined` for an empty body. */
  body: string | undefined;
}

/** One element of the `details` list of an error answer. */
export interface SandboxErrorDetail {
  /** Where the problem is, e.g. `extendedFields[1].value` or `attachments[0].url`. */
  path: string;
  /** What kind of problem, e.g. `not_in_list`, `too_long`, `unknown_attachment`. */
  code: string;
  message: string;
}

/**
 * The one error body the sandbox answers with (any status >= 400):
 * `{ "message": "...", "code": "validation_failed", "details": [...] }`.
 * `message` is top-level so the SDK's error messages quote it.
 */
export interface SandboxErrorBody {
  message: string;
  code: string;
  details?: SandboxErrorDetail[];
}
