import type { AttachmentStore } from '../attachments.js';
import type { Changes } from '../changes.js';
import type { Deliverer } from '../deliveries.js';
import type { SandboxIncident } from '../incidents.js';
import type { Usage } from '../limits.js';
import type { MetadataStore } from '../metadata.js';
import type { SandboxRequest, SandboxResponse } from '../types.js';
import type { WebhookStore } from '../webhooks.js';

/** The sandbox's state, as route handlers see it. */
export interface SandboxContext {
  metadata: MetadataStore;
  attachments: AttachmentStore;
  webhooks: WebhookStore;
  deliverer: Deliverer;
  incidents: Map<string, SandboxIncident>;
  /** What is held against the limits (replaced by a reset). */
  usage: Usage;
  /** Tells the inspector what changed. */
  changes: Changes;
}

/** A route handler: the request, the path's parameters in order, and the state. */
export type RouteHandler = (
  req: SandboxRequest,
  params: string[],
  ctx: SandboxContext,
) => SandboxResponse | Promise<SandboxResponse>;
