import { z } from 'zod';
import type { EventCategory, EventType } from '../constants.js';
import { AttachmentRefInputSchema } from './attachments.js';
import { NonEmptyString } from './common.js';

/** The body of `events.create` (spec 2.2); other fields pass through unchanged. */
export const EventCreateSchema = z.looseObject({
  eventType: NonEmptyString as z.ZodType<EventType, string>,
  category: NonEmptyString as z.ZodType<EventCategory, string>,
  detail: z.string(),
  attachments: z.array(AttachmentRefInputSchema).optional(),
});
export type EventCreate = z.input<typeof EventCreateSchema>;
