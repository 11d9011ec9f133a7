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
export const EventTypes = {
  /** `'Event Log Entry'`: a free-text entry in the incident's event log. */
  EventLogEntry: 'Event Log Entry',
} as const;
/** An event's `eventType`: `'Event Log Entry'` (documented), or any other string. */
export type EventType = OpenString<(typeof EventTypes)[keyof typeof EventTypes]>;

/** Documented `category` values; any other string is accepted too. */
export const EventCategories = {
  /** `'Other'`: an event of no specific category. */
  Other: 'Other',
  /** `'Report: Final'`: the final report on the incident. */
  ReportFinal: 'Report: Final',
} as const;
/** An event's `category`: `'Other'` or `'Report: Final'` (documented), or any other string. */
export type EventCategory = OpenString<(typeof EventCategories)[keyof typeof EventCategories]>;

/** Documented webhook event names; any other string is accepted too. */
export const WebhookEvents = {
  /** `'New Event'`: sent when an event is added to an incident. */
  NewEvent: 'New Event',
} as const;
/** A subscription's `webhookEvent`: `'New Event'` (documented), or any other string. */
export type WebhookEvent = OpenString<(typeof WebhookEvents)[keyof typeof WebhookEvents]>;

/** Documented filter field names (for `New Event`: the event's `eventType` and `category`). */
export const FilterFields = {
  /** `'eventType'`: the new event's `eventType`, e.g. `'Event Log Entry'`. */
  EventType: 'eventType',
  /** `'category'`: the new event's `category`, e.g. `'Report: Final'`. */
  Category: 'category',
} as const;
/** A filter condition's `name`: a documented one, or any other string. */
export type FilterField = OpenString<(typeof FilterFields)[keyof typeof FilterFields]>;

/** Documented filter operators. */
export const FilterOperators = {
  /** `'equals'`: the field's value equals the condition's `value` exactly. */
  Equals: 'equals',
} as const;
/** A filter condition's `operator`: `'equals'` (documented), or any other string. */
export type FilterOperator = OpenString<(typeof FilterOperators)[keyof typeof FilterOperators]>;
