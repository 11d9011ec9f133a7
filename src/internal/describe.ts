/**
 * The wording of the parts of error messages that hold outside text: a list of validation
 * issues, a call's URL, a server's words. Each is bounded, whatever its input: a message is
 * read by a person and kept in logs, and must not grow with a body, an id or a form.
 */
import { excerpt, MAX_QUOTED } from './quote.js';
import { REDACTED } from './redact.js';
import { isSecretName } from './secret-names.js';

/**
 * What a message says of one validation issue (the shape of `ValidationIssue`, written here so
 * that this file stands below the error tree, which words its messages with it).
 */
interface IssueLine {
  readonly path: string;
  readonly message: string;
}

/** Characters of issue lines a message shows; the issues past them are counted. */
const MAX_ISSUE_TEXT = 1_200;
/** Characters of one issue line (its path and message). */
const MAX_ISSUE_LINE = 500;
/** Characters of a server's own words in an API error's message. */
const MAX_SUMMARY = 300;
/** Fields of an error body holding the server's own words, in the order they are looked for. */
const MESSAGE_KEYS = ['message', 'error', 'detail', 'title', 'error_description'];

/**
 * `<prefix>: path: message; path: message` (an issue without a path is its message alone),
 * with the first issues that fit in {@link MAX_ISSUE_TEXT} characters (the first always, cut
 * if need be), then `; and N more (see error.issues)`.
 */
export function describeIssues(prefix: string, issues: readonly IssueLine[]): string {
  let text = '';
  let shown = 0;
  for (const issue of issues) {
    const line = excerpt(issue.path ? `${issue.path}: ${issue.message}` : issue.message, MAX_ISSUE_LINE);
    const next = shown === 0 ? line : `${text}; ${line}`;
    // The first line always fits: it is cut to MAX_ISSUE_LINE, below MAX_ISSUE_TEXT.
    if (next.length > MAX_ISSUE_TEXT) break;
    text = next;
    shown++;
  }
  const rest = issues.length - shown;
  return `${prefix}: ${text}${rest > 0 ? `; and ${rest} more (see error.issues)` : ''}`;
}

/**
 * A call's URL as a message or a log line shows it: the values of query parameters whose names
 * carry a credential replaced (see `secret-names.ts`), a user name and password replaced, and
 * cut to {@link MAX_QUOTED} characters. The error's `url` field keeps it whole.
 */
export function describeUrl(url: string): string {
  return excerpt(redactUrl(url), MAX_QUOTED);
}

/**
 * `url` with the values of secret query parameters and any user name and password replaced
 * by `replacement`; everything else as it was (no re-encoding).
 */
export function redactUrl(url: string, replacement = REDACTED): string {
  const out = url.replace(USERINFO, `$1${replacement}:${replacement}@`);
  // The query runs from the first `?` to the fragment; a `?` inside the fragment is not one.
  const hash = out.indexOf('#');
  const head = hash === -1 ? out : out.slice(0, hash);
  const start = head.indexOf('?');
  // Stryker disable next-line ConditionalExpression: without a `?`, the slice below is the head's last character, which holds no parameter
  if (start === -1) return out;
  const query = head
    .slice(start)
    .replace(PARAM, (param: string, name: string) =>
      isSecretName(decodeName(name)) ? `${name}=${replacement}` : param,
    );
  return `${head.slice(0, start)}${query}${out.slice(head.length)}`;
}

/** One `name=value` parameter of a query (a name without `=` has no value to hide). */
const PARAM = /(?<=[?&])([^=&]*)=[^&]*/g;

/** `scheme://user:password@` (or `user@`) at the start of a URL. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i;

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** A short tail for an API error's message from the server's own words, when it gave any. */
export function summariseBody(body: unknown): string {
  let text: string | undefined;
  if (typeof body === 'string') text = body;
  else if (body !== null && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const key = MESSAGE_KEYS.find((k) => typeof record[k] === 'string');
    text = key === undefined ? JSON.stringify(body) : (record[key] as string);
  }
  if (!text) return '';
  // Only a summary's worth is looked at: a 1 MiB body must not be copied to be shortened.
  const head = text.slice(0, MAX_SUMMARY * 4);
  const oneLine = head.replace(/\s+/g, ' ').trim();
  const summary = excerpt(oneLine, MAX_SUMMARY);
  return `: ${head.length < text.length && summary === oneLine ? `${summary}…` : summary}`;
}
