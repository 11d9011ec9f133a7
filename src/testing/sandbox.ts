import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SandboxAttachment } from './core/attachments.js';
import type { SandboxDelivery } from './core/deliveries.js';
import { errorResponse, SandboxHttpError } from './core/http.js';
import type { SandboxIncident } from './core/incidents.js';
import type { SandboxMetadata, SandboxMetadataInput } from './core/metadata-types.js';
import { SandboxCore, type SandboxCoreOptions } from './core/sandbox-core.js';
import type { SandboxResponse } from './core/types.js';

/** Options of {@link createSandbox}. */
export interface SandboxOptions extends SandboxCoreOptions {
  /** Port on 127.0.0.1. @default 0 (a free port) */
  port?: number;
}

/** A running sandbox: a local, stateful stand-in of the whole Claims Notification API. */
export interface Sandbox {
  /** Base URL to give `ClaimsClient`, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  /** The bearer token it accepts. */
  readonly token: string;
  /** The transport-independent core, e.g. to share with `claimsHandlers({ sandbox })`. */
  readonly core: SandboxCore;
  /** Current metadata (a copy). */
  readonly metadata: SandboxMetadata;
  /** Every webhook delivery so far, oldest first. */
  readonly deliveries: readonly SandboxDelivery[];
  /** Every incident, with its event log. */
  readonly incidents: readonly SandboxIncident[];
  /** Replaces the `programmes` and/or `forms` given. */
  seed(metadata: SandboxMetadataInput): void;
  /** Creates a webhook (sandbox-only; the spec shows no create operation). */
  createWebhook(webhook: { url: string; headerName?: string; headerValue?: string; isActive?: boolean }): {
    webhookId: number;
  };
  incident(incidentId: string): SandboxIncident | undefined;
  attachment(attachmentId: string): SandboxAttachment | undefined;
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
  // Uploads are read whole; a few files' worth bounds a request's memory.
  const maxBodyBytes = 4 * (options.maxAttachmentBytes ?? 25 * 1024 * 1024) + 1024 * 1024;
  const server = createServer((req, res) => {
    // serve() answers every failure itself; this is the last guard, so that no request can
    // ever become an unhandled rejection that kills the process hosting the sandbox.
    serve(core, req, res, maxBodyBytes).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    token: core.token,
    core,
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
    settled: () => core.settled(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        core.dispose();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

async function serve(core: SandboxCore, req: IncomingMessage, res: ServerResponse, maxBodyBytes: number) {
  let answer: SandboxResponse;
  try {
    const url = requestTarget(req.url ?? '/');
    const body = await readBody(req, maxBodyBytes);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    answer = await core.handle({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers,
      body,
    });
  } catch (error) {
    answer =
      error instanceof SandboxHttpError
        ? errorResponse(error)
        : errorResponse(new SandboxHttpError(400, 'bad_request', 'The request body could not be read'));
  }
  try {
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  } catch {
    // An answer node:http refuses to write (say, a header it finds invalid): a plain 500.
    if (res.headersSent) return void res.destroy();
    const failed = errorResponse(new SandboxHttpError(500, 'internal_error', 'Sandbox failure: bad answer'));
    res.writeHead(failed.status, failed.headers);
    res.end(failed.body);
  }
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

function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(new SandboxHttpError(413, 'payload_too_large', `The body is larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    // A sender gone mid-body: settle rather than wait for an end that never comes.
    req.on('close', () => {
      if (!req.complete) reject(new SandboxHttpError(400, 'bad_request', 'The request body was cut off'));
    });
  });
}
