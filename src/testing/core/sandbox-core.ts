import { randomBytes } from 'node:crypto';
import { ClaimsValidationError } from '../../errors.js';
import { errorMessage } from '../../internal/error-message.js';
import { parseInput } from '../../internal/parse-input.js';
import { AttachmentStore, type SandboxAttachment } from './attachments.js';
import { CallLog, type SandboxCall } from './calls.js';
import { Changes, type SandboxChange } from './changes.js';
import { Deliverer, type SandboxDelivery } from './deliveries.js';
import { applyFault } from './faults/apply-fault.js';
import { ChaosSchedule, type SandboxChaos, type SandboxChaosOptions } from './faults/chaos.js';
import type { SandboxFault } from './faults/fault.js';
import { FaultQueue } from './faults/fault-queue.js';
import { TOKEN_ROUTE } from './faults/route-pattern.js';
import { errorResponse, SandboxHttpError } from './http.js';
import type { SandboxIncident } from './incidents.js';
import { readLimits, type SandboxLimits, Usage } from './limits.js';
import { MetadataStore } from './metadata.js';
import type { SandboxMetadata, SandboxMetadataInput } from './metadata-types.js';
import { type SandboxOAuthOptions, TokenIssuer } from './oauth.js';
import { guardedUndiciFetch, type OutboundFetch } from './outbound.js';
import { pause } from './pause.js';
import { PendingWork } from './pending.js';
import { bearerMatches, findRoute } from './router.js';
import type { SandboxContext } from './routes/context.js';
import { WebhookCreateBody } from './schemas.js';
import { SandboxSecrets } from './secrets.js';
import { Slots } from './slots.js';
import { type SandboxLookup, TargetGuard } from './target-guard.js';
import type { SandboxRequest, SandboxResponse } from './types.js';
import { WebhookStore } from './webhooks.js';

/** Options of the sandbox, whatever serves it (`createSandbox` or `claimsHandlers`). */
export interface SandboxCoreOptions {
  /** The bearer token every request must carry. @default a random `sbx_…` token */
  token?: string;
  /** Metadata to start with instead of the demo set (each list given replaces the demo one). */
  metadata?: SandboxMetadataInput;
  /**
   * The fetch the sandbox itself uses to download `url` attachments and deliver webhooks.
   * @default undici's `fetch` (not `globalThis.fetch`, which msw intercepts)
   */
  fetch?: OutboundFetch;
  /** Longest a `url` attachment may take, check and download together, in ms. @default 10000 */
  downloadTimeoutMs?: number;
  /** Longest a webhook delivery may take, in ms. @default 5000 */
  deliveryTimeoutMs?: number;
  /** Largest file accepted, uploaded or downloaded, in bytes. @default 26214400 (25 MiB) */
  maxAttachmentBytes?: number;
  /**
   * Adds an OAuth 2 token endpoint, `POST /oauth/token` (client-credentials grant), whose
   * tokens the API accepts as well as `token` until they expire.
   */
  oauth?: SandboxOAuthOptions;
  /** Random faults in a share of calls, e.g. `{ rate: 0.1, seed: 42 }`; `sandbox.chaos` shows the seed. */
  chaos?: SandboxChaosOptions;
  /** What the sandbox holds and reads at most (see {@link SandboxLimits} for each default). */
  limits?: Partial<SandboxLimits>;
  /**
   * Lets url downloads and webhook deliveries reach private and link-local networks (10/8,
   * 192.168/16, 169.254/16, fc00::/7…). Loopback is always allowed. @default false
   */
  allowPrivateTargets?: boolean;
  /** Resolves host names for url downloads and deliveries. @default the system's (`dns.lookup`) */
  lookup?: SandboxLookup;
}

/** A request without its body, which the core reads when it decides to ({@link SandboxCore.serve}). */
export type SandboxRequestHead = Omit<SandboxRequest, 'body'>;

/** Largest body of a token request (a form of a few fields). */
const MAX_TOKEN_BODY_BYTES = 64 * 1024;
const EMPTY = new Uint8Array(0);

/** The answer for a body over `limit` bytes, the same whoever noticed it. */
export function payloadTooLarge(limit: number): SandboxHttpError {
  return new SandboxHttpError(413, 'payload_too_large', `The body is larger than ${limit} bytes`);
}

/** What one call is, before its body is read: its name, limit, and how it runs. */
interface Operation {
  name: string;
  template: readonly string[];
  segments: readonly string[];
  limit: number;
  upload: boolean;
  run(req: SandboxRequest): Promise<SandboxResponse>;
}

/**
 * The sandbox itself, independent of any transport: a function from a request to an answer,
 * over in-memory state. `createSandbox` serves it over node:http and `claimsHandlers` over
 * msw, so both behave exactly alike.
 */
export class SandboxCore {
  /** The bearer token every request must carry. */
  readonly token: string;
  /** The token endpoint, when `oauth` was given: its request count, `revokeAll()`. */
  readonly oauth: TokenIssuer | undefined;
  /** Faults to inject into the next calls: `next({ route, fault, times? })`, `clear()`, `pending`. */
  readonly faults: FaultQueue;
  /** The chaos in effect (`rate`, `seed`), or `undefined`. */
  readonly chaos: SandboxChaos | undefined;
  /** The limits in effect. */
  readonly limits: Readonly<SandboxLimits>;
  /** @internal Keeps secrets out of what the sandbox shows. */
  readonly secrets: SandboxSecrets;
  #pending = new PendingWork();
  readonly #ctx: SandboxContext;
  readonly #calls: CallLog;
  readonly #changes = new Changes();
  readonly #uploads: Slots;
  readonly #chaos: ChaosSchedule | undefined;
  readonly #closeOutbound: () => Promise<void>;
  readonly #maxUploadBytes: number;

  /** @throws ClaimsValidationError for options of the wrong shape (`chaos`, `limits`). */
  constructor(options: SandboxCoreOptions = {}) {
    const limits = readLimits(options.limits);
    if (typeof limits === 'string')
      throw new ClaimsValidationError(
        [{ path: 'limits', message: limits }],
        `Invalid sandbox options: ${limits}`,
      );
    this.limits = limits;
    this.token = options.token ?? `sbx_${randomBytes(18).toString('base64url')}`;
    this.#chaos = options.chaos ? new ChaosSchedule(options.chaos) : undefined;
    this.chaos = this.#chaos && { rate: this.#chaos.rate, seed: this.#chaos.seed };
    const guard = new TargetGuard(options);
    const own = options.fetch ? undefined : guardedUndiciFetch(guard);
    const fetch = options.fetch ?? (own?.fetch as OutboundFetch);
    this.#closeOutbound = own?.close ?? (async () => undefined);
    this.oauth = options.oauth ? new TokenIssuer(options.oauth) : undefined;
    this.faults = new FaultQueue(() => this.#changes.emit({ kind: 'faults' }));
    this.#calls = new CallLog(limits.maxCalls);
    this.#uploads = new Slots(limits.maxParallelUploads);
    const maxAttachmentBytes = options.maxAttachmentBytes ?? 25 * 1024 * 1024;
    // Uploads are read whole; a few files' worth bounds a request's memory.
    this.#maxUploadBytes = 4 * maxAttachmentBytes + 1024 * 1024;
    const pending = () => this.#pending;
    const ctx: SandboxContext = {
      metadata: new MetadataStore(options.metadata),
      attachments: new AttachmentStore(
        fetch,
        guard,
        pending,
        { maxAttachmentBytes, downloadTimeoutMs: options.downloadTimeoutMs ?? 10_000 },
        () => ctx.usage,
        this.#changes,
      ),
      webhooks: new WebhookStore(limits),
      deliverer: new Deliverer(
        fetch,
        guard,
        pending,
        options.deliveryTimeoutMs ?? 5_000,
        limits.maxDeliveries,
        this.#changes,
      ),
      incidents: new Map(),
      usage: new Usage(limits),
      changes: this.#changes,
    };
    this.#ctx = ctx;
    const oauth = this.oauth;
    this.secrets = new SandboxSecrets(this.token, function* () {
      yield* ctx.webhooks.headerValues();
      if (oauth) yield oauth.clientSecret;
    });
  }

  /** Answers one request; never rejects (failures are JSON error answers). */
  handle(req: SandboxRequest): Promise<SandboxResponse> {
    return this.serve(req, async (limit) => {
      if (req.body.byteLength > limit) throw payloadTooLarge(limit);
      return req.body;
    });
  }

  /**
   * Answers one request whose body is read only once the call is known to be allowed: the
   * bearer token is checked from the headers first, then `readBody(limit)` is asked for at
   * most `limit` bytes (it throws {@link payloadTooLarge} past it). Never rejects.
   * @internal
   */
  async serve(
    head: SandboxRequestHead,
    readBody: (limit: number) => Promise<Uint8Array>,
  ): Promise<SandboxResponse> {
    const started = performance.now();
    const id = this.#calls.nextId();
    const at = new Date().toISOString();
    let name = `${head.method} ${head.path}`;
    let body: Uint8Array = EMPTY;
    let fault: SandboxFault | undefined;
    let ran = false;
    let delayMs = 0;
    let answer: SandboxResponse;
    let release: (() => void) | undefined;
    try {
      const operation = this.#operation(head);
      name = operation.name;
      const declared = Number(head.headers['content-length']);
      if (declared > operation.limit) throw payloadTooLarge(operation.limit);
      if (operation.upload) release = await this.#uploads.acquire(head.signal);
      body = await readBody(operation.limit);
      fault = this.faults.take(head.method, operation.template, operation.segments) ?? this.#chaos?.draw();
      const req = { ...head, body };
      ({ answer, ran, delayMs } = await applyFault(fault, () => operation.run(req)));
    } catch (error) {
      answer = errorResponse(
        error instanceof SandboxHttpError
          ? error
          : new SandboxHttpError(500, 'internal_error', `Sandbox failure: ${errorMessage(error)}`),
      );
    } finally {
      release?.();
    }
    // Recorded before a delay: by the time the caller hears anything, the call is in `calls`.
    this.#record({ id, at, started, head, name, body, fault, ran, answer });
    if (delayMs > 0) {
      await pause(delayMs, head.signal);
      this.callEnded(id, started);
    }
    return { ...answer, callId: id };
  }

  /** What a request is for; the token is checked here, before any body is read. */
  #operation(head: SandboxRequestHead): Operation {
    const oauth = this.oauth;
    if (oauth && TokenIssuer.isTokenRequest({ ...head, body: EMPTY })) {
      return {
        name: TOKEN_ROUTE,
        template: ['oauth', 'token'],
        segments: ['oauth', 'token'],
        limit: MAX_TOKEN_BODY_BYTES,
        upload: false,
        run: async (req) => oauth.handle(req),
      };
    }
    if (!this.authorises(head.headers.authorization)) {
      throw new SandboxHttpError(401, 'unauthorized', 'Missing or invalid bearer token', undefined, {
        'www-authenticate': 'Bearer realm="claims-sandbox"',
      });
    }
    const { route, params, segments } = findRoute(head.method, head.path);
    return {
      name: route.name,
      template: route.segments,
      segments,
      limit: route.upload ? this.#maxUploadBytes : this.limits.maxJsonBodyBytes,
      upload: route.upload,
      run: async (req) => route.handler(req, params, this.#ctx),
    };
  }

  /** True for `Bearer <token>` with the sandbox's token or one its OAuth endpoint issued. */
  authorises(authorization: string | undefined): boolean {
    if (bearerMatches(authorization, this.token)) return true;
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
    return bearer !== undefined && this.oauth?.accepts(bearer) === true;
  }

  #record(call: {
    id: number;
    at: string;
    started: number;
    head: SandboxRequestHead;
    name: string;
    body: Uint8Array;
    fault: SandboxFault | undefined;
    ran: boolean;
    answer: SandboxResponse;
  }): void {
    const { answer, head } = call;
    const secretNames = new Set(
      this.#ctx.webhooks.list().flatMap((w) => (w.headerName ? [w.headerName.toLowerCase()] : [])),
    );
    // Only a reset before the call ran leaves no status at all.
    const status = !call.ran && answer.network?.kind === 'reset' ? null : answer.status;
    const record: SandboxCall = {
      id: call.id,
      at: call.at,
      method: head.method.toUpperCase(),
      route: call.name,
      path: head.path,
      status,
      processed: call.ran && answer.status >= 200 && answer.status <= 299,
      ...(call.fault ? { fault: call.fault } : {}),
      ms: Math.round(performance.now() - call.started),
      request: {
        headers: this.secrets.headers(head.headers, secretNames),
        body: this.secrets.body(call.body, head.headers['content-type']),
      },
      ...(status === null
        ? {}
        : {
            response: {
              headers: this.secrets.headers(answer.headers, secretNames),
              body: this.secrets.body(answer.body, answer.headers['content-type']),
            },
          }),
    };
    this.#calls.add(record);
    this.#changes.emit({ kind: 'call', id: record.id });
  }

  /**
   * @internal The server in front has finished with a call's answer (a drip or a hold may
   * outlast the core's part): its `ms` then covers the whole answer.
   */
  callEnded(callId: number | undefined, startedAt: number): void {
    const call = callId === undefined ? undefined : this.#calls.get(callId);
    if (!call) return;
    call.ms = Math.max(call.ms, Math.round(performance.now() - startedAt));
    this.#changes.emit({ kind: 'call', id: call.id });
  }

  /** Every call kept (the newest `limits.maxCalls`), oldest first, secrets redacted. */
  get calls(): readonly SandboxCall[] {
    return this.#calls.list().map((c) => structuredClone(c));
  }

  /** @internal The calls kept, not copied: for views that only read them. */
  callRecords(): readonly SandboxCall[] {
    return this.#calls.list();
  }

  /** @internal One call, for the inspector. */
  call(id: number): SandboxCall | undefined {
    const call = this.#calls.get(id);
    return call && structuredClone(call);
  }

  /** @internal Calls dropped from the log, deliveries dropped from theirs. */
  get dropped(): { calls: number; deliveries: number } {
    return { calls: this.#calls.dropped, deliveries: this.#ctx.deliverer.dropped };
  }

  /** @internal What is held against the limits. */
  get usage(): Usage {
    return this.#ctx.usage;
  }

  /** @internal Webhooks as they are, for the inspector (which shows no header value). */
  get webhooks(): ReturnType<WebhookStore['list']> {
    return this.#ctx.webhooks.list();
  }

  /** @internal Every attachment, for the inspector. */
  get attachments(): SandboxAttachment[] {
    return this.#ctx.attachments.list();
  }

  /** Calls `listener` on each change (the inspector's live view); returns how to stop. @internal */
  onChange(listener: (change: SandboxChange) => void): () => void {
    return this.#changes.on(listener);
  }

  /**
   * Sends a delivery again: the same payload (same `deliveryId`) to its webhook's url and
   * header as they are now. Resolves to the new attempt once the receiver answered.
   * @throws ClaimsError (a `SandboxHttpError` with status 404) when no such delivery is kept.
   */
  redeliver(deliveryId: string): Promise<SandboxDelivery> {
    return this.#ctx.deliverer.redeliver(deliveryId, (id) => this.#ctx.webhooks.find(id));
  }

  /**
   * Empties the sandbox: incidents, attachments, webhooks and subscriptions (ids start from 1
   * again), deliveries, calls and queued faults; background downloads and deliveries are
   * stopped. The token, metadata, OAuth set-up, limits and chaos stay.
   */
  reset(): void {
    this.#pending.abort();
    this.#pending = new PendingWork();
    this.#ctx.incidents.clear();
    this.#ctx.attachments.clear();
    this.#ctx.webhooks.clear();
    this.#ctx.deliverer.clear();
    this.#ctx.usage = new Usage(this.limits);
    this.#calls.clear();
    this.faults.clear();
    this.#changes.emit({ kind: 'reset' });
  }

  /**
   * Replaces the seeded metadata: each list given (`programmes`, `forms`) replaces the
   * current one, one left out stays. Start from `defaultSandboxMetadata()` to extend the demo set.
   * @throws ClaimsValidationError when the data has the wrong shape.
   */
  seed(metadata: SandboxMetadataInput): void {
    this.#ctx.metadata.seed(metadata);
  }

  /** A copy of the current metadata. */
  get metadata(): SandboxMetadata {
    return this.#ctx.metadata.snapshot();
  }

  /**
   * Creates a webhook, as the sandbox-only `POST /webhooks` does (the spec shows no way to
   * create one).
   */
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
  } {
    const [body] = parseInput<WebhookCreateBody>([['webhook', WebhookCreateBody, webhook]]);
    return { webhookId: this.#ctx.webhooks.create(body as WebhookCreateBody).webhookId };
  }

  /** Every delivery attempt kept (the newest `limits.maxDeliveries`), oldest first; a `pending` one changes once its receiver answers. */
  get deliveries(): readonly SandboxDelivery[] {
    return [...this.#ctx.deliverer.log];
  }

  /** An incident with its event log, or `undefined`. */
  incident(incidentId: string): SandboxIncident | undefined {
    return this.#ctx.incidents.get(incidentId);
  }

  /** Every incident, oldest first. */
  get incidents(): readonly SandboxIncident[] {
    return [...this.#ctx.incidents.values()];
  }

  /** An uploaded or downloaded attachment, or `undefined`. */
  attachment(attachmentId: string): SandboxAttachment | undefined {
    return this.#ctx.attachments.get(attachmentId);
  }

  /**
   * Resolves once every background download and delivery has finished (each is bounded by
   * its timeout), so a test can assert on `deliveries` without sleeping.
   */
  settled(): Promise<void> {
    return this.#pending.settled();
  }

  /** Aborts background downloads and deliveries, and closes the connections they used. */
  dispose(): void {
    this.#pending.abort();
    void this.#closeOutbound();
  }
}
