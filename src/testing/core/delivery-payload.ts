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
export type NewEventDelivery = z.infer<typeof NewEventDeliverySchema>;
