/** An attachment linked to an event-log entry. */
export interface SandboxLinkedAttachment {
  attachmentId: string;
  filename: string;
  description: string | null;
}

/** An event-log entry as the sandbox holds it. */
export interface SandboxEvent {
  eventId: string;
  incidentId: string;
  eventType: string;
  category: string;
  detail: string;
  attachments: SandboxLinkedAttachment[];
  createdAt: string;
  /** The body as received, other fields included. */
  body: Record<string, unknown>;
}

/** An incident as the sandbox holds it, with its event log. */
export interface SandboxIncident {
  incidentId: string;
  programmeCode: string;
  policyTypeCode: string;
  policyCountry: string;
  incidentDate: string;
  description: string;
  extendedFields: Array<{ identifier: string; value: string }>;
  createdAt: string;
  events: SandboxEvent[];
  /** The body as received, other fields included. */
  body: Record<string, unknown>;
}
