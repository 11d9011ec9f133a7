import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import { path } from '../internal/path.js';
import type { NumericId } from '../schemas/common.js';
import { schemas } from '../schemas/load.js';
import type { WebhookPatch } from '../schemas/webhooks.js';
import type { CallOptions } from '../transport.js';
import { Resource } from './resource.js';

export class Webhooks extends Resource {
  /**
   * Updates a webhook: PATCH `/webhooks/{webhookId}`. Only the fields given change;
   * `isActive: false` disables every subscription under it.
   */
  update(webhookId: NumericId, patch: WebhookPatch, options?: CallOptions): ClaimsPromise<void> {
    return claimsPromise((sink) => this.#update(webhookId, patch, options, sink));
  }

  async #update(
    webhookId: NumericId,
    patch: WebhookPatch,
    options: CallOptions | undefined,
    sink: ResponseSink,
  ): Promise<void> {
    const s = await schemas();
    return this.transport.request<void>(
      {
        method: 'PATCH',
        path: path`/webhooks/${webhookId}`,
        route: '/webhooks/{webhookId}',
        params: { webhookId: [s.NumericId, webhookId] },
        body: patch,
        bodySchema: s.WebhookPatchSchema,
        responseBody: 'none',
      },
      options,
      sink,
    );
  }
}
