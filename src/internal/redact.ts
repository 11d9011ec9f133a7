/**
 * The one redaction of the bearer token, used by errors and log lines alike.
 *
 * A server or proxy may echo the token in any spelling: raw, URL-encoded (`%2B`, `%2b`, form
 * encoding), or JSON-escaped the way .NET and PHP do it (`\u002B` for `+`, `\/` for `/`). So
 * the token is matched by a pattern where every character may also appear as `%XX` or
 * `\uXXXX` (hex in either case) and `/`, `"`, `\` as their JSON escapes, in any mix; and
 * base64-encoded, alone or inside a longer encoded text (see base64-spellings.ts).
 */
import { base64Spellings } from './base64-spellings.js';

/** What replaces the token (and other secrets) in errors and log lines. */
export const REDACTED = '[REDACTED]';

/**
 * A token this long or longer is redacted wherever it appears; a shorter one (a test token:
 * `t`, `test`) only where it stands alone, so that it is not cut out of ordinary words
 * (`Valida[REDACTED]ion`). No real token is that short; a random one this long is never part
 * of a word by chance.
 */
export const STANDALONE_BELOW = 16;

/** A character of a word: a letter, a digit or `_`, in any script. */
const WORD = '[\\p{L}\\p{N}_]';
/**
 * Where a short token's occurrence may start: not right after a word character, or right after
 * an escape (`%20`, `\u0020`, `\n`), whose last character is one but stands for a separator.
 */
const STANDS_ALONE_BEFORE = `(?:(?<!${WORD})|(?<=%[0-9A-Fa-f]{2}|\\\\u[0-9A-Fa-f]{4}|\\\\[bfnrt]))`;
/** Where it may end: not right before a word character. */
const STANDS_ALONE_AFTER = `(?!${WORD})`;

/** A deep value is walked this far; below, a whole branch is replaced rather than leak. */
const MAX_DEPTH = 32;
/** Errors linked to an error (causes, an `AggregateError`'s `errors`) redacted at most; past it, a link holding the token is cut. */
const MAX_ERRORS = 32;
/** Objects looked into at most for the token, in one field; a wider one is taken as holding it. */
const MAX_WALKED = 10_000;

/** Redacts one token from text, parsed values, headers and errors. */
export class Redactor {
  readonly #token: string;
  #built: RegExp | undefined;

  constructor(token: string) {
    this.#token = token;
  }

  /**
   * Built on first use, not in the constructor: every call asks for its token's redactor, and
   * most never redact anything (the pattern's spellings cost a fresh process's first call).
   */
  get #pattern(): RegExp {
    // An empty token is no secret: a pattern that never matches.
    // The token as written (in any escaping) or base64-encoded, alone or inside longer encoded text.
    this.#built ??= this.#token
      ? new RegExp(
          [tokenPattern(this.#token), ...base64Spellings(this.#token).map(escapeRegex)].join('|'),
          'gu',
        )
      : /(?!)/gu;
    return this.#built;
  }

  /** The text with every spelling of the token replaced by `[REDACTED]`. */
  text(text: string): string {
    const pattern = this.#pattern;
    pattern.lastIndex = 0;
    return text.replace(pattern, REDACTED);
  }

  /** True when the text holds the token in some spelling. */
  finds(text: string): boolean {
    const pattern = this.#pattern;
    pattern.lastIndex = 0;
    return pattern.test(text);
  }

  /**
   * A copy of a parsed JSON value with the token redacted in every string, key and number
   * (a numeric token echoed as a number is still the token).
   */
  value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value === 'number' || typeof value === 'bigint') {
      const text = String(value);
      return this.finds(text) ? this.text(text) : value;
    }
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_DEPTH) return REDACTED;
    if (Array.isArray(value)) return value.map((item) => this.value(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[this.text(key)] = this.value(item, depth + 1);
    return out;
  }

  /** A copy of a header set, redacted in names and values (any header may carry the token). */
  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name in headers) out[this.text(name)] = this.text(headers[name] as string);
    return out;
  }

  /**
   * Redacts an error (a wire's, a user's `fetch`'s, a token provider's) wherever it holds the
   * token, as `util.inspect` or a walk of its properties would show it: `message`, `stack` and
   * every other own field (an API error's `body` and `headers`, the `request` or `options` a
   * fetch wrapper keeps), down its `cause` chain and an `AggregateError`'s `errors`. The errors
   * stay the same objects, of the same class, and only fields that hold the token are rewritten:
   * with a redacted copy (a string, a plain object or array), else with `[REDACTED]` (a
   * `Request`, a `Headers`: their state is out of reach). An error linked past
   * {@link MAX_ERRORS} that holds the token is cut off the same way. A cause that is no error (a
   * thrown string or object) is given back redacted.
   */
  error<E>(error: E): E {
    try {
      return this.#error(error);
    } catch {
      // Something that throws when looked into (a getter, a Proxy): it cannot be shown safely.
      return REDACTED as E;
    }
  }

  #error<E>(error: E): E {
    if (!(error instanceof Error)) return this.#holds(error) ? (this.#clean(error) as E) : error;
    const queue: Error[] = [error];
    const seen = new Set<Error>(queue);
    for (let i = 0; i < queue.length; i++) {
      const current = queue[i] as Error;
      const fields = current as unknown as Record<string, unknown>;
      // Read before rewriting: the stack may be formatted from the message on first read.
      const texts = (['stack', 'message'] as const).map((key) => [key, fields[key]] as const);
      for (const [key, text] of texts) {
        if (typeof text === 'string' && this.finds(text)) this.#rewrite(current, key, this.text(text));
      }
      // `stack` and `message` come round again: a string is redacted by now, anything else is
      // looked into like any other field.
      for (const key of Reflect.ownKeys(current)) {
        // An own accessor (inspect does not call it) reads as undefined here: left as it is.
        const value: unknown = Object.getOwnPropertyDescriptor(current, key)?.value;
        const kept = Array.isArray(value)
          ? this.#linkAll(value, queue, seen)
          : this.#link(value, queue, seen);
        if (kept !== value) this.#rewrite(current, key, kept);
      }
    }
    return error;
  }

  /** A field's value as it may stay: an error is queued (its own fields are redacted in turn). */
  #link(value: unknown, queue: Error[], seen: Set<Error>): unknown {
    if (!(value instanceof Error)) return this.#holds(value) ? this.#clean(value) : value;
    if (seen.has(value)) return value;
    if (seen.size >= MAX_ERRORS) return this.#holds(value) ? REDACTED : value;
    seen.add(value);
    queue.push(value);
    return value;
  }

  /** An array (an `AggregateError`'s `errors`) item by item; a new array only when one changed. */
  #linkAll(values: unknown[], queue: Error[], seen: Set<Error>): unknown {
    const kept = values.map((value) => this.#link(value, queue, seen));
    return kept.some((value, i) => value !== values[i]) ? kept : values;
  }

  /**
   * Whether the token shows anywhere in `value`: its strings, keys and numbers, own properties
   * (symbols and hidden ones too), and what the platform keeps out of sight but prints
   * (`Headers`, a `Request`'s or `Response`'s URL and headers, a `URL`, a `Map`, a `Set`).
   * What lies too deep or too wide to tell is taken as holding it.
   */
  #holds(value: unknown, depth = 0, seen = new Set<object>()): boolean {
    if (typeof value === 'string') return this.finds(value);
    if (typeof value === 'number' || typeof value === 'bigint') return this.finds(String(value));
    // Bytes print as numbers, never as the token's text (and a large buffer has a key per byte).
    if (
      value === null ||
      typeof value !== 'object' ||
      ArrayBuffer.isView(value) ||
      value instanceof ArrayBuffer
    )
      return false;
    if (seen.has(value)) return false;
    if (depth >= MAX_DEPTH || seen.size >= MAX_WALKED) return true;
    seen.add(value);
    const inner: unknown[] = [];
    if (value instanceof Error) inner.push(value.stack, value.message);
    if (value instanceof URL) inner.push(value.href);
    // Stryker disable next-line ConditionalExpression: on Node 20 a Request's and Response's own symbol fields hold their URL and headers already; other runtimes (Deno, Bun, workerd, a later undici) may keep them out of reach, so the check stays
    if (isFetchObject(value)) inner.push(value.url, value.headers);
    if (value instanceof Map || isHeaders(value)) for (const [key, item] of value) inner.push(key, item);
    if (value instanceof Set) inner.push(...value);
    for (const key of Reflect.ownKeys(value)) {
      // A symbol key prints its description.
      inner.push(typeof key === 'string' ? key : key.description);
      inner.push(Object.getOwnPropertyDescriptor(value, key)?.value);
    }
    return inner.some((item) => this.#holds(item, depth + 1, seen));
  }

  /** What replaces a value that holds the token. */
  #clean(value: unknown): unknown {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint')
      return this.text(String(value));
    const proto = Object.getPrototypeOf(value);
    return Array.isArray(value) || proto === Object.prototype || proto === null
      ? this.value(value)
      : REDACTED;
  }

  #rewrite(target: object, key: PropertyKey, value: unknown): void {
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    try {
      Object.defineProperty(target, key, {
        value,
        writable: descriptor?.writable ?? true,
        enumerable: descriptor?.enumerable ?? false,
        configurable: true,
      });
    } catch {
      // A frozen error of someone else's: nothing we can do to it.
    }
  }
}

/**
 * A redactor per token, kept for the last few tokens: a static token builds its pattern once,
 * a provider's tokens once per token.
 */
const recent = new Map<string, Redactor>();
const MAX_RECENT = 8;

export function redactorFor(token: string): Redactor {
  let redactor = recent.get(token);
  if (!redactor) {
    redactor = new Redactor(token);
    if (recent.size >= MAX_RECENT) recent.delete(recent.keys().next().value as string);
    recent.set(token, redactor);
  }
  return redactor;
}

/** A `Headers` (every runtime has one; checked in case one does not). */
function isHeaders(value: object): value is Headers {
  return typeof Headers === 'function' && value instanceof Headers;
}

/** A `Request` or `Response`: their URL and headers are printed, not own properties. */
// Stryker disable next-line BlockStatement: on Node 20 a Request's and Response's own symbol fields hold their URL and headers already (see #holds)
function isFetchObject(value: object): value is Request | Response {
  return (
    // Stryker disable next-line ConditionalExpression,StringLiteral,LogicalOperator: as above, the Request and Response checks add nothing on Node 20; `!==` and `||` inside are killed
    (typeof Request === 'function' && value instanceof Request) ||
    // Stryker disable next-line ConditionalExpression,StringLiteral: as above
    (typeof Response === 'function' && value instanceof Response)
  );
}

/** Every spelling of the token, alone when it is short (see {@link STANDALONE_BELOW}). */
function tokenPattern(token: string): string {
  const chars = Array.from(token);
  const spelled = chars.map(spellings).join('');
  return chars.length < STANDALONE_BELOW ? `${STANDS_ALONE_BEFORE}${spelled}${STANDS_ALONE_AFTER}` : spelled;
}

const UTF8 = new TextEncoder();

/** Every way one character of the token may be spelled in an echo, as a regex group. */
function spellings(char: string): string {
  const code = char.codePointAt(0) as number;
  // The URL-encoding: the character's UTF-8 bytes (one for ASCII), each as %XX.
  // TextEncoder, not Buffer: the edge build redacts too (workerd, Deno, browsers have no Buffer).
  const urlEncoded = Array.from(UTF8.encode(char), (byte) => `%${hexPattern(byte, 2)}`).join('');
  const options = [escapeRegex(char), `\\\\u${hexPattern(code, 4)}`, urlEncoded];
  if (char === '/') options.push('\\\\/');
  if (char === '"') options.push('\\\\"');
  if (char === '\\') options.push('\\\\\\\\');
  return `(?:${options.join('|')})`;
}

/** `code` as `width` hex digits, each letter matching in either case: 0x2b → `2[bB]`. */
function hexPattern(code: number, width: number): string {
  const hex = code.toString(16).padStart(width, '0');
  return Array.from(hex, (digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join(
    '',
  );
}

/** The character escaped for a `u` pattern (where `-` must not be escaped outside a class). */
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
