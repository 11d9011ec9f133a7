import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SandboxAttachment } from './core/attachments.js';
import type { SandboxCall } from './core/calls.js';
import { handleControl, isControlPath, MAX_CONTROL_BODY_BYTES } from './core/control-routes.js';
import type { SandboxDelivery } from './core/deliveries.js';
import type { SandboxChaos } from './core/faults/chaos.js';
import type { FaultQueue } from './core/faults/fault-queue.js';
import { errorResponse, SandboxHttpError } from './core/http.js';
import type { SandboxIncident } from './core/incidents.js';
import type { SandboxLimits } from './core/limits.js';
import type { SandboxMetadata, SandboxMetadataInput } from './core/metadata-types.js';
import { SandboxCore, type SandboxCoreOptions } from './core/sandbox-core.js';
import type { SandboxResponse } from './core/types.js';
import { InspectorEvents } from './node/event-stream.js';
import { HostRule } from './node/host-rule.js';
import { GUARD_HEADERS, refuse, serveInspector } from './node/inspector-routes.js';
import { readBody } from './node/read-body.js';
import { writeAnswer } from './node/write-answer.js';

/** Options of {@link createSandbox}. */
export interface SandboxOptions extends SandboxCoreOptions {
  /** Port on 127.0.0.1. @default 0 (a free port) */
  port?: number;
  /**
   * Host names the server answers besides `localhost`, `*.localhost` and loopback addresses
   * (e.g. a name your tests' containers use): `'sandbox.test'` that name, `'.test'` it and
   * every name under it; `true` any name, which turns off the protection against pages that
   * rebind their DNS name to 127.0.0.1. @default []
   */
  allowedHosts?: readonly string[] | true;
}

/** A running sandbox: a local, stateful stand-in of the whole Claims Notification API. */
export interface Sandbox {
  /** Base URL to give `ClaimsClient`, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  /** The bearer token it accepts. */
  readonly token: string;
  /** The inspector page, `${url}/_sandbox/`: open it in a browser (no token needed) to watch every call. */
  readonly inspectorUrl: string;
  /** The transport-independent core, e.g. to share with `claimsHandlers({ sandbox })`. */
  readonly core: SandboxCore;
  /** Faults for the next calls: `next({ route, fault, times? })`, `clear()`, `pending`. */
  readonly faults: FaultQueue;
  /** Every call kept (the newest `limits.maxCalls`), oldest first: method, route, status, fault, ms, redacted headers and bodies. */
  readonly calls: readonly SandboxCall[];
  /** The chaos in effect (`rate`, `seed`), or `undefined`. */
  readonly chaos: SandboxChaos | undefined;
  /** The limits in effect. */
  readonly limits: Readonly<SandboxLimits>;
  /** Current metadata (a copy). */
  readonly metadata: SandboxMetadata;
  /** Every webhook delivery attempt kept, oldest first. */
  readonly deliveries: readonly SandboxDelivery[];
  /** Every incident, with its event log. */
  readonly incidents: readonly SandboxIncident[];
  /** Replaces the `programmes` and/or `forms` given. */
  seed(metadata: SandboxMetadataInput): void;
  /** Creates a webhook (sandbox-only; the spec shows no create operation). */
  createWebhook(webhook: {
    /** Where deliveries are POSTed: an absolute `http:`/`https:` URL, e.g. your test receiver's. */
    url: string;
    /** An extra header sent with every delivery, e.g. `'x-webhook-secret'` (any case). */
    headerName?: string;
    /** The extra header's value, e.g. a shared secret for `verifyWebhook`. */
    headerValue?: string;
    /** Whether deliveries are sent. @default true */
    isActive?: boolean;
  }): {
    /** The new webhook's id: 1, 2, 3… per sandbox, for `client.subscriptions.create(webhookId, …)`. */
    webhookId: number;
  };
  /** The incident with this id (as `incidents.create` returned it), or `undefined`. */
  incident(incidentId: string): SandboxIncident | undefined;
  /** The attachment with this id (uploaded, or linked by `url`), or `undefined`. */
  attachment(attachmentId: string): SandboxAttachment | undefined;
  /**
   * Sends a delivery again: the same payload (same `deliveryId`) to its webhook's url and header
   * as they are now. Resolves to the new attempt once the receiver answered. Also
   * `POST /_sandbox/deliveries/{deliveryId}/redeliver`.
   */
  redeliver(deliveryId: string): Promise<SandboxDelivery>;
  /** Empties the sandbox (incidents, files, webhooks, deliveries, calls, faults); token and metadata stay. */
  reset(): void;
  /** Resolves once background downloads and deliveries have finished. */
  settled(): Promise<void>;
  /** Stops the server, dropping open connections and aborting background work. */
  close(): Promise<void>;
}

/**
 * Starts the sandbox on 127.0.0.1 (a free port unless `port` is given) over node:http.
 *
 * @example
 * const sandbox = await createSandbox();
 * const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
 * // ...
 * await sandbox.close();
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const core = new SandboxCore(options);
  const hosts = new HostRule(options.allowedHosts);
  const events = new InspectorEvents(core);
  const server = createServer((req, res) => {
    // serve() answers every failure itself; this is the last guard, so that no request can
    // ever become an unhandled rejection that kills the process hosting the sandbox.
    serve(core, hosts, events, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    token: core.token,
    inspectorUrl: `${url}/_sandbox/`,
    core,
    faults: core.faults,
    get calls() {
      return core.calls;
    },
    chaos: core.chaos,
    limits: core.limits,
    get metadata() {
      return core.metadata;
    },
    get deliveries() {
      return core.deliveries;
    },
    get incidents() {
      return core.incidents;
    },
    seed: (metadata) => core.seed(metadata),
    createWebhook: (webhook) => core.createWebhook(webhook),
    incident: (id) => core.incident(id),
    attachment: (id) => core.attachment(id),
    redeliver: (id) => core.redeliver(id),
    reset: () => core.reset(),
    settled: () => core.settled(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        events.close();
        core.dispose();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

async function serve(
  core: SandboxCore,
  hosts: HostRule,
  events: InspectorEvents,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  let url: URL;
  try {
    url = requestTarget(req.url ?? '/');
  } catch (error) {
    return writeAnswer(req, res, errorResponse(error as SandboxHttpError));
  }
  const refused = hosts.refusal(method, req.headers);
  if (refused) return refuse(res, req, refused);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  // Aborted when the caller goes away, so a fault's wait (and an upload's queue) stops.
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const head = { method, path: url.pathname, query: url.searchParams, headers, signal: gone.signal };

  if (isControlPath(url.pathname)) {
    if (serveInspector(core, events, method, url.pathname, res)) return;
    let answer: SandboxResponse;
    try {
      answer = await handleControl(core, { ...head, body: await readBody(req, MAX_CONTROL_BODY_BYTES) });
    } catch (error) {
      answer = errorResponse(
        error instanceof SandboxHttpError
          ? error
          : new SandboxHttpError(400, 'bad_request', 'The request body could not be read'),
      );
    }
    return writeAnswer(req, res, { ...answer, headers: { ...GUARD_HEADERS, ...answer.headers } });
  }

  const started = performance.now();
  const answer = await core.serve(head, (limit) => readBody(req, limit));
  if (req.complete || answer.network) await writeAnswer(req, res, answer, gone.signal);
  else await answerUnread(req, res, answer);
  core.callEnded(answer.callId, started);
}

/** How long a body the sandbox refused unread (401, 404, 413) may go on arriving. */
const LINGER_MS = 30_000;

/**
 * Answers a call whose body was refused before it was read (401, 404, 405, 413): the answer
 * goes out at once, while the rest of the body is discarded as it arrives (never held), and
 * the connection closes once it has all arrived. Closing at once would reset the connection
 * under a sender still writing, which would then see a failure instead of the answer; reusing
 * it would race the sender's next request. A sender still writing after {@link LINGER_MS} is
 * cut off.
 */
async function answerUnread(
  req: IncomingMessage,
  res: ServerResponse,
  answer: SandboxResponse,
): Promise<void> {
  const body = Buffer.from(answer.body ?? '');
  res.writeHead(answer.status, {
    ...answer.headers,
    'content-length': String(body.length),
    connection: 'close',
  });
  res.write(body);
  req.resume();
  const ended = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), LINGER_MS);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    req.once('end', done);
    req.once('close', done);
  });
  if (ended) res.end();
  else req.socket.destroy();
}

/**
 * The request target as a URL. Resolving it against a base would read `//x` as a host
 * (protocol-relative), so a path is appended to a fixed origin instead; a proxy's
 * absolute-form target is parsed as it is, and anything else (`*`) is a 400.
 */
function requestTarget(target: string): URL {
  try {
    return new URL(target.startsWith('/') ? `http://sandbox${target}` : target);
  } catch {
    throw new SandboxHttpError(400, 'invalid_path', 'The request target is not a path');
  }
}
