import { randomUUID } from 'node:crypto';
import { json, readJson, SandboxHttpError } from '../http.js';
import type { SandboxEvent, SandboxIncident, SandboxLinkedAttachment } from '../incidents.js';
import type { Usage } from '../limits.js';
import { extendedFieldProblems } from '../metadata.js';
import { EventBody, IncidentBody } from '../schemas.js';
import { NEW_EVENT } from '../webhooks.js';
import { checkAttachmentRefs, type LinkAttachments } from './attachment-refs.js';
import type { RouteHandler, SandboxContext } from './context.js';

/** What the automatic event of an incident created with attachments says (attachment rule 1). */
export const ATTACHMENTS_EVENT = {
  eventType: 'Event Log Entry',
  category: 'Other',
  detail: 'Attachments added when the incident was created',
} as const;

/** POST /incidents → 201 `{ incidentId }`. */
export const createIncident: RouteHandler = async (req, _params, ctx) => {
  const body = readJson(req, IncidentBody);
  const key = {
    programmeCode: body.programmeCode,
    policyTypeCode: body.policyTypeCode,
    countryCode: body.policyCountry,
  };
  const keyProblems = ctx.metadata.keyProblems(key, {
    programmeCode: 'programmeCode',
    policyTypeCode: 'policyTypeCode',
    countryCode: 'policyCountry',
  });
  const extendedFields = body.extendedFields ?? [];
  const problems =
    keyProblems.length > 0 ? keyProblems : extendedFieldProblems(ctx.metadata.formIndex(key), extendedFields);
  const refs = body.attachments ?? [];
  const link = await checkAttachmentRefs(ctx, refs, problems);
  reserve(ctx, link, req.body.length, {
    incidents: 1,
    events: refs.length > 0 ? 1 : 0,
    attachments: urlCount(refs),
  });

  const incident: SandboxIncident = {
    incidentId: randomUUID(),
    programmeCode: body.programmeCode,
    policyTypeCode: body.policyTypeCode,
    policyCountry: body.policyCountry.toUpperCase(),
    incidentDate: body.incidentDate,
    description: body.description,
    extendedFields: extendedFields.map(({ identifier, value }) => ({ identifier, value })),
    createdAt: new Date().toISOString(),
    events: [],
    body,
  };
  ctx.incidents.set(incident.incidentId, incident);
  const attachments = link();
  if (attachments.length > 0) addEvent(ctx, incident, { ...ATTACHMENTS_EVENT }, attachments);
  ctx.changes.emit({ kind: 'incident', id: incident.incidentId });
  return json(201, { incidentId: incident.incidentId });
};

/** POST /incidents/{incidentId}/events → 201 `{ eventId, incidentId }`. */
export const createEvent: RouteHandler = async (req, [incidentId], ctx) => {
  const incident = ctx.incidents.get(incidentId as string);
  if (!incident) throw new SandboxHttpError(404, 'not_found', `No incident "${incidentId}"`);
  const body = readJson(req, EventBody);
  const refs = body.attachments ?? [];
  const link = await checkAttachmentRefs(ctx, refs, []);
  reserve(ctx, link, req.body.length, { events: 1, attachments: urlCount(refs) });
  const event = addEvent(ctx, incident, body, link());
  ctx.changes.emit({ kind: 'incident', id: incident.incidentId });
  return json(201, { eventId: event.eventId, incidentId: incident.incidentId });
};

/** Files a call links by `url`: each becomes an attachment. */
function urlCount(refs: ReadonlyArray<{ url?: string | undefined }>): number {
  return refs.filter((ref) => ref.url !== undefined).length;
}

/** Takes room for what the call stores, or drops its checked downloads and answers 403 sandbox_full. */
function reserve(
  ctx: SandboxContext,
  link: LinkAttachments,
  bytes: number,
  counts: Parameters<Usage['reserve']>[0],
): void {
  try {
    ctx.usage.reserve(counts, bytes);
  } catch (error) {
    link.discard();
    throw error;
  }
}

/** Appends an event-log entry and sends `New Event` to every matching subscription. */
function addEvent(
  ctx: SandboxContext,
  incident: SandboxIncident,
  body: { eventType: string; category: string; detail: string } & Record<string, unknown>,
  attachments: SandboxLinkedAttachment[],
): SandboxEvent {
  const event: SandboxEvent = {
    eventId: randomUUID(),
    incidentId: incident.incidentId,
    eventType: body.eventType,
    category: body.category,
    detail: body.detail,
    attachments,
    createdAt: new Date().toISOString(),
    body,
  };
  incident.events.push(event);
  ctx.deliverer.newEvent(
    event,
    ctx.webhooks.targets(NEW_EVENT, { eventType: event.eventType, category: event.category }),
  );
  return event;
}
