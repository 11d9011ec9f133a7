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
/** A cause chain is followed this far (it may be a cycle). */
const MAX_CAUSES = 8;

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
   * Redacts an error and its cause chain where they hold the token: `message`, `stack` and,
   * for an API error, `body`, `headers` and `url`, own or inherited (a redacted one is made
   * the error's own). Only properties that hold the token are rewritten (the error stays the
   * same object, of the same class), so an error that holds no secret is left as it was; a
   * `body` or `headers` that JSON cannot write (a cycle, a BigInt), and so cannot be
   * searched, is replaced by `[REDACTED]`.
   */
  error<E>(error: E): E {
    let current: unknown = error;
    const seen = new Set<unknown>();
    for (let i = 0; i < MAX_CAUSES && current instanceof Error && !seen.has(current); i++) {
      seen.add(current);
      const fields = current as unknown as Record<string, unknown>;
      // Read before rewriting: the stack may be formatted from the message on first read.
      const texts = (['stack', 'message', 'url'] as const).map((key) => [key, fields[key]] as const);
      for (const [key, text] of texts) {
        if (typeof text === 'string' && this.finds(text)) this.#rewrite(current, key, this.text(text));
      }
      for (const key of ['body', 'headers'] as const) {
        const json = jsonOf(fields[key]);
        // What JSON cannot write (a cycle, a BigInt) cannot be searched: replaced, as past the depth cut.
        if (json === null) this.#rewrite(current, key, REDACTED);
        else if (this.finds(json)) this.#rewrite(current, key, this.value(fields[key]));
      }
      current = current.cause;
    }
    return error;
  }

  #rewrite(target: object, key: string, value: unknown): void {
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

/** The value as JSON (`''` for `undefined`), or `null` where JSON cannot write it. */
function jsonOf(value: unknown): string | null {
  try {
    // Stryker disable next-line StringLiteral: the fallback is for an `undefined` field, and no other string holds the token either
    return JSON.stringify(value) ?? '';
  } catch {
    return null;
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
