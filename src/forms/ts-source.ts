/**
 * Pieces of TypeScript source made from text the server sent (names, identifiers, values):
 * every one is escaped, so no metadata can end a string or a comment and add code of its own.
 */

/**
 * A string literal (double quotes) for any string. JSON escapes quotes, backslashes, control
 * characters and lone surrogates; TypeScript also ends a string at U+2028 and U+2029, so
 * those are escaped too.
 */
export function tsString(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Text safe inside a `/** … *\/` comment: no `*\/` to end it, no line break to escape the `*` prefix. */
export function docText(text: string): string {
  return text.replace(/\*\//g, '*\\/').replace(/[\r\n\u2028\u2029]+/g, ' ');
}

/** A name that may stand bare as a property key (ASCII only: what every reader expects). */
const BARE_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A property key of an object literal. `__proto__` is written computed: bare or quoted, it
 * would set the object's prototype instead of a property.
 */
export function objectKey(key: string): string {
  if (key === '__proto__') return `[${tsString(key)}]`;
  return BARE_KEY.test(key) ? key : tsString(key);
}

/** A property name in a type: quoted unless bare is safe (`__proto__` is a plain property there). */
export function typeKey(key: string): string {
  return BARE_KEY.test(key) ? key : tsString(key);
}

/** A JSON value as a TypeScript expression, indented by `depth` levels of two spaces, one item a line. */
export function tsLiteral(value: unknown, depth: number): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') return tsString(value);
  const inner = '  '.repeat(depth + 1);
  const outer = '  '.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, depth + 1)},\n`).join('')}${outer}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${objectKey(k)}: ${tsLiteral(v, depth + 1)},\n`).join('')}${outer}}`;
}
