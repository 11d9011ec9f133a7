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
  async update(webhookId: NumericId, patch: WebhookPatch, options?: CallOptions): Promise<void> {
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
    );
  }
}
