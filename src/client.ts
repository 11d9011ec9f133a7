import type { Dispatcher } from 'undici';
import { ClaimsValidationError, describeIssues, type ValidationIssue } from './errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './internal/answer.js';
import {
  headerIssues,
  isSendableToken,
  nonNegativeIntegerIssues,
  timeoutIssues,
} from './internal/options.js';
import { isLogger, isLogLevel, LOG_LEVELS, type Logger, type LogLevel, resolveLog } from './logger.js';
import { Attachments } from './resources/attachments.js';
import { Events } from './resources/events.js';
import { Incidents } from './resources/incidents.js';
import { extendedFieldsChecker, Metadata } from './resources/metadata.js';
import { Subscriptions } from './resources/subscriptions.js';
import { Webhooks } from './resources/webhooks.js';
import { type AccessTokenProvider, Transport } from './transport.js';
import { VERSION } from './version.js';
import { type OwnDispatcher, ownDispatcher, type TlsOptions } from './wire/dispatcher.js';
import { type FetchLike, fetchWire } from './wire/fetch-wire.js';
import { undiciWire } from './wire/undici-wire.js';

/** Options of {@link ClaimsClient}. */
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
   * How many times a failed attempt may be repeated; see README "Retries" for which failures.
   * @default 2
   */
  maxRetries?: number;
  /**
   * A fetch-compatible function to send requests with (msw in tests, edge runtimes).
   * By default requests go through `undici.request` on undici's global dispatcher.
   */
  fetch?: FetchLike;
  /**
   * The undici dispatcher to send requests through (a `MockAgent` in tests, a `ProxyAgent`, an
   * `Agent` with settings of your own). It is yours: `client.close()` leaves it open.
   * By default the client makes its own (never undici's process-wide global one): an `Agent`,
   * or an `EnvHttpProxyAgent` when `HTTPS_PROXY`/`HTTP_PROXY` is set (honouring `NO_PROXY`),
   * with `tls` applied. Not used with `fetch`.
   */
  dispatcher?: Dispatcher;
  /**
   * Client certificate and trust for mutual TLS, applied to the client's own dispatcher.
   * @example tls: { cert: readFileSync('client.crt'), key: readFileSync('client.key'), ca: readFileSync('ca.crt') }
   */
  tls?: TlsOptions;
  /** Extra headers sent with every request. */
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
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_METADATA_TTL_MS = 10 * 60_000;

/**
 * The Claims Notification API client. One instance shares one transport (keep-alive
 * connections, token, retries) across its sub-clients; create it once and reuse it.
 *
 * @example
 * const client = new ClaimsClient({ baseUrl: 'https://claims.example.com/api', accessToken: process.env.CLAIMS_TOKEN! });
 * const { incidentId } = await client.incidents.create({ ... });
 */
export class ClaimsClient {
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

  /** The dispatcher this client made for itself (none with `fetch` or a given `dispatcher`). */
  readonly #own: OwnDispatcher | undefined;

  constructor(options: ClaimsClientOptions) {
    const baseUrl = checkOptions(options);
    this.#own = options.fetch || options.dispatcher ? undefined : ownDispatcher(options.tls);
    const transport = new Transport({
      baseUrl,
      accessToken: options.accessToken,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      headers: options.headers ?? {},
      userAgent: userAgent(options.userAgent),
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      wire: options.fetch
        ? fetchWire(options.fetch)
        : undiciWire(this.#own ?? (options.dispatcher as Dispatcher)),
      log: resolveLog(options),
    });
    this.attachments = new Attachments(transport);
    this.metadata = new Metadata(transport, options.metadataCacheTtlMs ?? DEFAULT_METADATA_TTL_MS);
    this.incidents = new Incidents(transport, extendedFieldsChecker(this.metadata), this.attachments);
    this.events = new Events(transport, this.attachments);
    this.webhooks = new Webhooks(transport);
    this.subscriptions = new Subscriptions(transport);
  }

  /**
   * Closes the client's own connections once the requests still running finish; later calls
   * reject with a `ClaimsError` (outcome `not_sent`). A `dispatcher` or `fetch` you gave is
   * left as it is. Also runs at the end of an `await using` block.
   *
   * @example
   * await using client = new ClaimsClient({ baseUrl, accessToken });
   */
  async close(): Promise<void> {
    await this.#own?.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function userAgent(extra: string | undefined): string {
  const own = `claims-notification-sdk/${VERSION} node/${process.versions.node}`;
  return extra ? `${own} ${extra}` : own;
}

function checkOptions(options: ClaimsClientOptions): string {
  const issues: ValidationIssue[] = [];
  let baseUrl = '';
  try {
    const url = new URL(options?.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    // Paths are appended to it: a query or fragment in the base has nowhere to go.
    if (url.search || url.hash) throw new Error('query');
    baseUrl = url.href.replace(/\/+$/, '');
  } catch {
    issues.push({
      path: 'baseUrl',
      message:
        'must be an absolute http(s) URL without query or fragment, e.g. https://claims.example.com/api',
    });
  }
  const token = options?.accessToken;
  if (!(typeof token === 'function' || isSendableToken(token))) {
    issues.push({
      path: 'accessToken',
      message: 'must be a non-empty string of visible ASCII characters, or a function returning one',
    });
  }
  if (options?.timeoutMs !== undefined) issues.push(...timeoutIssues('timeoutMs', options.timeoutMs));
  for (const name of ['maxRetries', 'metadataCacheTtlMs'] as const) {
    if (options?.[name] !== undefined) issues.push(...nonNegativeIntegerIssues(name, options[name]));
  }
  if (
    options?.maxResponseBytes !== undefined &&
    !(Number.isSafeInteger(options.maxResponseBytes) && options.maxResponseBytes >= 1)
  ) {
    issues.push({ path: 'maxResponseBytes', message: 'must be a positive whole number of bytes' });
  }
  if (options?.headers !== undefined) issues.push(...headerIssues('headers', options.headers));
  if (
    options?.userAgent !== undefined &&
    !(typeof options.userAgent === 'string' && /^[\x20-\x7e]*$/.test(options.userAgent))
  ) {
    issues.push({ path: 'userAgent', message: 'must be a string of printable ASCII characters' });
  }
  if (options?.fetch !== undefined && typeof options.fetch !== 'function') {
    issues.push({ path: 'fetch', message: 'must be a fetch-compatible function' });
  }
  if (options?.dispatcher !== undefined && typeof options.dispatcher?.request !== 'function') {
    issues.push({
      path: 'dispatcher',
      message: 'must be an undici Dispatcher (Agent, ProxyAgent, MockAgent, ...)',
    });
  }
  if (options?.tls !== undefined && (options.tls === null || typeof options.tls !== 'object')) {
    issues.push({ path: 'tls', message: 'must be an object of cert, key, passphrase and ca' });
  }
  for (const name of ['dispatcher', 'tls'] as const) {
    if (options?.[name] !== undefined && options.fetch !== undefined) {
      issues.push({
        path: name,
        message: 'applies to the default wire only: it cannot be combined with fetch',
      });
    }
  }
  if (options?.tls !== undefined && options.dispatcher !== undefined) {
    issues.push({
      path: 'tls',
      message: 'applies to the client’s own dispatcher: set it on your dispatcher instead',
    });
  }
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
