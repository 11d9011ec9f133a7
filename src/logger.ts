/**
 * Opt-in logging. Nothing is logged unless asked for (a `logLevel`, a `logger`, or
 * `CLAIMS_SDK_LOG`): an SDK that writes to a user's console uninvited is a nuisance, and its
 * lines may end up in log stores no one meant them for.
 *
 * The transport reads the booleans of {@link RequestLog} before building any message, so
 * when logging is off a request pays for one property read per log point and nothing else.
 */

import { redactUrl } from './internal/describe.js';
import { envVar } from './internal/env.js';
import { endOfString } from './internal/json.js';
import { excerpt } from './internal/quote.js';
import { REDACTED, redactorFor } from './internal/redact.js';
import { isSecretName, type SecretNameTest, secretNames } from './internal/secret-names.js';

/** What replaces a secret in a log line. */
export { REDACTED };

/**
 * Where log lines go: any object with console-style methods (`console`, pino, winston...).
 * Each method is called with one message string and, at most, one object of details.
 */
export interface Logger {
  /**
   * Per attempt, at `logLevel: 'debug'`: method, URL, attempt number, then status (or the
   * failure) and duration in ms; `details` holds the headers and the JSON body, secrets redacted.
   * @example logger.debug('claims-sdk: POST https://claims.example.com/api/incidents (attempt 1)', { headers, body })
   */
  debug(message: string, ...details: unknown[]): void;
  /**
   * A retry about to wait, at `logLevel: 'info'` or lower; `details` holds `attempt`,
   * `delayMs` (milliseconds) and `reason`.
   */
  info(message: string, ...details: unknown[]): void;
  /** A retry refused because the server asked to wait longer than the SDK allows. */
  warn(message: string, ...details: unknown[]): void;
  /** Not called by the SDK today: its errors are thrown to the caller, not logged. */
  error(message: string, ...details: unknown[]): void;
}

/**
 * How much to log, from most to least: `debug` (every attempt: method, url, status, attempt
 * number, ms, and the request's headers and JSON body with secrets redacted), `info`
 * (retries and their delay), `warn` (a retry refused because the server asked to wait too
 * long), `error` (unused for now: errors are thrown to the caller), `off`.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'off'];

/** Environment variable read once, when a client is constructed. */
export const LOG_ENV = 'CLAIMS_SDK_LOG';

/** Longest request body written to a debug line, in characters. */
const MAX_LOGGED_BODY = 2_000;
/** Longest URL written to a log line, in characters. */
const MAX_LOGGED_URL = 2_000;

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

export function isLogger(value: unknown): value is Logger {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return ['debug', 'info', 'warn', 'error'].every((name) => typeof candidate[name] === 'function');
}

/**
 * The log of one client, with the level resolved once. The `*On` flags are plain booleans so
 * the hot path can skip a log point without calling anything.
 */
export class RequestLog {
  readonly debugOn: boolean;
  readonly infoOn: boolean;
  readonly warnOn: boolean;
  /** Whether a header's value is a credential: the name rule plus the client's `redactHeaders`. */
  readonly isSecretHeader: SecretNameTest;
  readonly #logger: Logger;

  constructor(logger: Logger, level: LogLevel, isSecretHeader: SecretNameTest = isSecretName) {
    const rank = LOG_LEVELS.indexOf(level);
    this.#logger = logger;
    this.isSecretHeader = isSecretHeader;
    this.debugOn = rank <= 0;
    this.infoOn = rank <= 1;
    this.warnOn = rank <= 2;
  }

  /** A log that is never on: what a client gets when nobody asked for logs. */
  static readonly off = new RequestLog(console, 'off');

  /**
   * The line goes out with every spelling of `token` redacted from the message and from every
   * string in the details, wherever a caller's header, id or a server's words put it.
   */
  debug(message: string, details?: Record<string, unknown>, token?: string): void {
    this.#emit('debug', message, details, token);
  }

  info(message: string, details?: Record<string, unknown>, token?: string): void {
    this.#emit('info', message, details, token);
  }

  warn(message: string, details?: Record<string, unknown>, token?: string): void {
    this.#emit('warn', message, details, token);
  }

  #emit(
    level: 'debug' | 'info' | 'warn',
    message: string,
    details: Record<string, unknown> | undefined,
    token: string | undefined,
  ): void {
    let line = message;
    let facts = details;
    if (token) {
      const redactor = redactorFor(token);
      line = redactor.text(message);
      if (facts) facts = redactor.value(facts) as Record<string, unknown>;
    }
    if (facts) this.#logger[level](line, facts);
    else this.#logger[level](line);
  }
}

/**
 * Resolves a client's log: an explicit `logLevel` wins, then `CLAIMS_SDK_LOG`, then `warn`
 * when a `logger` was given (giving one is asking for logs) and `off` when not.
 * An unknown `CLAIMS_SDK_LOG` value is ignored rather than thrown: a typo in an environment
 * variable must not stop an application from starting.
 */
export function resolveLog(
  options: {
    logger?: Logger | undefined;
    logLevel?: LogLevel | undefined;
    redactHeaders?: readonly string[] | undefined;
  },
  env: Record<string, string | undefined> = { [LOG_ENV]: envVar(LOG_ENV) },
): RequestLog {
  const fromEnv = env[LOG_ENV]?.trim().toLowerCase();
  const level: LogLevel =
    options.logLevel ?? (isLogLevel(fromEnv) ? fromEnv : options.logger ? 'warn' : 'off');
  if (level === 'off') return RequestLog.off;
  return new RequestLog(options.logger ?? console, level, secretNames(options.redactHeaders));
}

/**
 * A copy of request headers fit for a log line: the values of headers whose names carry a
 * credential (`isSecret`: by default the rule of `secret-names.ts`) replaced by `[REDACTED]`,
 * and the token redacted from every other header, whatever its name.
 */
export function redactHeaders(
  headers: Record<string, string>,
  token?: string,
  isSecret: SecretNameTest = isSecretName,
): Record<string, string> {
  const out: Record<string, string> = {};
  const redactor = token ? redactorFor(token) : undefined;
  for (const name in headers) {
    const value = headers[name] as string;
    out[name] = isSecret(name) ? REDACTED : redactor ? redactor.text(value) : value;
  }
  return out;
}

/**
 * A JSON request body fit for a log line: string fields whose names carry a credential (see
 * `secret-names.ts`) and `headerValue` replaced, any occurrence of the token replaced (a caller
 * may have pasted it into a field), and cut to 2,000 characters. One pass over the text, which
 * stays exactly as sent otherwise.
 */
export function redactBody(body: string, token: string): string {
  let safe = redactSecretFields(body);
  if (token) safe = redactorFor(token).text(safe);
  return safe.length > MAX_LOGGED_BODY ? `${safe.slice(0, MAX_LOGGED_BODY)}… (${safe.length} chars)` : safe;
}

const QUOTE = 0x22;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
/** What ends a literal value: a comma, a closing bracket or brace, or space. */
const LITERAL_END = new Set([0x2c, 0x7d, 0x5d, 0x20, 0x09, 0x0a, 0x0d]);

/** The JSON text with the string value of every secret field replaced by `"[REDACTED]"`. */
function redactSecretFields(json: string): string {
  let out = '';
  let copiedTo = 0;
  // The last string, as a key it may be (its characters between the quotes).
  let keyFrom = -1;
  let keyTo = -1;
  let secretValueNext = false;
  let i = 0;
  while (i < json.length) {
    const code = json.charCodeAt(i);
    if (code === QUOTE) {
      const end = endOfString(json, i);
      if (secretValueNext) {
        out += `${json.slice(copiedTo, i)}"${REDACTED}"`;
        copiedTo = end;
        keyFrom = -1;
      } else [keyFrom, keyTo] = [i + 1, end - 1];
      secretValueNext = false;
      i = end;
      continue;
    }
    if (secretValueNext && code !== OPEN_OBJECT && code !== OPEN_ARRAY && !isJsonSpace(code)) {
      // A number, `true`, `false` or `null` given for a secret: hidden as well.
      let end = i + 1;
      while (end < json.length && !LITERAL_END.has(json.charCodeAt(end))) end++;
      out += `${json.slice(copiedTo, i)}"${REDACTED}"`;
      copiedTo = i = end;
      secretValueNext = false;
      continue;
    }
    if (code === COLON && keyFrom !== -1) {
      const name = json.slice(keyFrom, keyTo);
      secretValueNext = name === 'headerValue' || isSecretName(name);
    } else if (!isJsonSpace(code)) secretValueNext = false;
    if (!isJsonSpace(code)) keyFrom = -1;
    i++;
  }
  return out + json.slice(copiedTo);
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/**
 * A call's URL as a log line shows it: query parameters whose names carry a credential (an API
 * gateway's `subscription-key`, a signature) redacted, cut to 2,000 characters.
 */
export function logUrl(url: string): string {
  return excerpt(redactUrl(url), MAX_LOGGED_URL);
}

/** Milliseconds since `started` (a `performance.now()` reading), rounded for reading. */
export function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/** The debug line written as an attempt starts; only called when `debugOn`. */
export function logAttemptStart(
  log: RequestLog,
  request: { method: string; url: string; attempt: number; headers: Record<string, string> },
  body: unknown,
  token: string,
): void {
  log.debug(
    `claims-sdk: ${request.method} ${logUrl(request.url)} (attempt ${request.attempt})`,
    {
      headers: redactHeaders(request.headers, token, log.isSecretHeader),
      body: typeof body === 'string' ? redactBody(body, token) : body === undefined ? undefined : '[stream]',
    },
    token,
  );
}

/** Where a log line is about: one attempt of one call, and the token to keep out of it. */
export interface AttemptRef {
  method: string;
  url: string;
  attempt: number;
  token: string;
}

/** The debug line written as an attempt ends, with its status or failure and its duration. */
export function logAttemptEnd(
  log: RequestLog,
  request: AttemptRef,
  outcome: number | Error,
  started: number,
): void {
  const ms = elapsedMs(started);
  const result = typeof outcome === 'number' ? String(outcome) : `${outcome.name}: ${outcome.message}`;
  log.debug(
    `claims-sdk: ${request.method} ${logUrl(request.url)} -> ${result} in ${ms} ms (attempt ${request.attempt})`,
    { status: typeof outcome === 'number' ? outcome : undefined, attempt: request.attempt, ms },
    request.token,
  );
}

/** The info line written before waiting to repeat an attempt. */
export function logRetry(log: RequestLog, request: AttemptRef, delayMs: number, reason: string): void {
  const delay = Math.round(delayMs);
  log.info(
    `claims-sdk: retrying ${request.method} ${logUrl(request.url)} in ${delay} ms (attempt ${request.attempt + 1}) after ${reason}`,
    { attempt: request.attempt + 1, delayMs: delay, reason },
    request.token,
  );
}
