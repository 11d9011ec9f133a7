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
  /** Always `'New Event'`. */
  webhookEvent: z.string(),
  /** This delivery's id (a UUID): the same in `sandbox.deliveries`. */
  deliveryId: z.string(),
  /** The webhook delivered to. */
  webhookId: z.number(),
  /** The subscription whose filters matched. */
  subscriptionId: z.number(),
  /** When the delivery was made: an ISO 8601 UTC timestamp. */
  occurredAt: z.string(),
  /** The event added, as the sandbox stored it. */
  data: z.looseObject({
    /** The incident the event was added to. */
    incidentId: z.string(),
    /** The new event's id (a UUID). */
    eventId: z.string(),
    /** As sent, e.g. `'Event Log Entry'`. */
    eventType: z.string(),
    /** As sent, e.g. `'Other'`. */
    category: z.string(),
    /** The event's free text. */
    detail: z.string(),
    /** When the event was stored: an ISO 8601 UTC timestamp. */
    createdAt: z.string(),
    /** The event's files: `{ attachmentId, filename, description }`, `description` `null` when none. */
    attachments: z.array(
      z.looseObject({ attachmentId: z.string(), filename: z.string(), description: z.string().nullable() }),
    ),
  }),
});
/**
 * The parsed body of a `New Event` delivery (see {@link NewEventDeliverySchema}), e.g. for
 * `verifyWebhook(headers, body, { headerName, headerValue, schema: NewEventDeliverySchema })`.
 */
export type NewEventDelivery = z.infer<typeof NewEventDeliverySchema>;
