import { isValidExtraBody } from '../checks/extra-body.js';
import { INCIDENT_CREATE_KEYS, parseIncidentCreate } from '../checks/incident-create.js';
import { parseIncidentCreated } from '../checks/incident-created.js';
import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import { ClaimsValidationError, describeIssues } from '../errors.js';
import type { HandWrittenCheck } from '../internal/answer.js';
import { parseInput } from '../internal/parse-input.js';
import type { IncidentCreate, IncidentCreated } from '../schemas/incidents.js';
import { schemas } from '../schemas/load.js';
import type { Transport } from '../transport.js';
import { hasFileRefs, resolveAttachmentRefs } from './attachment-refs.js';
import type { Attachments } from './attachments.js';
import { type BodyCallOptions, withExtraBody } from './extra-body.js';
import { checkableFormFields } from './incident-form.js';
import { describeForm, type ExtendedFieldsChecker, type FormFields } from './metadata.js';
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
   * `deadlineMs` bounds all of it: the look-up, the upload and the POST.
   * @throws ClaimsValidationError listing every problem; then nothing was sent.
   * @throws ClaimsError (`'not_sent'`) when the metadata look-up or the upload failed: the
   *   claim was not sent; the step's own error is the `cause`.
   */
  create(body: IncidentCreate, options?: IncidentCreateOptions): ClaimsPromise<IncidentCreated> {
    return claimsPromise((sink) => this.#create(body, options, sink));
  }

  async #create(
    body: IncidentCreate,
    options: IncidentCreateOptions | undefined,
    sink: ResponseSink,
  ): Promise<IncidentCreated> {
    // Hand-written checks first: a valid call never loads zod; an invalid one asks zod why.
    const incident = acceptedBody(body, options?.extraBody) ?? (await this.#everyProblem(body, options));
    const { extendedFields } = incident;
    const check = extendedFields !== undefined && options?.checkExtendedFields !== false;
    // Steps before the POST share its deadline; a plain create pays nothing for it.
    const step = check || hasFileRefs(incident.attachments) ? this.transport.steps(options) : undefined;
    if (check) {
      const issues = await this.checkExtendedFields({ ...incident, extendedFields }, step?.());
      if (issues.length > 0) {
        const form = describeForm({ ...incident, countryCode: incident.policyCountry });
        throw new ClaimsValidationError(
          issues,
          describeIssues(`Invalid extendedFields for the form of ${form}`, issues),
        );
      }
    }
    const attachments = await resolveAttachmentRefs(
      incident.attachments,
      this.attachments,
      step ? step() : options,
      'incident',
    );
    return this.transport.request(
      {
        method: 'POST',
        path: '/incidents',
        route: '/incidents',
        body: withExtraBody(attachments ? { ...incident, attachments } : incident, options?.extraBody),
        responseSchema: INCIDENT_CREATED,
      },
      step ? step() : options,
      sink,
    );
  }

  /**
   * zod's parse of a body the hand-written check refused. When it is invalid and its form's
   * codes and extended field values are well-formed, the extended fields are checked too (from
   * the snapshot or the form's metadata), so one error names every problem. If that look-up
   * fails, the body's own issues are thrown as they are: they must be fixed anyway.
   */
  async #everyProblem(body: unknown, options: IncidentCreateOptions | undefined): Promise<IncidentCreate> {
    try {
      return await parsedByZod(body, options?.extraBody);
    } catch (error) {
      const form = options?.checkExtendedFields === false ? undefined : checkableFormFields(body);
      if (!(error instanceof ClaimsValidationError) || form === undefined) throw error;
      const more = await this.#issuesOrNone(form, options);
      if (more.length === 0) throw error;
      throw new ClaimsValidationError([...error.issues, ...more]);
    }
  }

  async #issuesOrNone(form: FormFields, options: IncidentCreateOptions | undefined) {
    try {
      return await this.checkExtendedFields(form, this.transport.steps(options)());
    } catch {
      return [];
    }
  }
}

/** The body as `IncidentCreateSchema` outputs it, or `undefined` when zod must say what is wrong. */
function acceptedBody(body: unknown, extraBody: unknown): IncidentCreate | undefined {
  return isValidExtraBody(extraBody, INCIDENT_CREATE_KEYS) ? parseIncidentCreate(body) : undefined;
}

/** The zod way (loading zod): throws the `ClaimsValidationError` naming every issue. */
async function parsedByZod(body: unknown, extraBody: unknown): Promise<IncidentCreate> {
  const s = await schemas();
  const [parsed] = parseInput<IncidentCreate>([
    ['', s.IncidentCreateSchema, body],
    ['extraBody', s.extraBodySchema(INCIDENT_CREATE_KEYS), extraBody],
  ]);
  // Only reached if the hand-written check refused what zod accepts: zod's output is used.
  return parsed as IncidentCreate;
}

/** The answer's check: hand-written, with zod loaded only to explain a bad answer. */
const INCIDENT_CREATED: HandWrittenCheck<IncidentCreated> = {
  accept: parseIncidentCreated,
  explain: async () => (await schemas()).IncidentCreatedSchema,
};
