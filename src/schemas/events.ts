import { z } from 'zod';
import { AttachmentRefInputSchema } from './attachments.js';
import { NonEmptyString, type OpenString } from './common.js';

/** Documented `eventType` values; any other string is accepted too. */
export const EventTypes = { EventLogEntry: 'Event Log Entry' } as const;
export type EventType = OpenString<(typeof EventTypes)[keyof typeof EventTypes]>;

/** Documented `category` values; any other string is accepted too. */
export const EventCategories = { Other: 'Other', ReportFinal: 'Report: Final' } as const;
export type EventCategory = OpenString<(typeof EventCategories)[keyof typeof EventCategories]>;

/** The body of `events.create` (spec 2.2); other fields pass through unchanged. */
export const EventCreateSchema = z.looseObject({
  eventType: NonEmptyString as z.ZodType<EventType, string>,
  category: NonEmptyString as z.ZodType<EventCategory, string>,
  detail: z.string(),
  attachments: z.array(AttachmentRefInputSchema).optional(),
});
export type EventCreate = z.input<typeof EventCreateSchema>;
