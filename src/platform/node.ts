import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ClaimsClientBase, type ClaimsClientOptions } from '../client.js';
import type { ValidationIssue } from '../errors.js';
import { watchNodeBody } from '../internal/progress.js';
import { traceCall } from '../telemetry/call-span.js';
import { prepareUpload } from '../uploads/prepare.js';
import { coldStartWire, WIRE_CHOICE } from '../wire/cold-start-wire.js';
import { ownDispatcher } from '../wire/dispatcher.js';
import { type FetchLike, fetchWire } from '../wire/fetch-wire.js';
import { ownHttpAgent } from '../wire/http-agent.js';
import { httpWire } from '../wire/http-wire.js';
import type { Wire } from '../wire/types.js';
import { loadUndiciAgents } from '../wire/undici-agents.js';
import { undiciWire } from '../wire/undici-wire.js';
import { needsUndici, undiciOr } from '../wire/without-undici.js';
import type { ConnectionOptions, Platform } from './types.js';

/**
 * Node: `node:http` for a fresh process's first calls, then undici (see `cold-start-wire.ts`), on
 * the client's own connections; undici on a dispatcher given or with a proxy (Node's own fetch
 * for uploads where undici is missing); uploads from files and Node streams, and OpenTelemetry spans once a provider is registered.
 */
export const nodePlatform: Platform = {
  runtime: `node/${process.versions.node}`,
  connectionOptionIssues,
  defaultWire: (options) => {
    const { dispatcher, tls } = options;
    // A dispatcher the caller gave is theirs: close() leaves it open.
    if (dispatcher) return { wire: undiciWire(dispatcher), close: async () => undefined };
    const own = ownDispatcher(tls);
    // Where undici is missing (a bundle deployed alone), uploads go over Node's own fetch; a
    // proxy or client certificates need undici there, and are refused rather than bypassed.
    const missing = (cause: unknown) =>
      own.writesHeaders
        ? needsUndici('A proxy (HTTPS_PROXY or HTTP_PROXY is set)', cause)
        : tls
          ? needsUndici('An upload with the tls option', cause)
          : nodeFetchWire(globalFetch);
    const viaUndici = { wire: undiciOr(undiciWire(own), missing), close: () => own.close() };
    const choice = options[WIRE_CHOICE] ?? 'cold-start';
    // A proxy from the environment needs undici's EnvHttpProxyAgent: node:http has none.
    if (own.writesHeaders || choice === 'undici') return viaUndici;
    const agents = ownHttpAgent(tls);
    const viaHttp = { wire: httpWire(agents), close: async () => agents.close() };
    return coldStartWire(viaHttp, viaUndici, loadUndiciAgents, choice);
  },
  fetchWire: (fetch) => nodeFetchWire(fetch),
  // Not loaded on first use: prepareUpload must listen for a caller's stream failing before its
  // first await (test/uploads/multipart-stream.test.ts), and a dynamic import is one.
  prepareUpload,
  // Node uploads are Node streams (the multipart of uploads/prepare).
  watchBody: (body, call, timeoutMs) => watchNodeBody(body as Readable, call, timeoutMs),
  trace: traceCall,
};

function nodeFetchWire(fetch: FetchLike): Wire {
  return fetchWire(fetch, { nodeBodyToWeb: (body) => Readable.toWeb(body) as ReadableStream<Uint8Array> });
}

// Looked up on each call: a test or an instrumentation may replace it after the client is built.
const globalFetch: FetchLike = (url, init) => globalThis.fetch(url, init);

function connectionOptionIssues(options: ConnectionOptions): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const dispatcher = options?.dispatcher as Partial<Dispatcher> | undefined;
  if (dispatcher !== undefined && typeof dispatcher?.request !== 'function') {
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
  return issues;
}

/**
 * The Claims Notification API client. One instance shares one transport (keep-alive
 * connections, token, retries) across its sub-clients; create it once and reuse it, and
 * `close()` it (or `await using` it) when done.
 *
 * @example
 * const client = new ClaimsClient({ baseUrl: 'https://claims.example.com/api', accessToken: process.env.CLAIMS_TOKEN! });
 * const { incidentId } = await client.incidents.create({ ... });
 */
export class ClaimsClient extends ClaimsClientBase {
  constructor(options: ClaimsClientOptions) {
    super(options, nodePlatform);
  }
}
