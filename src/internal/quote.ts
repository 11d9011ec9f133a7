/**
 * How a message shows text it did not write: a caller's value, a server's words, another
 * library's error message. Such text is cut (a 100 KB id must not make a 100 KB message, nor
 * copy a secret pasted into the wrong field whole into logs) and its control characters are
 * escaped (an ESC, CSI or NEL from a server's answer must not reach a user's terminal or log
 * viewer, and a bidi override must not make a message read other than it is).
 *
 * One place for every message of the SDK, its CLI and its batch runner.
 */

/** Longest piece of a caller's or a server's text a message shows, in characters. */
export const MAX_QUOTED = 200;

/** Longest message of an SDK error, in characters (before `[REDACTED]` and outcome notes). */
export const MAX_MESSAGE = 2_000;

/**
 * Characters escaped wherever outside text enters a message: C0 controls, DEL, C1 controls
 * (NEL, CSI, …), the line and paragraph separators, the bidi marks, embeddings, overrides and
 * isolates, the byte order mark, and a surrogate that is not half of a pair.
 */
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what it finds
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The short escapes JSON has; every other control character is written `\uXXXX`. */
const SHORT_ESCAPES: Record<string, string> = {
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/**
 * A caller's value as a message quotes it: a string JSON-quoted (so line breaks and quotes
 * show), anything else JSON-written (a bigint with its `n`), cut to {@link MAX_QUOTED}
 * characters with `…` (never through a surrogate pair or an escape), every control character
 * escaped.
 *
 * @example quote('a\n"b"') // '"a\\n\\"b\\""'
 */
export function quote(value: unknown): string {
  if (typeof value === 'string') return `"${cut(value, MAX_QUOTED, jsonEscape)}"`;
  if (typeof value === 'bigint') return `${excerpt(String(value))}n`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return excerpt(text);
}

/**
 * Outside text as a message shows it unquoted (a server's words, an error's message): control
 * characters escaped, cut to `max` characters with `…`.
 *
 * @example excerpt('Not found\u001b[2J') // 'Not found\\u001b[2J'
 */
export function excerpt(text: string, max: number = MAX_QUOTED): string {
  // Nearly every text: short and clean, returned as it is without a walk.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut only; the walk returns such a text unchanged
  if (text.length <= max && !CONTROL.test(text)) return text;
  return cut(text, max, controlEscape);
}

/**
 * A whole message made safe to print: control characters escaped, and cut to
 * {@link MAX_MESSAGE} characters, saying how much was left out. Every SDK error's message goes
 * through it, whoever built the message.
 */
export function boundMessage(message: string): string {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut only; the escaping below returns such a message unchanged
  if (message.length <= MAX_MESSAGE && !CONTROL.test(message)) return message;
  const escaped = cut(message, Number.POSITIVE_INFINITY, controlEscape);
  if (escaped.length <= MAX_MESSAGE) return escaped;
  const note = ` (${escaped.length - MAX_MESSAGE} more characters not shown)`;
  return `${cut(escaped, MAX_MESSAGE - note.length, keep)}${note}`;
}

/** Every control character of `text` escaped (see {@link excerpt}), nothing cut. */
export function escapeControls(text: string): string {
  return CONTROL.test(text) ? cut(text, Number.POSITIVE_INFINITY, controlEscape) : text;
}

/**
 * `text` with each code point written by `write`, cut so that the result (with `…` when cut)
 * has at most `max` characters. A code point is kept whole or not at all.
 */
function cut(text: string, max: number, write: (char: string) => string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    // A surrogate pair is one code point (two units); a lone surrogate is one unit.
    const pair = code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1));
    const char = pair ? text.slice(i, i + 2) : (text[i] as string);
    const piece = write(char);
    // Room for the piece, and for `…` unless this is the text's last code point.
    const last = i + char.length >= text.length;
    if (out.length + piece.length > (last ? max : max - 1)) return `${out}…`;
    out += piece;
    i += char.length;
  }
  return out;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function keep(char: string): string {
  return char;
}

function controlEscape(char: string): string {
  if (!CONTROL.test(char)) return char;
  return SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** How a JSON string literal writes the character, with the other controls escaped too. */
function jsonEscape(char: string): string {
  if (char === '"') return '\\"';
  if (char === '\\') return '\\\\';
  return controlEscape(char);
}
