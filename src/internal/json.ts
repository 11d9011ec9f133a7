/**
 * JSON parsing of answers that keeps ids exact.
 *
 * `JSON.parse` turns `9007199254740993` into `9007199254740992` (an id past 2^53 would then
 * name another record) and the id `1.5e300` into `1.5e+300` (another string once written
 * back). Here:
 * - an integer literal anywhere whose value is not a safe integer becomes a string of its
 *   exact digits;
 * - a number literal that is the value of an id (a key `id`, `…Id`, `…ID` or `…_id`) and that
 *   JavaScript would write otherwise (`1.5e300`, `1.0`, `-0`) becomes a string of exactly the
 *   characters the server sent;
 * every other value parses as `JSON.parse` gives it. Only a text with a run of 16 or more
 * digits, or an id key followed by such a number, can hold either, so every other text (nearly
 * all answers) goes straight to `JSON.parse`.
 */

/** A run of digits long enough to exceed 2^53 − 1 (16 digits). */
// Stryker disable next-line Regex: a shortcut only; quoteInexactNumbers changes no literal shorter than 16 digits
const LONG_DIGITS = /\d{16}/;
/**
 * A key ending in `d` (or its escape, `\u0064` or `\u0044`), then a number with a fraction, an
 * exponent or a minus zero.
 */
// Stryker disable next-line Regex: a shortcut only; the scan decides which ids to keep as sent
const ID_FLOAT = /(?:[dD]|\\u00[46]4)"\s*:\s*(?:-?\d+[.eE]|-0)/;
/** Keys whose number values are ids: `id`, `ID`, `incidentId`, `webhookID`, `incident_id`. */
const ID_KEY = /(?:^|[a-z0-9])(?:Id|ID)$|(?:^|[_-])(?:id|ID)$/;

/**
 * Parses JSON like `JSON.parse`, but an unsafe integer becomes the string of its digits and an
 * id JavaScript would write differently the string the server sent. Throws a SyntaxError like it.
 */
export function parseJsonLossless(text: string): unknown {
  // Stryker disable next-line ConditionalExpression: a shortcut only; the scan changes no other text (an unsafe integer has 16 digits or more, and an id written otherwise than JavaScript writes it matches ID_FLOAT)
  return JSON.parse(LONG_DIGITS.test(text) || ID_FLOAT.test(text) ? quoteInexactNumbers(text) : text);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const COLON = 0x3a;

/**
 * The text with quotes around every integer literal outside strings that is not a safe
 * integer, and every number literal that is an id's value and not written as JavaScript
 * writes it. A text that is not JSON stays not JSON: the scan changes only number literals,
 * and a string is valid wherever a number is, but for a number before a colon (where a key
 * belongs), which it leaves.
 */
export function quoteInexactNumbers(text: string): string {
  let out = '';
  let copiedTo = 0;
  let i = 0;
  const length = text.length;
  // Whether the last string was an id key, and whether a number now would be its value: the
  // last character outside strings and whitespace was a colon after that key. (In JSON a colon
  // follows a string, and some other character stands between a value and the next number.)
  // Stryker disable next-line BooleanLiteral: a colon before any string is no JSON, quoted or not
  let idKey = false;
  let idValue = false;
  // Stryker disable next-line EqualityOperator: at `i === length` the code is NaN, which is no quote, sign or digit: one more step and out
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = endOfString(text, i);
      idKey = isIdKey(text, i, end);
      i = end;
      continue;
    }
    if (code === MINUS || isDigit(code)) {
      const start = i;
      // The sign or first digit; past the text's end charCodeAt gives NaN, which is no digit.
      i++;
      while (isNumberChar(text.charCodeAt(i))) i++;
      const literal = text.slice(start, i);
      // A number before a colon stands where a key belongs: quoted, a text that is no JSON would parse.
      if (mustQuote(literal, idValue) && !beforeColon(text, i)) {
        out += `${text.slice(copiedTo, start)}"${literal}"`;
        copiedTo = i;
      }
      continue;
    }
    // Whitespace between a key, its colon and its value changes nothing.
    if (!isSpace(code)) idValue = code === COLON && idKey;
    i++;
  }
  return out + text.slice(copiedTo);
}

/**
 * Whether the string literal from `start` to `end` (its quotes included) is an id's key. Its
 * last characters decide (`ID_KEY` looks at three), so a long string is not read again; but a
 * key may spell them as escapes (`"i\u0064"` is `"id"`, as `JSON.parse` reads it), each up to six
 * characters: with a backslash among its last 18, the key is read whole.
 */
function isIdKey(text: string, start: number, end: number): boolean {
  const tail = text.slice(Math.max(start + 1, end - 19), end - 1);
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut only: a key read whole says the same
  if (!tail.includes('\\')) return ID_KEY.test(tail);
  // Not a string JSON reads (an escape cut short): the text is no JSON, and its own parse fails
  // at this key, in JSON.parse's words, whatever is answered here.
  // Stryker disable BlockStatement,BooleanLiteral: an empty catch answers undefined, as false; and false or true alike (the try block emptied is killed by the escaped-key tests: checked by hand)
  try {
    return ID_KEY.test(JSON.parse(text.slice(start, end)) as string);
  } catch {
    return false;
  }
  // Stryker restore BlockStatement,BooleanLiteral
}

/** Whether a number literal must stay a string: see {@link quoteInexactNumbers}. */
function mustQuote(literal: string, isId: boolean): boolean {
  if (!NUMBER.test(literal)) return false;
  const value = Number(literal);
  if (isId && String(value) !== literal) return true;
  // An integer (no fraction, no exponent) that is not safe, an id's too (2^53 is written as sent,
  // yet names 2^53 + 1 as well): a float means what JSON.parse makes of it.
  return INTEGER.test(literal) && !Number.isSafeInteger(value);
}

/** A JSON number literal (the scan may find other runs in text that is not JSON). */
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** Index just past the string literal opening at `start` (or the text's end when unclosed). */
export function endOfString(text: string, start: number): number {
  let i = start + 1;
  // Stryker disable next-line EqualityOperator: at `i === text.length` the code is NaN: one more step, and the caller's loop ends there too
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i += 2;
    else if (code === QUOTE) return i + 1;
    else i++;
  }
  return i;
}

/** Whether the next character at or after `i` that is not whitespace is a colon. */
function beforeColon(text: string, i: number): boolean {
  let j = i;
  while (isSpace(text.charCodeAt(j))) j++;
  return text.charCodeAt(j) === COLON;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isNumberChar(code: number): boolean {
  return isDigit(code) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === MINUS;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}
