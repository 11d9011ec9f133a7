import { parseInput } from '../internal/parse-input.js';
import { path } from '../internal/path.js';
import type { EventCreate } from '../schemas/events.js';
import { schemas } from '../schemas/load.js';
import type { CallOptions, Transport } from '../transport.js';
import { resolveAttachmentRefs } from './attachment-refs.js';
import type { Attachments } from './attachments.js';
import { Resource } from './resource.js';

export class Events extends Resource {
  constructor(
    transport: Transport,
    private readonly attachments: Attachments,
  ) {
    super(transport);
  }

  /**
   * Adds an event-log entry to an existing incident: POST `/incidents/{incidentId}/events`.
   * `{ file }` attachment references are uploaded first, in one request.
   * @returns the parsed JSON answer (its shape is not in the spec), or `undefined` when empty.
   */
  async create(incidentId: string, body: EventCreate, options?: CallOptions): Promise<unknown> {
    const s = await schemas();
    const [, parsed] = parseInput<EventCreate>([
      ['incidentId', s.IncidentId, incidentId],
      ['', s.EventCreateSchema, body],
    ]);
    const event = parsed as EventCreate;
    const attachments = await resolveAttachmentRefs(event.attachments, this.attachments, options);
    return this.transport.request(
      {
        method: 'POST',
        path: path`/incidents/${incidentId}/events`,
        route: '/incidents/{incidentId}/events',
        body: attachments ? { ...event, attachments } : event,
      },
      options,
    );
  }
}
