import { REDACTED, Redactor } from '../../internal/redact.js';
import { parseMultipart } from './multipart.js';

/**
 * Names of headers and JSON fields that carry a credential, whatever else they say: their
 * values are never shown (`X-Api-Key`, `client_secret`, `access_token`, `headerValue`...).
 */
const CREDENTIAL_NAME = /auth|token|secret|key|signature|^sig$|passw|cookie|session|credential|headervalue/i;
/** …except names that say what kind, or which one (`token_type`, `keyId`): not a credential. */
const DESCRIBES = /(type|name|id)$/i;

/** True for a header or field name whose value is a credential. */
export function namesCredential(name: string): boolean {
  return CREDENTIAL_NAME.test(name) && !DESCRIBES.test(name);
}
/** The tokens the sandbox's OAuth endpoint issues. */
const ISSUED_TOKEN = /sbx_oauth_[\w-]+/g;
/** Shorter values are not looked for in free text (they would blank out ordinary words). */
const MIN_LITERAL = 4;
/** How much of a body's text a view keeps. */
export const MAX_VIEW_CHARS = 16_384;
/** Bodies up to this size are parsed to be shown (JSON pretty-printed, multipart listed). */
const MAX_PARSED_BYTES = 1024 * 1024;

/** A body as the sandbox shows it: redacted, cut, multipart parts listed. */
export interface SandboxBodyView {
  /** Its size as received, in bytes. */
  bytes: number;
  /** The body as text, redacted (JSON pretty-printed), at most 16,384 characters; absent for an empty, multipart or binary body. */
  text?: string;
  /** True when `text` is cut short. */
  truncated?: boolean;
  /** A multipart body's parts (their data is not shown here; see `sandbox.attachment(id)`). */
  parts?: Array<{ name?: string; filename?: string; contentType: string; bytes: number }>;
}

/**
 * Keeps the sandbox's secrets out of what it shows (the inspector, `sandbox.calls`): its token
 * in every spelling, tokens its OAuth endpoint issued, webhooks' header values and the
 * values of every header or JSON field named like a credential.
 */
export class SandboxSecrets {
  readonly #token: Redactor;
  readonly #literals: () => Iterable<string>;

  /** @param literals other secret values, looked up when needed (webhook header values, the OAuth client secret). */
  constructor(token: string, literals: () => Iterable<string>) {
    this.#token = new Redactor(token);
    this.#literals = literals;
  }

  /** The text with every secret replaced by `[REDACTED]`. */
  text(text: string): string {
    let out = this.#token.text(text).replace(ISSUED_TOKEN, REDACTED);
    for (const literal of this.#literals()) {
      if (literal.length >= MIN_LITERAL) out = out.split(literal).join(REDACTED);
    }
    return out;
  }

  /**
   * A header set to show: credential headers and `secretNames` (webhooks' header names) blanked
   * (`Authorization` keeps its scheme), every other value redacted as text.
   */
  headers(
    headers: Record<string, string>,
    secretNames: ReadonlySet<string> = new Set(),
  ): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (lower === 'authorization' || lower === 'proxy-authorization') {
        const scheme = /^\s*([A-Za-z][\w-]*)\s+\S/.exec(value)?.[1];
        out[name] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
      } else if (namesCredential(lower) || secretNames.has(lower)) out[name] = REDACTED;
      else out[name] = this.text(value);
    }
    return out;
  }

  /** A URL to show: its password, and query values named like credentials, blanked. */
  url(text: string): string {
    try {
      const url = new URL(text);
      if (url.password) url.password = 'REDACTED';
      for (const key of [...url.searchParams.keys()]) {
        if (namesCredential(key)) url.searchParams.set(key, 'REDACTED');
      }
      return this.text(url.href);
    } catch {
      return this.text(text);
    }
  }

  /** A parsed JSON value to show: fields named like credentials blanked, strings redacted. */
  json(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= 32) return REDACTED;
    if (Array.isArray(value)) return value.map((item) => this.json(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[this.text(key)] = namesCredential(key) && item !== null ? REDACTED : this.json(item, depth + 1);
    }
    return out;
  }

  /** A request or answer body to show. */
  // Stryker disable next-line StringLiteral: any other default names no media type the checks below look for
  body(data: Uint8Array | string | undefined, contentType = ''): SandboxBodyView {
    if (data === undefined || data.length === 0) return { bytes: 0 };
    const buffer = asBuffer(data);
    const bytes = buffer.length;
    if (bytes <= MAX_PARSED_BYTES) {
      try {
        // It checks the media type itself: anything else is shown below.
        const parts = parseMultipart(buffer, contentType).map((part) => ({
          ...(part.name === undefined ? {} : { name: this.text(part.name) }),
          ...(part.filename === undefined ? {} : { filename: this.text(part.filename) }),
          contentType: this.text(part.contentType),
          bytes: part.data.length,
        }));
        return { bytes, parts };
      } catch {
        // Not multipart: shown as whatever it is below.
      }
      const parsed = this.#structured(buffer.toString('utf8'), contentType);
      if (parsed !== undefined) return { bytes, ...this.#cut(parsed) };
    }
    // 4 bytes a character at most: enough of the body for the view, a secret at its end included.
    const windowBytes = MAX_VIEW_CHARS * 4;
    const window = buffer.subarray(0, windowBytes).toString('utf8');
    // A character cut at the window's end decodes as U+FFFD: only one before that means binary.
    const head = bytes > windowBytes ? window.slice(0, -3) : window;
    if (head.includes('\0') || head.includes('\ufffd')) return { bytes };
    const view = this.#cut(this.text(window));
    return view.truncated || bytes > windowBytes
      ? { bytes, text: view.text, truncated: true }
      : { bytes, text: view.text };
  }

  /** JSON (pretty-printed) or a form (its fields), redacted; `undefined` when neither. */
  #structured(text: string, contentType: string): string | undefined {
    if (/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
      const fields = [...new URLSearchParams(text)].map(
        ([key, value]) => `${this.text(key)}=${namesCredential(key) ? REDACTED : this.text(value)}`,
      );
      return fields.join('&');
    }
    try {
      return JSON.stringify(this.json(JSON.parse(text)), null, 2);
    } catch {
      // Not JSON: neither kind.
    }
    return undefined;
  }

  #cut(text: string): { text: string; truncated?: true } {
    return text.length > MAX_VIEW_CHARS ? { text: text.slice(0, MAX_VIEW_CHARS), truncated: true } : { text };
  }
}

/** The bytes as a Buffer: a string encoded, a Uint8Array viewed (not copied). */
function asBuffer(data: Uint8Array | string): Buffer {
  // Stryker disable next-line ConditionalExpression: Buffer.from(view) copies the same bytes; the view only saves the copy
  if (typeof data === 'string') return Buffer.from(data);
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
