import { parseInput } from '../internal/parse-input.js';
import type { IncidentCreate, IncidentCreated } from '../schemas/incidents.js';
import { schemas } from '../schemas/load.js';
import type { Transport } from '../transport.js';
import { resolveAttachmentRefs } from './attachment-refs.js';
import type { Attachments } from './attachments.js';
import { type BodyCallOptions, withExtraBody } from './extra-body.js';
import type { ExtendedFieldsChecker } from './metadata.js';
import { Resource } from './resource.js';

/** Options of `incidents.create`. */
export interface IncidentCreateOptions extends BodyCallOptions {
  /**
   * Check `extendedFields` against the form's metadata before sending.
   * @default true
   */
  checkExtendedFields?: boolean;
}

/** Incidents, i.e. claims (`client.incidents`): `create`. */
export class Incidents extends Resource {
  /** @internal */
  constructor(
    transport: Transport,
    private readonly checkExtendedFields: ExtendedFieldsChecker,
    private readonly attachments: Attachments,
  ) {
    super(transport);
  }

  /**
   * Notifies a new incident (claim): POST `/incidents`.
   *
   * Before anything is sent the body is validated and, when it has `extendedFields`, they
   * are checked against the form's metadata (fetched once and cached). `{ file }` attachment
   * references are uploaded first, in one request. Fields the SDK does not document go in
   * `options.extraBody`.
   *
   * @example
   * const { incidentId } = await client.incidents.create({
   *   programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', policyCountry: 'GB',
   *   incidentDate: '2026-11-02', description: 'Burst pipe in the loft',
   * });
   * @returns `{ incidentId, ...any other field the server sent }`.
   * @throws ClaimsValidationError listing every problem; then nothing was sent.
   */
  async create(body: IncidentCreate, options?: IncidentCreateOptions): Promise<IncidentCreated> {
    const s = await schemas();
    const [parsed] = parseInput<IncidentCreate>([
      ['', s.IncidentCreateSchema, body],
      ['extraBody', s.extraBodySchema(s.INCIDENT_CREATE_KEYS), options?.extraBody],
    ]);
    const incident = parsed as IncidentCreate;
    if (incident.extendedFields && options?.checkExtendedFields !== false) {
      await this.checkExtendedFields(incident, options);
    }
    const attachments = await resolveAttachmentRefs(incident.attachments, this.attachments, options);
    return this.transport.request(
      {
        method: 'POST',
        path: '/incidents',
        route: '/incidents',
        body: withExtraBody(attachments ? { ...incident, attachments } : incident, options?.extraBody),
        responseSchema: s.IncidentCreatedSchema,
      },
      options,
    );
  }
}
