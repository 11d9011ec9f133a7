import { parseInput } from '../internal/parse-input.js';
import type { IncidentCreate, IncidentCreated } from '../schemas/incidents.js';
import { schemas } from '../schemas/load.js';
import type { CallOptions, Transport } from '../transport.js';
import { resolveAttachmentRefs } from './attachment-refs.js';
import type { Attachments } from './attachments.js';
import type { Metadata } from './metadata.js';
import { Resource } from './resource.js';

/** Options of `incidents.create`. */
export interface IncidentCreateOptions extends CallOptions {
  /**
   * Check `extendedFields` against the form's metadata before sending.
   * @default true
   */
  checkExtendedFields?: boolean;
}

export class Incidents extends Resource {
  constructor(
    transport: Transport,
    private readonly metadata: Metadata,
    private readonly attachments: Attachments,
  ) {
    super(transport);
  }

  /**
   * Notifies a new incident (claim): POST `/incidents`.
   *
   * Before anything is sent the body is validated and, when it has `extendedFields`, they
   * are checked against the form's metadata (fetched once and cached). `{ file }` attachment
   * references are uploaded first, in one request.
   * @throws ClaimsValidationError listing every problem; then nothing was sent.
   */
  async create(body: IncidentCreate, options?: IncidentCreateOptions): Promise<IncidentCreated> {
    const s = await schemas();
    const [parsed] = parseInput<IncidentCreate>([['', s.IncidentCreateSchema, body]]);
    const incident = parsed as IncidentCreate;
    if (incident.extendedFields && options?.checkExtendedFields !== false) {
      await this.metadata.assertExtendedFields(incident, options);
    }
    const attachments = await resolveAttachmentRefs(incident.attachments, this.attachments, options);
    return this.transport.request(
      {
        method: 'POST',
        path: '/incidents',
        route: '/incidents',
        body: attachments ? { ...incident, attachments } : incident,
        responseSchema: s.IncidentCreatedSchema,
      },
      options,
    );
  }
}
