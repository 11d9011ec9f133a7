/** Longest piece of a caller's input a message quotes, in characters. */
export const MAX_QUOTED = 64;

/**
 * A caller's value as a message quotes it: JSON-quoted (so line breaks and quotes show), cut
 * to 64 characters with an ellipsis. A 100 KB id must not make a 100 KB message (nor copy a
 * secret pasted into the wrong field whole into logs).
 */
export function quote(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'bigint') return `${shorten(String(value))}n`;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
    return shorten(text);
  }
  return JSON.stringify(shorten(text));
}

/** The text cut to 64 characters with `…` when longer (never splitting a surrogate pair). */
export function shorten(text: string): string {
  if (text.length <= MAX_QUOTED) return text;
  let end = MAX_QUOTED - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
