/** An attachment linked to an event-log entry. */
export interface SandboxLinkedAttachment {
  /** The attachment's id (a UUID): look it up with `sandbox.attachment(attachmentId)`. */
  attachmentId: string;
  /** Its stored file name, e.g. `'ceiling.jpg'`. */
  filename: string;
  /** The reference's `description`, or `null` when it had none. */
  description: string | null;
}

/** An event-log entry as the sandbox holds it. */
export interface SandboxEvent {
  /** The id the sandbox gave the event (a UUID), as `events.create` resolved with. */
  eventId: string;
  /** The incident the event belongs to. */
  incidentId: string;
  /** As sent, e.g. `'Event Log Entry'`. */
  eventType: string;
  /** As sent, e.g. `'Other'` or `'Report: Final'`. */
  category: string;
  /** The event's free text, as sent. */
  detail: string;
  /** The files the event references, in the order sent (`{ file }` ones after upload). */
  attachments: SandboxLinkedAttachment[];
  /** When the sandbox stored it: an ISO 8601 UTC timestamp, e.g. `'2026-11-02T09:30:00.000Z'`. */
  createdAt: string;
  /** The body as received, other fields included. */
  body: Record<string, unknown>;
}

/** An incident as the sandbox holds it, with its event log. */
export interface SandboxIncident {
  /** The id the sandbox gave the incident (a UUID), as `incidents.create` resolved with. */
  incidentId: string;
  /** As sent, e.g. `'PRG-HOME'`. */
  programmeCode: string;
  /** As sent, e.g. `'HOME-STD'`. */
  policyTypeCode: string;
  /** As sent (2-letter code, case kept), e.g. `'GB'`. */
  policyCountry: string;
  /** As sent: `YYYY-MM-DD`, e.g. `'2026-11-02'`. */
  incidentDate: string;
  /** The incident's free text, as sent. */
  description: string;
  /** The answers to the form's extra fields, as sent (`[]` when none were). */
  extendedFields: Array<{ identifier: string; value: string }>;
  /** When the sandbox stored it: an ISO 8601 UTC timestamp, e.g. `'2026-11-02T09:30:00.000Z'`. */
  createdAt: string;
  /** Its event-log entries, oldest first. */
  events: SandboxEvent[];
  /** The body as received, other fields included. */
  body: Record<string, unknown>;
}
