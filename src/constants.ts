/**
 * The documented values of the API's open-ended strings, as constants for autocomplete. Kept
 * apart from the zod schemas so importing them does not load zod.
 */

/**
 * A string type that offers the documented values in autocomplete but accepts any string,
 * since the spec lists only some of the values the service uses.
 */
export type OpenString<Known extends string> = Known | (string & {});

/** Documented `eventType` values; any other string is accepted too. */
export const EventTypes = { EventLogEntry: 'Event Log Entry' } as const;
/** An event's `eventType`: `'Event Log Entry'` (documented), or any other string. */
export type EventType = OpenString<(typeof EventTypes)[keyof typeof EventTypes]>;

/** Documented `category` values; any other string is accepted too. */
export const EventCategories = { Other: 'Other', ReportFinal: 'Report: Final' } as const;
/** An event's `category`: `'Other'` or `'Report: Final'` (documented), or any other string. */
export type EventCategory = OpenString<(typeof EventCategories)[keyof typeof EventCategories]>;

/** Documented webhook event names; any other string is accepted too. */
export const WebhookEvents = { NewEvent: 'New Event' } as const;
/** A subscription's `webhookEvent`: `'New Event'` (documented), or any other string. */
export type WebhookEvent = OpenString<(typeof WebhookEvents)[keyof typeof WebhookEvents]>;

/** Documented filter field names (for `New Event`: the event's `eventType` and `category`). */
export const FilterFields = { EventType: 'eventType', Category: 'category' } as const;
/** A filter condition's `name`: a documented one, or any other string. */
export type FilterField = OpenString<(typeof FilterFields)[keyof typeof FilterFields]>;

/** Documented filter operators. */
export const FilterOperators = { Equals: 'equals' } as const;
/** A filter condition's `operator`: `'equals'` (documented), or any other string. */
export type FilterOperator = OpenString<(typeof FilterOperators)[keyof typeof FilterOperators]>;
