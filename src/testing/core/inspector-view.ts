import { VERSION } from '../../version.js';
import type { SandboxAttachment } from './attachments.js';
import type { SandboxCall } from './calls.js';
import type { SandboxDelivery } from './deliveries.js';
import { describeFault } from './faults/fault.js';
import { FAULT_ROUTES } from './faults/route-pattern.js';
import type { SandboxIncident } from './incidents.js';
import type { SandboxCore } from './sandbox-core.js';

// What the inspector page (and `GET /_sandbox/…`) shows: plain JSON, every secret redacted
// (the token, webhooks' header values, credential-named fields), long texts cut.

/** How many of the newest calls, incidents and delivery attempts the page lists at first. */
export const LISTED = 200;
const SUMMARY_CHARS = 200;
/** Delivery headers the sandbox sets itself; every other one is the webhook's own (a secret). */
const PLAIN_DELIVERY_HEADERS = new Set(['content-type', 'user-agent', 'content-length']);

const cut = (text: string) => (text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text);

/** A call in the list: what, when, how it ended. */
export function callSummary(call: SandboxCall) {
  return {
    id: call.id,
    at: call.at,
    method: call.method,
    route: call.route,
    path: call.path,
    status: call.status,
    processed: call.processed,
    fault: call.fault === undefined ? null : describeFault(call.fault),
    ms: call.ms,
  };
}

/** An incident in the list. */
export function incidentSummary(core: SandboxCore, incident: SandboxIncident) {
  const { secrets } = core;
  return {
    incidentId: incident.incidentId,
    createdAt: incident.createdAt,
    programmeCode: cut(secrets.text(incident.programmeCode)),
    policyTypeCode: cut(secrets.text(incident.policyTypeCode)),
    policyCountry: incident.policyCountry,
    incidentDate: incident.incidentDate,
    description: cut(secrets.text(incident.description)),
    events: incident.events.length,
  };
}

/** An attachment as the page shows it: no bytes, a size and a status. */
export function attachmentView(
  core: SandboxCore,
  attachment: SandboxAttachment | undefined,
  attachmentId: string,
) {
  if (!attachment) return { attachmentId, missing: true };
  return {
    attachmentId,
    filename: core.secrets.text(attachment.filename),
    contentType: core.secrets.text(attachment.contentType),
    source: attachment.source,
    status: attachment.status,
    bytes: attachment.data?.length ?? null,
    ...(attachment.url === undefined ? {} : { url: core.secrets.url(attachment.url) }),
    ...(attachment.error === undefined ? {} : { error: attachment.error }),
  };
}

/** An incident with its event log and files. */
export function incidentDetail(core: SandboxCore, incident: SandboxIncident) {
  return {
    ...incidentSummary(core, incident),
    description: core.secrets.text(incident.description),
    extendedFields: core.secrets.json(incident.extendedFields),
    body: core.secrets.json(incident.body),
    events: incident.events.map((event) => ({
      eventId: event.eventId,
      createdAt: event.createdAt,
      eventType: core.secrets.text(event.eventType),
      category: core.secrets.text(event.category),
      detail: core.secrets.text(event.detail),
      body: core.secrets.json(event.body),
      attachments: event.attachments.map((link) => ({
        ...attachmentView(core, core.attachment(link.attachmentId), link.attachmentId),
        description: link.description === null ? null : core.secrets.text(link.description),
      })),
    })),
  };
}

/** A delivery attempt: what was sent (the webhook's header blanked) and what came back. */
export function deliveryView(core: SandboxCore, delivery: SandboxDelivery) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(delivery.headers)) {
    headers[name] = PLAIN_DELIVERY_HEADERS.has(name) ? core.secrets.text(value) : '[REDACTED]';
  }
  return {
    deliveryId: delivery.deliveryId,
    attempt: delivery.attempt,
    at: delivery.at,
    webhookId: delivery.webhookId,
    subscriptionId: delivery.subscriptionId,
    url: core.secrets.url(delivery.url),
    status: delivery.status,
    responseStatus: delivery.responseStatus ?? null,
    responseBody: delivery.responseBody === undefined ? null : core.secrets.text(delivery.responseBody),
    error: delivery.error ?? null,
    headers,
    payload: core.secrets.json(delivery.payload),
  };
}

/** The queued faults, each with its words. */
export function faultsView(core: SandboxCore) {
  return core.faults.pending.map((p) => ({ ...p, text: describeFault(p.fault) }));
}

/** How much the sandbox holds, and how much its logs dropped. */
export function inspectorCounts(core: SandboxCore) {
  const usage = core.usage;
  return {
    calls: core.callRecords().length,
    incidents: core.incidents.length,
    events: usage.events,
    attachments: usage.attachments,
    storedBytes: usage.storedBytes,
    deliveries: core.deliveries.length,
    webhooks: core.webhooks.length,
    dropped: core.dropped,
  };
}

/** Everything the page needs to draw itself: counts, limits, the newest of each list. */
export function inspectorState(core: SandboxCore) {
  const incidents = core.incidents;
  const deliveries = core.deliveries;
  const calls = core.callRecords();
  return {
    version: VERSION,
    chaos: core.chaos ?? null,
    limits: core.limits,
    routes: FAULT_ROUTES,
    counts: inspectorCounts(core),
    faults: faultsView(core),
    calls: calls.slice(-LISTED).map(callSummary),
    incidents: incidents.slice(-LISTED).map((i) => incidentSummary(core, i)),
    deliveries: deliveries.slice(-LISTED).map((d) => deliveryView(core, d)),
  };
}
