import { randomBytes } from 'node:crypto';
import { parseInput } from '../../internal/parse-input.js';
import { AttachmentStore, type SandboxAttachment } from './attachments.js';
import { Deliverer, type SandboxDelivery } from './deliveries.js';
import type { SandboxIncident } from './incidents.js';
import { MetadataStore } from './metadata.js';
import type { SandboxMetadata, SandboxMetadataInput } from './metadata-types.js';
import { type SandboxOAuthOptions, TokenIssuer } from './oauth.js';
import { defaultOutboundFetch, type OutboundFetch } from './outbound.js';
import { PendingWork } from './pending.js';
import { dispatch } from './router.js';
import type { SandboxContext } from './routes/context.js';
import { WebhookCreateBody } from './schemas.js';
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
  readonly #pending = new PendingWork();
  readonly #ctx: SandboxContext;

  constructor(options: SandboxCoreOptions = {}) {
    this.token = options.token ?? `sbx_${randomBytes(18).toString('base64url')}`;
    const fetch = options.fetch ?? defaultOutboundFetch;
    this.oauth = options.oauth ? new TokenIssuer(options.oauth) : undefined;
    this.#ctx = {
      metadata: new MetadataStore(options.metadata),
      attachments: new AttachmentStore(fetch, this.#pending, {
        maxAttachmentBytes: options.maxAttachmentBytes ?? 25 * 1024 * 1024,
        downloadTimeoutMs: options.downloadTimeoutMs ?? 10_000,
      }),
      webhooks: new WebhookStore(),
      deliverer: new Deliverer(fetch, this.#pending, options.deliveryTimeoutMs ?? 5_000),
      incidents: new Map(),
    };
  }

  /** Answers one request; never rejects (failures are JSON error answers). */
  handle(req: SandboxRequest): Promise<SandboxResponse> {
    const oauth = this.oauth;
    if (oauth) {
      if (TokenIssuer.isTokenRequest(req)) return Promise.resolve(oauth.handle(req));
      // The router checks one bearer token; a valid issued token stands for it.
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization?.trim() ?? '')?.[1];
      if (bearer !== undefined && oauth.accepts(bearer)) {
        return dispatch(
          { ...req, headers: { ...req.headers, authorization: `Bearer ${this.token}` } },
          this.#ctx,
          this.token,
        );
      }
    }
    return dispatch(req, this.#ctx, this.token);
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
  createWebhook(webhook: { url: string; headerName?: string; headerValue?: string; isActive?: boolean }): {
    webhookId: number;
  } {
    const [body] = parseInput<WebhookCreateBody>([['webhook', WebhookCreateBody, webhook]]);
    return { webhookId: this.#ctx.webhooks.create(body as WebhookCreateBody).webhookId };
  }

  /** Every delivery so far, oldest first; a `pending` one changes once its receiver answers. */
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

  /** Aborts background downloads and deliveries. */
  dispose(): void {
    this.#pending.abort();
  }
}
