import { ClaimsValidationError } from '../errors.js';
import { checkExtendedFields } from '../extended-fields.js';
import { MetadataCache } from '../metadata-cache.js';
import type { IncidentCreate } from '../schemas/incidents.js';
import {
  type IncidentFieldDescriptor,
  IncidentFieldDescriptorListSchema,
  type IncidentFieldsQuery,
  IncidentFieldsQuerySchema,
  ProgrammesQuerySchema,
} from '../schemas/metadata.js';
import type { CallOptions, Transport } from '../transport.js';
import { Resource } from './resource.js';

export class Metadata extends Resource {
  readonly #cache: MetadataCache;

  constructor(transport: Transport, cacheTtlMs: number) {
    super(transport);
    this.#cache = new MetadataCache(cacheTtlMs, (query, options) => this.incidentFields(query, options));
  }

  /**
   * The fields of an incident form: GET `/metadata/incidents`. Always asks the server; the
   * automatic check of `incidents.create` uses a cached copy instead.
   */
  incidentFields(query: IncidentFieldsQuery, options?: CallOptions): Promise<IncidentFieldDescriptor[]> {
    return this.transport.request(
      {
        method: 'GET',
        path: '/metadata/incidents',
        params: { query: [IncidentFieldsQuerySchema, query] },
        query: {
          programmeCode: query?.programmeCode,
          policyTypeCode: query?.policyTypeCode,
          countryCode: query?.countryCode,
        },
        responseSchema: IncidentFieldDescriptorListSchema,
      },
      options,
    );
  }

  /**
   * Programmes and policy types: GET `/metadata/programmes`. The spec does not describe the
   * answer, so it is returned as parsed, unchanged.
   */
  programmes(query?: Record<string, string>, options?: CallOptions): Promise<unknown> {
    return this.transport.request(
      {
        method: 'GET',
        path: '/metadata/programmes',
        params: { query: [ProgrammesQuerySchema, query] },
        ...(query ? { query } : {}),
      },
      options,
    );
  }

  /** Empties the cache of form descriptors used by the automatic check of `incidents.create`. */
  clearCache(): void {
    this.#cache.clear();
  }

  /** @internal Throws `ClaimsValidationError` when the incident's extended fields break its form. */
  async assertExtendedFields(incident: IncidentCreate, options?: CallOptions): Promise<void> {
    const descriptors = await this.#cache.get(
      {
        programmeCode: incident.programmeCode,
        policyTypeCode: incident.policyTypeCode,
        countryCode: incident.policyCountry,
      },
      options,
    );
    const problems = checkExtendedFields(descriptors, incident.extendedFields ?? []);
    if (problems.length > 0) {
      throw new ClaimsValidationError(
        problems.map((p) => ({ path: `extendedFields[${p.identifier}]`, message: p.message, code: p.code })),
      );
    }
  }
}
