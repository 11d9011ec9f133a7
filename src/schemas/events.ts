import * as z from 'zod/mini';
import type { EventCategory, EventType } from '../constants.js';
import { type AttachmentRefInput, AttachmentRefInputSchema } from './attachments.js';
import { NonEmptyString } from './common.js';
import { documentedKeys, nearTypoCheck } from './near-typos.js';

/**
 * The body of `events.create` (spec 2.2): one entry in an incident's event log. Fields the
 * SDK does not document: see the `extraBody` call option.
 *
 * @example
 * const body: EventCreate = { eventType: 'Event Log Entry', category: 'Other', detail: 'Assessor visit booked' };
 */
export interface EventCreate {
  /** Kind of entry: `'Event Log Entry'` (documented, `EventTypes`) or another non-empty string. */
  eventType: EventType;
  /** Category: `'Other'` or `'Report: Final'` (documented, `EventCategories`) or another non-empty string. */
  category: EventCategory;
  /** The entry's text, e.g. `'Loss adjuster report received'`. */
  detail: string;
  /** Files to attach, as in `incidents.create`: `{ attachmentId }`, `{ url }` or `{ file }`. */
  attachments?: readonly AttachmentRefInput[];
}

/** The documented keys of {@link EventCreate}. */
export const EVENT_CREATE_KEYS = documentedKeys<EventCreate>({
  eventType: true,
  category: true,
  detail: true,
  attachments: true,
});

export const EventCreateSchema = z
  .looseObject({
    eventType: NonEmptyString,
    category: NonEmptyString,
    detail: z.string(),
    attachments: z.optional(z.array(AttachmentRefInputSchema)),
  })
  .check(nearTypoCheck(EVENT_CREATE_KEYS));

/**
 * What `events.create` resolves to. The spec does not describe the answer, so it is the
 * parsed JSON object exactly as the server sent it (the sandbox sends
 * `{ eventId, incidentId }`), or `undefined` when the answer had no body. Read its fields
 * defensively, e.g. `typeof created?.eventId === 'string'`.
 */
export type EventCreated = Record<string, unknown> | undefined;

/** A 2xx answer to `events.create`: a JSON object, or nothing. */
export const EventCreatedSchema = z.optional(z.record(z.string(), z.unknown()));
