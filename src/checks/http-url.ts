import { quote } from '../internal/quote.js';

/**
 * What `new URL()` would quietly drop or rewrite, so that the URL checked is not the one sent:
 * whitespace and control characters (a leading space, a tab or CR/LF inside are removed) and
 * backslashes (read as `/` in http(s) URLs, so `http://a.example\@b.example` names host `a`
 * to one parser and `b` to another).
 */
// Written as what is allowed: visible ASCII but `\`, and anything from U+00A0 on.
const REWRITTEN_BY_URL_PARSER = /[^\x21-\x5b\x5d-\x7e\u00a0-\uffff]/;

/**
 * What is wrong with `value` as an absolute http(s) URL without credentials (`[]`: nothing).
 * It is sent exactly as given (the service parses it), so a string the URL parser would first
 * have to clean up is refused.
 */
export function httpUrlProblems(value: string): string[] {
  if (REWRITTEN_BY_URL_PARSER.test(value)) {
    return [
      `must be an absolute http(s) URL without whitespace, control characters or backslashes (it is sent as given), got ${quote(value)}`,
    ];
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [`must be an absolute http(s) URL, got ${quote(value)}`];
  }
  const problems: string[] = [];
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`must use http or https, got ${quote(url.protocol)}`);
  }
  if (url.username || url.password) problems.push('must not carry credentials (user:password@)');
  return problems;
}
