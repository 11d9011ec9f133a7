import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import { parseInput } from '../internal/parse-input.js';
import { path } from '../internal/path.js';
import type { EventCreate } from '../schemas/events.js';
import { schemas } from '../schemas/load.js';
import type { CallOptions, Transport } from '../transport.js';
import { hasFileRefs, resolveAttachmentRefs } from './attachment-refs.js';
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
   * `deadlineMs` bounds the upload and the POST together.
   * @returns the parsed JSON answer (its shape is not in the spec), or `undefined` when empty.
   * @throws ClaimsError (`'not_sent'`) when the upload failed: the event was not sent; the
   *   upload's error is the `cause`.
   */
  create(incidentId: string, body: EventCreate, options?: CallOptions): ClaimsPromise<unknown> {
    return claimsPromise((sink) => this.#create(incidentId, body, options, sink));
  }

  async #create(
    incidentId: string,
    body: EventCreate,
    options: CallOptions | undefined,
    sink: ResponseSink,
  ): Promise<unknown> {
    const s = await schemas();
    const [, parsed] = parseInput<EventCreate>([
      ['incidentId', s.IncidentId, incidentId],
      ['', s.EventCreateSchema, body],
    ]);
    const event = parsed as EventCreate;
    const step = hasFileRefs(event.attachments) ? this.transport.steps(options) : undefined;
    const attachments = await resolveAttachmentRefs(
      event.attachments,
      this.attachments,
      step ? step() : options,
      'event',
    );
    return this.transport.request(
      {
        method: 'POST',
        path: path`/incidents/${incidentId}/events`,
        route: '/incidents/{incidentId}/events',
        body: attachments ? { ...event, attachments } : event,
      },
      step ? step() : options,
      sink,
    );
  }
}
