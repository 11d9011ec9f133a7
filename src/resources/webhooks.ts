import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import { parseInput } from '../internal/parse-input.js';
import { path } from '../internal/path.js';
import type { NumericId } from '../schemas/common.js';
import { schemas } from '../schemas/load.js';
import type { WebhookPatch } from '../schemas/webhooks.js';
import { type BodyCallOptions, withExtraBody } from './extra-body.js';
import { Resource } from './resource.js';

/** Webhooks (`client.webhooks`): `update`. */
export class Webhooks extends Resource {
  /**
   * Updates a webhook: PATCH `/webhooks/{webhookId}`. Only the fields given change;
   * `isActive: false` disables every subscription under it. Fields the SDK does not document
   * go in `options.extraBody`.
   *
   * @example
   * await client.webhooks.update(12, { isActive: false });
   * @param webhookId the webhook's numeric id (a string of digits is accepted too).
   * @returns `undefined` once the server accepted the change (its answer's body is ignored).
   * @throws ClaimsValidationError for an empty or invalid patch; then nothing was sent.
   */
  update(webhookId: NumericId, patch: WebhookPatch, options?: BodyCallOptions): ClaimsPromise<void> {
    return claimsPromise((sink) => this.#update(webhookId, patch, options, sink));
  }

  async #update(
    webhookId: NumericId,
    patch: WebhookPatch,
    options: BodyCallOptions | undefined,
    sink: ResponseSink,
  ): Promise<void> {
    const s = await schemas();
    const [, body] = parseInput<WebhookPatch>([
      ['webhookId', s.NumericId, webhookId],
      ['', s.WebhookPatchSchema, patch],
      ['extraBody', s.extraBodySchema(s.WEBHOOK_PATCH_KEYS), options?.extraBody],
    ]);
    return this.transport.request<void>(
      {
        method: 'PATCH',
        path: path`/webhooks/${webhookId}`,
        route: '/webhooks/{webhookId}',
        body: withExtraBody(body as WebhookPatch, options?.extraBody),
        responseBody: 'none',
      },
      options,
      sink,
    );
  }
}
