import { z } from 'zod';

/**
 * The body the sandbox POSTs to a webhook url for a `New Event` (the spec leaves the payload
 * open; this is the sandbox's choice). Loose: a receiver keeps fields it does not know.
 *
 * ```json
 * { "webhookEvent": "New Event", "deliveryId": "…", "webhookId": 1, "subscriptionId": 3,
 *   "occurredAt": "2026-01-31T10:00:00.000Z",
 *   "data": { "incidentId": "…", "eventId": "…", "eventType": "Event Log Entry",
 *             "category": "Other", "detail": "…", "createdAt": "…",
 *             "attachments": [{ "attachmentId": "…", "filename": "photo.jpg", "description": null }] } }
 * ```
 */
export const NewEventDeliverySchema = z.looseObject({
  webhookEvent: z.string(),
  deliveryId: z.string(),
  webhookId: z.number(),
  subscriptionId: z.number(),
  occurredAt: z.string(),
  data: z.looseObject({
    incidentId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    category: z.string(),
    detail: z.string(),
    createdAt: z.string(),
    attachments: z.array(
      z.looseObject({ attachmentId: z.string(), filename: z.string(), description: z.string().nullable() }),
    ),
  }),
});

/**
 * The parsed body of a `New Event` delivery (see {@link NewEventDeliverySchema}), e.g. for
 * `verifyWebhook(headers, body, { headerName, headerValue, schema: NewEventDeliverySchema })`.
 * Written out, not `z.infer`red, because `.d.ts` files drop the TSDoc of a schema's fields;
 * test/types/testing-types.test-d.ts keeps it equal to the schema's type.
 */
export type NewEventDelivery = {
  /** Always `'New Event'`. */
  webhookEvent: string;
  /** This delivery's id (a UUID), the same as in `sandbox.deliveries`. */
  deliveryId: string;
  /** The webhook delivered to. */
  webhookId: number;
  /** The subscription whose filters matched. */
  subscriptionId: number;
  /** When the delivery was made: an ISO 8601 UTC timestamp, e.g. `'2026-11-02T09:30:00.000Z'`. */
  occurredAt: string;
  /** The event added, as the sandbox stored it. */
  data: {
    /** The incident the event was added to. */
    incidentId: string;
    /** The new event's id (a UUID). */
    eventId: string;
    /** As sent, e.g. `'Event Log Entry'`. */
    eventType: string;
    /** As sent, e.g. `'Other'`. */
    category: string;
    /** The event's free text. */
    detail: string;
    /** When the event was stored: an ISO 8601 UTC timestamp. */
    createdAt: string;
    /** The event's files, in the order sent. */
    attachments: Array<{
      /** The attachment's id (a UUID). */
      attachmentId: string;
      /** Its stored file name, e.g. `'ceiling.jpg'`. */
      filename: string;
      /** The reference's `description`, or `null` when it had none. */
      description: string | null;
      /** Any other field, kept. */
      [key: string]: unknown;
    }>;
    /** Any other field, kept. */
    [key: string]: unknown;
  };
  /** Any other field, kept: a receiver keeps fields it does not know. */
  [key: string]: unknown;
};
