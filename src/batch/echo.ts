/**
 * How the batch and the CLI quote a value from an input file or a server's answer in a
 * message: bounded, and with nothing a terminal would act on. A 50 MB key must not make a
 * 50 MB message, and a key holding an escape sequence must not retitle or clear the
 * operator's screen, nor a tab and a newline forge a row of `claims journal list`.
 *
 * The SDK's own capped quoting (src/internal/quote.ts) is being reworked to the same rules;
 * once it has them, `echo` can become it.
 */

/** Longest piece of a value a message quotes, in characters (before escaping). */
export const MAX_ECHOED = 200;

/**
 * Control characters (C0, DEL, C1), line and paragraph separators, and the bidirectional
 * controls that reorder what a terminal shows (Trojan Source).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what it matches
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_QUOTE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: as UNSAFE, and the characters a quoted value must escape
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"\\]/g;

const UNSAFE_ONE = new RegExp(UNSAFE.source);

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '"': '\\"', '\\': '\\\\' };

function escapeChar(char: string): string {
  return SHORT[char] ?? `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, '0')}`;
}

/** The text cut to `max` characters with `…` (never splitting a surrogate pair). */
export function bounded(text: string, max = MAX_ECHOED): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * A value as a message quotes it: in double quotes, cut to {@link MAX_ECHOED} characters,
 * control characters and quotes escaped the way JSON does (`\n`, `\u001b`), so the quoted
 * text is one line and unambiguous. Values that are not strings are shown as JSON.
 */
export function echo(value: unknown): string {
  if (typeof value !== 'string') return bounded(safeJson(value)).replace(UNSAFE, escapeChar);
  return `"${bounded(value).replace(UNSAFE_OR_QUOTE, escapeChar)}"`;
}

/**
 * Free text (a server's message, an error) for a terminal: control characters escaped, not
 * quoted, cut to `max` characters.
 */
export function plainText(text: string, max = 1_000): string {
  return bounded(text, max).replace(UNSAFE, escapeChar);
}

/**
 * A value as indented JSON for a terminal: JSON escapes C0 controls in strings itself; the
 * rest a terminal acts on (DEL, C1, line separators, bidirectional controls) is escaped
 * here too, and the JSON still parses to the same value.
 */
export function terminalJson(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(UNSAFE, (char) =>
    char === '\n' ? char : escapeChar(char),
  );
}

/**
 * A key as a table row shows it: as it is when it is plain printable text without a
 * backslash or a quote mark at its start, else quoted by {@link echo}; so a key holding a tab
 * or a newline cannot split a row, and a plain key can be copied from the row as it is.
 */
export function keyText(key: string): string {
  const plain =
    key.length <= MAX_ECHOED && !UNSAFE_ONE.test(key) && !key.includes('\\') && !key.startsWith('"');
  return plain ? key : echo(key);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
