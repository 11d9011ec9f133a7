import type { Dispatcher } from 'undici';
import { ClaimsValidationError, describeIssues, type ValidationIssue } from './errors.js';
import { type FormSnapshot, formSnapshotIssues, indexFormSnapshot } from './form-snapshot.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './internal/answer.js';
import { redactUrl } from './internal/describe.js';
import {
  headerIssues,
  isSendableToken,
  nonNegativeIntegerIssues,
  timeoutIssues,
} from './internal/options.js';
import { quote } from './internal/quote.js';
import { REDACTED } from './internal/redact.js';
import { isLogger, isLogLevel, LOG_LEVELS, type Logger, type LogLevel, resolveLog } from './logger.js';
import type { Platform } from './platform/types.js';
import { Attachments } from './resources/attachments.js';
import { Events } from './resources/events.js';
import { Incidents } from './resources/incidents.js';
import { extendedFieldsChecker, Metadata } from './resources/metadata.js';
import { Subscriptions } from './resources/subscriptions.js';
import { Webhooks } from './resources/webhooks.js';
import { type AccessTokenProvider, Transport } from './transport.js';
import { VERSION } from './version.js';
import type { TlsOptions } from './wire/dispatcher.js';
import type { FetchLike } from './wire/fetch-wire.js';

/** Options of `ClaimsClient`. */
export interface ClaimsClientOptions {
  /** Base address of the API, e.g. `https://claims.example.com/api`; a trailing slash is fine. */
  baseUrl: string;
  /**
   * The bearer token, or a function returning one (sync or async). A function is called for
   * every request, and once more after a 401 (with `{ forceRefresh: true }`), when the request
   * is sent once more. For OAuth 2 client credentials, see `clientCredentials` in
   * `claims-notification-sdk/auth`.
   */
  accessToken: string | AccessTokenProvider;
  /**
   * Longest time one attempt may go without progress, in ms: waiting for the answer's
   * headers (restarted by each chunk of an upload written), or between chunks of its body.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Longest time a whole call may take, in ms: every attempt, the waits between attempts,
   * the token provider and reading the answer. Past it the call rejects with
   * `ClaimsTimeoutError` (its `outcome` says whether the request may have been processed).
   * Checked about every 50 ms. A call's own `deadlineMs` option overrides it.
   * @default 600000 (10 minutes)
   */
  deadlineMs?: number;
  /**
   * How many times a failed attempt may be repeated; see docs/calls-and-errors.md, "Retries" for which failures.
   * @default 2
   */
  maxRetries?: number;
  /**
   * A fetch-compatible function to send requests with (msw in tests, edge runtimes).
   * By default requests go through undici on the client's own dispatcher (see `dispatcher`),
   * a fresh process's first JSON calls through `node:http` while undici loads (docs/connections.md); on the edge build (workerd, Deno, Bun, browsers), through the runtime's `globalThis.fetch`.
   */
  fetch?: FetchLike;
  /**
   * The undici dispatcher to send requests through (a `MockAgent` in tests, a `ProxyAgent`, an
   * `Agent` with settings of your own). It is yours: `client.close()` leaves it open.
   * By default the client makes its own (never undici's process-wide global one): an `Agent`,
   * or an `EnvHttpProxyAgent` when `HTTPS_PROXY`/`HTTP_PROXY` is set (honouring `NO_PROXY`),
   * with `tls` applied. Not used with `fetch`. Node only: the edge build refuses it.
   */
  dispatcher?: Dispatcher;
  /**
   * Client certificate and trust for mutual TLS, applied to the client's own dispatcher (and
   * to its `node:https` agent of the first calls).
   * Node only: the edge build refuses it (set up mutual TLS in the runtime, give its `fetch`).
   * @example tls: { cert: readFileSync('client.crt'), key: readFileSync('client.key'), ca: readFileSync('ca.crt') }
   */
  tls?: TlsOptions;
  /**
   * Extra headers sent with every request. Headers the SDK or the connection own
   * (`authorization`, `content-type`, `content-length`, `host`, `connection`,
   * `transfer-encoding`, `expect`, `upgrade`, `proxy-*`, …) are refused with `ClaimsValidationError`.
   */
  headers?: Record<string, string>;
  /** Appended to the SDK's own User-Agent, e.g. `my-broker-portal/2.1`. */
  userAgent?: string;
  /**
   * Largest 2xx answer body read, in bytes. A longer one is not read further (memory stays
   * bounded) and the call rejects with `ClaimsResponseValidationError` (outcome `processed`:
   * the server acted). Error answers (4xx/5xx) are read up to 1 MiB and cut there.
   * @default 10485760 (10 MiB)
   */
  maxResponseBytes?: number;
  /**
   * How long the incident form metadata used by the extended-field check is cached, in ms.
   * @default 600000 (10 minutes)
   */
  metadataCacheTtlMs?: number;
  /**
   * Most incident forms the metadata cache keeps. Past it the least recently used form is
   * dropped (and read again when next needed); expired forms are dropped as new ones come.
   * A form of 20 fields takes about 23 KiB of heap, its indexes included (docs/extended-fields.md, "Caching").
   * @default 1000
   */
  metadataCacheMaxEntries?: number;
  /**
   * More header names whose values the debug log replaces with `[REDACTED]` (any case). Names
   * containing `key`, `token`, `secret`, `auth`, `signature`, `password`, `passwd`,
   * `credential`, `session` or `cookie` are redacted anyway (docs/observability.md, "Logging").
   * @example redactHeaders: ['X-Tenant-Pin']
   */
  redactHeaders?: readonly string[];
  /**
   * Incident forms pulled ahead of time (`claims forms pull`): the parsed `claims-forms.json`,
   * or the generated module's `snapshot`. `incidents.create` and `metadata.requiredFields`
   * read a form in it with no metadata look-up (offline, on a cold start); a form not in it
   * is looked up as before, unless `formSnapshotOnly`. Copied when the client is made.
   * See docs/forms-as-code.md.
   */
  formSnapshot?: FormSnapshot;
  /**
   * Refuse, rather than look up, a form that is not in `formSnapshot`: `incidents.create`
   * with `extendedFields` for it rejects with `ClaimsValidationError` (code
   * `form_not_in_snapshot`) and sends nothing. Needs `formSnapshot`.
   * @default false
   */
  formSnapshotOnly?: boolean;
  /**
   * Where to write log lines: any object with console-style `debug`/`info`/`warn`/`error`
   * methods (`console`, pino, winston). Tokens and webhook `headerValue`s are redacted.
   * @default console, used only when a level other than `off` is asked for
   */
  logger?: Logger;
  /**
   * How much to log: `debug` (every attempt: method, url, status, attempt, ms, redacted
   * headers and body), `info` (retries and their delay), `warn`, `error`, `off`.
   * When absent, the `CLAIMS_SDK_LOG` environment variable (read once, here) decides;
   * without it, `warn` if a `logger` is given and `off` if not.
   * @default 'off'
   */
  logLevel?: LogLevel;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_DEADLINE_MS = 10 * 60_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_METADATA_TTL_MS = 10 * 60_000;

/**
 * The client on every runtime: options, their checks and the wiring of the sub-clients.
 * `ClaimsClient` (one per entry: `platform/node.ts`, `platform/web.ts`) gives it the
 * runtime's `Platform`, so this file imports no wire and no Node module.
 */
export class ClaimsClientBase {
  /** Incidents (claims): `create`. */
  readonly incidents: Incidents;
  /** Event-log entries on an incident: `create`. */
  readonly events: Events;
  /** File uploads: `upload`. */
  readonly attachments: Attachments;
  /** Incident form and programme metadata: `incidentFields`, `programmes`, `requiredFields`, `clearCache`. */
  readonly metadata: Metadata;
  /** Webhooks: `update`. */
  readonly webhooks: Webhooks;
  /** Webhook subscriptions: `create`, `list`, `update`. */
  readonly subscriptions: Subscriptions;

  /** Ends what the default wire holds open (the Node entry's own dispatcher); a no-op otherwise. */
  readonly #closeWire: () => Promise<void>;

  /** @internal Each entry's `ClaimsClient` passes its runtime's platform; users give only `options`. */
  constructor(options: ClaimsClientOptions, platform: Platform) {
    const baseUrl = checkOptions(options, platform);
    // A given fetch is the caller's to close; the default wire may hold connections of its own.
    const { wire, close } = options.fetch
      ? { wire: platform.fetchWire(options.fetch), close: async () => undefined }
      : platform.defaultWire(options);
    this.#closeWire = close;
    const transport = new Transport({
      baseUrl,
      accessToken: options.accessToken,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      headers: options.headers ?? {},
      userAgent: userAgent(options.userAgent, platform.runtime),
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      wire,
      log: resolveLog(options),
      trace: platform.trace,
      watchBody: platform.watchBody,
    });
    this.attachments = new Attachments(transport, platform.prepareUpload);
    this.metadata = new Metadata(
      transport,
      options.metadataCacheTtlMs ?? DEFAULT_METADATA_TTL_MS,
      options.metadataCacheMaxEntries,
      options.formSnapshot && {
        forms: indexFormSnapshot(options.formSnapshot),
        only: options.formSnapshotOnly === true,
      },
    );
    this.incidents = new Incidents(transport, extendedFieldsChecker(this.metadata), this.attachments);
    this.events = new Events(transport, this.attachments);
    this.webhooks = new Webhooks(transport);
    this.subscriptions = new Subscriptions(transport);
  }

  /**
   * Closes the client's own connections once the requests still running finish; later calls
   * reject with a `ClaimsError` (outcome `not_sent`). A `dispatcher` or `fetch` you gave is
   * left as it is. Also runs at the end of an `await using` block. On the edge build, which
   * holds no connections of its own (the runtime's `fetch` does), it does nothing.
   *
   * @example
   * await using client = new ClaimsClient({ baseUrl, accessToken });
   */
  async close(): Promise<void> {
    await this.#closeWire();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function userAgent(extra: string | undefined, runtime: string): string {
  const own = `claims-notification-sdk/${VERSION} ${runtime}`;
  return extra ? `${own} ${extra}` : own;
}

/**
 * What a message says `baseUrl` was: a string quoted (a user name and password, or a secret
 * query parameter, replaced), `undefined`, `null`, a number, or the kind of anything else.
 */
function given(value: unknown): string {
  if (typeof value === 'string') return quote(redactUrl(withoutUserinfo(value)));
  if (value === undefined || value === null || typeof value === 'number') return String(value);
  return kind(value);
}

/**
 * A base URL that is refused may be no URL at all because of its password: one holding `/`,
 * `?` or `#` ends the authority before its `@`, and one without `scheme://` has none. Whatever
 * stands before the last `@` (after the scheme) is taken as a user name and password.
 */
function withoutUserinfo(url: string): string {
  // Stryker disable next-line Regex: without `^` the match still starts at 0 (`.*` with the `s` flag reaches any `@` from there)
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?.*@/is, `$1${REDACTED}@`);
}

/** What it says `accessToken` was: never the text of a string, which may be a real token. */
function givenToken(token: unknown): string {
  if (typeof token === 'string')
    return token === '' ? 'an empty string' : 'a string with other characters (not shown)';
  return token === undefined || token === null ? String(token) : kind(token);
}

function kind(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function hasUserinfo(url: string): boolean {
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '';
}

function checkOptions(options: ClaimsClientOptions, platform: Platform): string {
  const issues: ValidationIssue[] = [];
  let baseUrl = '';
  try {
    // Without options, the TypeError is caught below, as an invalid URL is. A string only:
    // new URL() takes anything whose string is a URL (an array of one).
    // Stryker disable next-line StringLiteral: any string that is no URL throws here, as '' does
    const url = new URL(typeof options.baseUrl === 'string' ? options.baseUrl : '');
    const http = url.protocol === 'http:' || url.protocol === 'https:';
    // Paths are appended to it: a query or fragment in the base has nowhere to go.
    if (http && !url.search && !url.hash) baseUrl = url.href.replace(/\/+$/, '');
  } catch {
    // Not a URL at all: the issue below.
  }
  if (baseUrl === '') {
    issues.push({
      path: 'baseUrl',
      message: `must be an absolute http(s) URL without query or fragment, e.g. https://claims.example.com/api; got ${given(options?.baseUrl)}`,
    });
  } else if (hasUserinfo(baseUrl)) {
    issues.push({
      path: 'baseUrl',
      message:
        'must not hold a user name or password (they would be printed wherever the URL is): give the credential as accessToken or in headers',
    });
  }
  const token = options?.accessToken;
  if (!(typeof token === 'function' || isSendableToken(token))) {
    issues.push({
      path: 'accessToken',
      message: `must be a non-empty string of visible ASCII characters, or a function returning one; got ${givenToken(token)}`,
    });
  }
  for (const name of ['timeoutMs', 'deadlineMs'] as const) {
    if (options?.[name] !== undefined) issues.push(...timeoutIssues(name, options[name]));
  }
  for (const name of ['maxRetries', 'metadataCacheTtlMs'] as const) {
    if (options?.[name] !== undefined) issues.push(...nonNegativeIntegerIssues(name, options[name]));
  }
  const maxEntries = options?.metadataCacheMaxEntries;
  if (maxEntries !== undefined && !(Number.isSafeInteger(maxEntries) && maxEntries >= 1)) {
    issues.push({ path: 'metadataCacheMaxEntries', message: 'must be a positive whole number of forms' });
  }
  const extraSecrets = options?.redactHeaders;
  if (
    extraSecrets !== undefined &&
    !(Array.isArray(extraSecrets) && extraSecrets.every((name) => typeof name === 'string'))
  ) {
    issues.push({ path: 'redactHeaders', message: 'must be an array of header names' });
  }
  if (
    options?.maxResponseBytes !== undefined &&
    !(Number.isSafeInteger(options.maxResponseBytes) && options.maxResponseBytes >= 1)
  ) {
    issues.push({ path: 'maxResponseBytes', message: 'must be a positive whole number of bytes' });
  }
  if (options?.headers !== undefined) issues.push(...headerIssues('headers', options.headers));
  if (options?.formSnapshot !== undefined) issues.push(...formSnapshotIssues(options.formSnapshot));
  if (options?.formSnapshotOnly !== undefined && typeof options.formSnapshotOnly !== 'boolean')
    issues.push({ path: 'formSnapshotOnly', message: 'must be a boolean' });
  else if (options?.formSnapshotOnly === true && options.formSnapshot === undefined)
    issues.push({ path: 'formSnapshotOnly', message: 'needs formSnapshot (the forms it may use)' });
  if (
    options?.userAgent !== undefined &&
    !(typeof options.userAgent === 'string' && /^[\x20-\x7e]*$/.test(options.userAgent))
  ) {
    issues.push({ path: 'userAgent', message: 'must be a string of printable ASCII characters' });
  }
  if (options?.fetch !== undefined && typeof options.fetch !== 'function') {
    issues.push({ path: 'fetch', message: 'must be a fetch-compatible function' });
  }
  issues.push(...platform.connectionOptionIssues(options));
  if (options?.logger !== undefined && !isLogger(options.logger)) {
    issues.push({ path: 'logger', message: 'must have debug, info, warn and error methods' });
  }
  if (options?.logLevel !== undefined && !isLogLevel(options.logLevel)) {
    issues.push({ path: 'logLevel', message: `must be one of ${LOG_LEVELS.join(', ')}` });
  }
  if (issues.length > 0)
    throw new ClaimsValidationError(issues, describeIssues('Invalid ClaimsClient options', issues));
  return baseUrl;
}
