import { path } from '../internal/path.js';
import { NumericId } from '../schemas/common.js';
import { type WebhookPatch, WebhookPatchSchema } from '../schemas/webhooks.js';
import type { CallOptions } from '../transport.js';
import { Resource } from './resource.js';

export class Webhooks extends Resource {
  /**
   * Updates a webhook: PATCH `/webhooks/{webhookId}`. Only the fields given change;
   * `isActive: false` disables every subscription under it.
   */
  update(webhookId: NumericId, patch: WebhookPatch, options?: CallOptions): Promise<void> {
    return this.transport.request<void>(
      {
        method: 'PATCH',
        path: path`/webhooks/${webhookId}`,
        params: { webhookId: [NumericId, webhookId] },
        body: patch,
        bodySchema: WebhookPatchSchema,
        responseBody: 'none',
      },
      options,
    );
  }
}
