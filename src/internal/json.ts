/**
 * JSON parsing of answers that keeps integer ids exact.
 *
 * `JSON.parse` turns `9007199254740993` into `9007199254740992`: an id past 2^53 would then
 * name another record. Here an integer literal whose value is not a safe integer becomes a
 * string of its exact digits; every other value parses as `JSON.parse` gives it. Only a text
 * with a run of 16 or more digits can hold such a literal, so every other text (nearly all
 * answers) goes straight to `JSON.parse`.
 */

/** A run of digits long enough to exceed 2^53 − 1 (16 digits). */
// Stryker disable next-line Regex: a shortcut only; quoteUnsafeIntegers changes no literal shorter than 16 digits
const LONG_DIGITS = /\d{16}/;

/** Parses JSON like `JSON.parse`, but an unsafe integer becomes the string of its digits. Throws a SyntaxError like it. */
export function parseJsonLossless(text: string): unknown {
  return JSON.parse(LONG_DIGITS.test(text) ? quoteUnsafeIntegers(text) : text);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

/**
 * The text with every integer literal outside strings that is not a safe integer wrapped in
 * quotes. A text that is not JSON stays not JSON (the scan changes only number literals).
 */
export function quoteUnsafeIntegers(text: string): string {
  let out = '';
  let copiedTo = 0;
  let i = 0;
  const length = text.length;
  // Stryker disable next-line EqualityOperator: at `i === length` the code is NaN, which is no quote, sign or digit: one more step and out
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = endOfString(text, i);
      continue;
    }
    if (code === MINUS || isDigit(code)) {
      const start = i;
      // The sign or first digit; past the text's end charCodeAt gives NaN, which is no digit.
      i++;
      while (isDigit(text.charCodeAt(i))) i++;
      const next = text.charCodeAt(i);
      // A fraction or exponent makes it a float: JSON.parse's rounding is what a float means.
      if (next === 0x2e || next === 0x65 || next === 0x45) {
        while (isNumberChar(text.charCodeAt(i))) i++;
        continue;
      }
      const literal = text.slice(start, i);
      // Stryker disable next-line ConditionalExpression,ArithmeticOperator: the length test is a shortcut; the pattern and isSafeInteger decide alone
      if (i - start >= 16 && /^-?(?:0|[1-9]\d*)$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        out += `${text.slice(copiedTo, start)}"${literal}"`;
        copiedTo = i;
      }
      continue;
    }
    i++;
  }
  return out + text.slice(copiedTo);
}

/** Index just past the string literal opening at `start` (or the text's end when unclosed). */
function endOfString(text: string, start: number): number {
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

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isNumberChar(code: number): boolean {
  return isDigit(code) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === MINUS;
}
