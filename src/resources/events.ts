import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import { parseInput } from '../internal/parse-input.js';
import { path } from '../internal/path.js';
import type { EventCreate, EventCreated } from '../schemas/events.js';
import { schemas } from '../schemas/load.js';
import type { Transport } from '../transport.js';
import { hasFileRefs, resolveAttachmentRefs } from './attachment-refs.js';
import type { Attachments } from './attachments.js';
import { type BodyCallOptions, withExtraBody } from './extra-body.js';
import { Resource } from './resource.js';

/** Event-log entries on an incident (`client.events`): `create`. */
export class Events extends Resource {
  /** @internal */
  constructor(
    transport: Transport,
    private readonly attachments: Attachments,
  ) {
    super(transport);
  }

  /**
   * Adds an event-log entry to an existing incident: POST `/incidents/{incidentId}/events`.
   * `{ file }` attachment references are uploaded first, in one request. Fields the SDK does
   * not document go in `options.extraBody`.
   *
   * @example
   * const created = await client.events.create(incidentId, {
   *   eventType: 'Event Log Entry', category: 'Other', detail: 'Assessor visit booked for Monday',
   * });
   * // with the sandbox: { eventId: '…', incidentId: '…' }
   * @param incidentId the id `incidents.create` resolved to.
   * @returns the answer's JSON object as sent (the spec does not describe it), or `undefined`
   *   when the answer is empty; see {@link EventCreated}.
   * @throws ClaimsValidationError listing every problem; then nothing was sent.
   * @throws ClaimsResponseValidationError (outcome `'processed'`: the event was created) when
   *   the 2xx answer is neither empty nor a JSON object.
   * @throws ClaimsError (`'not_sent'`) when the upload failed: the event was not sent; the
   *   upload's error is the `cause`. `deadlineMs` bounds the upload and the POST together.
   */
  create(incidentId: string, body: EventCreate, options?: BodyCallOptions): ClaimsPromise<EventCreated> {
    return claimsPromise((sink) => this.#create(incidentId, body, options, sink));
  }

  async #create(
    incidentId: string,
    body: EventCreate,
    options: BodyCallOptions | undefined,
    sink: ResponseSink,
  ): Promise<EventCreated> {
    const s = await schemas();
    const [, parsed] = parseInput<EventCreate>([
      ['incidentId', s.IncidentId, incidentId],
      ['', s.EventCreateSchema, body],
      ['extraBody', s.extraBodySchema(s.EVENT_CREATE_KEYS), options?.extraBody],
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
        body: withExtraBody(attachments ? { ...event, attachments } : event, options?.extraBody),
        responseSchema: s.EventCreatedSchema,
      },
      step ? step() : options,
      sink,
    );
  }
}
