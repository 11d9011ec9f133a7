import { cachedFormIndex } from '../checks/form-index.js';
import { type ClaimsPromise, claimsPromise, type ResponseSink } from '../claims-promise.js';
import {
  ClaimsApiError,
  ClaimsValidationError,
  describeIssues,
  restate,
  type ValidationIssue,
} from '../errors.js';
import {
  type LocatedProblem,
  locateExtendedFieldProblems,
  requiredExtendedFields,
} from '../extended-fields.js';
import { formKey } from '../form-snapshot.js';
import { parseInput } from '../internal/parse-input.js';
import { excerpt, quote } from '../internal/quote.js';
import { MetadataCache } from '../metadata-cache.js';
import type { ExtendedFieldValue, IncidentCreate } from '../schemas/incidents.js';
import { schemas } from '../schemas/load.js';
import type { IncidentFieldDescriptor, IncidentFieldsQuery } from '../schemas/metadata.js';
import type { CallOptions, Transport } from '../transport.js';
import { Resource } from './resource.js';

/**
 * What the extended-field check reads of an incident: the form's three codes and the values
 * (an incident without `extendedFields` is not checked).
 */
export type FormFields = Pick<IncidentCreate, 'programmeCode' | 'policyTypeCode' | 'policyCountry'> & {
  extendedFields: readonly ExtendedFieldValue[];
};

/** Checks an incident's extended fields against its form; see {@link extendedFieldsChecker}. */
export type ExtendedFieldsChecker = (
  incident: FormFields,
  options?: CallOptions,
) => Promise<ValidationIssue[]>;

/**
 * Where the check finds a form before asking the server: the client's `formSnapshot`, by
 * form key; with `only`, a form not in it is refused rather than looked up.
 */
export interface FormSnapshotSource {
  forms: ReadonlyMap<string, IncidentFieldDescriptor[]>;
  only: boolean;
}

// Set by Metadata's static block, the one place that can reach its private check. A field
// or method on the class would be in the public types and in every editor's completion.
let checkerOf: (metadata: Metadata) => ExtendedFieldsChecker;

/**
 * The automatic check of `incidents.create`: resolves to every problem of the incident's
 * extended fields as issues (`[]` when none), the form taken from the client's `formSnapshot`
 * or else the metadata's cache. A failed metadata look-up rejects with a `ClaimsError` naming
 * the form, the look-up's error as `cause`.
 */
export function extendedFieldsChecker(metadata: Metadata): ExtendedFieldsChecker {
  return checkerOf(metadata);
}

/**
 * Incident form and programme metadata, and the cache of form descriptors behind the
 * automatic extended-field check of `incidents.create` (see docs/extended-fields.md).
 */
export class Metadata extends Resource {
  readonly #cache: MetadataCache;
  readonly #snapshot: FormSnapshotSource | undefined;

  static {
    checkerOf = (metadata) => (incident, options) => metadata.#extendedFieldIssues(incident, options);
  }

  /** @internal */
  constructor(
    transport: Transport,
    cacheTtlMs: number,
    cacheMaxEntries?: number,
    snapshot?: FormSnapshotSource,
  ) {
    super(transport);
    this.#cache = new MetadataCache(
      cacheTtlMs,
      (query, options) => this.incidentFields(query, options),
      cacheMaxEntries,
    );
    this.#snapshot = snapshot;
  }

  /**
   * The fields of an incident form: GET `/metadata/incidents`. Always asks the server; the
   * automatic check of `incidents.create` and `requiredFields` use a cached copy instead.
   * Descriptor fields the spec does not show are kept.
   *
   * @example
   * const fields = await client.metadata.incidentFields({ programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', countryCode: 'GB' });
   */
  incidentFields(
    query: IncidentFieldsQuery,
    options?: CallOptions,
  ): ClaimsPromise<IncidentFieldDescriptor[]> {
    return claimsPromise((sink) => this.#incidentFields(query, options, sink));
  }

  async #incidentFields(
    query: IncidentFieldsQuery,
    options: CallOptions | undefined,
    sink: ResponseSink,
  ): Promise<IncidentFieldDescriptor[]> {
    const s = await schemas();
    return this.transport.request(
      {
        method: 'GET',
        path: '/metadata/incidents',
        route: '/metadata/incidents',
        params: { query: [s.IncidentFieldsQuerySchema, query] },
        query: {
          programmeCode: query?.programmeCode,
          policyTypeCode: query?.policyTypeCode,
          countryCode: query?.countryCode,
        },
        responseSchema: s.IncidentFieldDescriptorListSchema,
      },
      options,
      sink,
    );
  }

  /**
   * Programmes and policy types: GET `/metadata/programmes`. The spec does not describe the
   * answer, so it is returned as parsed, unchanged.
   */
  programmes(query?: Record<string, string>, options?: CallOptions): ClaimsPromise<unknown> {
    return claimsPromise((sink) => this.#programmes(query, options, sink));
  }

  async #programmes(
    query: Record<string, string> | undefined,
    options: CallOptions | undefined,
    sink: ResponseSink,
  ): Promise<unknown> {
    const s = await schemas();
    return this.transport.request(
      {
        method: 'GET',
        path: '/metadata/programmes',
        route: '/metadata/programmes',
        params: { query: [s.ProgrammesQuerySchema, query] },
        ...(query ? { query } : {}),
      },
      options,
      sink,
    );
  }

  /**
   * The fields a form requires in `extendedFields` (`isRequired: true`), in the metadata's
   * order, so a UI or a script can ask for them before creating the incident. Reads the form
   * as the automatic check of `incidents.create` does: from the client's `formSnapshot`, else
   * from the cache.
   *
   * @example
   * const required = await client.metadata.requiredFields({ programmeCode: 'PRG-MOTOR', policyTypeCode: 'MOTOR-COMP', countryCode: 'GB' });
   * // with the sandbox's demo forms:
   * // [{ identifier: 'motor_claim:Vehicle_Registration', name: 'Vehicle registration', section: 'Vehicle', maxLength: 10, isRequired: true, ... },
   * //  { identifier: 'motor_claim:Incident_Type', name: 'Type of incident', section: 'Incident', listSource: ['Collision', 'Theft', 'Fire', 'Windscreen', 'Vandalism'], ... }]
   * @throws ClaimsValidationError when the query is invalid, or names a form not in
   *   `formSnapshot` while `formSnapshotOnly` is set; nothing was sent.
   */
  async requiredFields(
    query: IncidentFieldsQuery,
    options?: CallOptions,
  ): Promise<IncidentFieldDescriptor[]> {
    const s = await schemas();
    const [valid] = parseInput<IncidentFieldsQuery>([['query', s.IncidentFieldsQuerySchema, query]]);
    const descriptors = await this.#descriptors(valid as IncidentFieldsQuery, options);
    if (descriptors === undefined) {
      const issue = notInSnapshot('query', valid as IncidentFieldsQuery);
      throw new ClaimsValidationError([issue], describeIssues('Cannot read the form', [issue]));
    }
    // Copies: the cached descriptors are shared by every caller and must not be changed by one.
    return structuredClone([...cachedFormIndex(descriptors).required(requiredExtendedFields)]);
  }

  /**
   * Empties the cache of form descriptors used by the automatic check of `incidents.create`
   * and by `requiredFields`, e.g. after the form was changed on the server.
   */
  clearCache(): void {
    this.#cache.clear();
  }

  /** The form's descriptors: from the snapshot, else the cache; `undefined` when the snapshot must not be left. */
  async #descriptors(
    query: IncidentFieldsQuery,
    options: CallOptions | undefined,
  ): Promise<IncidentFieldDescriptor[] | undefined> {
    const pulled = this.#snapshot?.forms.get(formKey(query));
    if (pulled !== undefined || this.#snapshot?.only === true) return pulled;
    return this.#cache.get(query, options);
  }

  async #extendedFieldIssues(incident: FormFields, options?: CallOptions): Promise<ValidationIssue[]> {
    const query = {
      programmeCode: incident.programmeCode,
      policyTypeCode: incident.policyTypeCode,
      countryCode: incident.policyCountry,
    };
    let descriptors: IncidentFieldDescriptor[] | undefined;
    try {
      descriptors = await this.#descriptors(query, options);
    } catch (error) {
      throw lookupFailed(error, describeForm(query));
    }
    if (descriptors === undefined) return [notInSnapshot('extendedFields', query)];
    // The cached and the snapshot's arrays are never handed out nor changed: each form's
    // index is built once.
    return locateExtendedFieldProblems(cachedFormIndex(descriptors), incident.extendedFields).map(toIssue);
  }
}

/** How messages name a form: `programme "PRG-HOME", policy type "HOME-STD", country "GB"`. */
export function describeForm(query: IncidentFieldsQuery): string {
  return `programme ${quote(query.programmeCode)}, policy type ${quote(query.policyTypeCode)}, country ${quote(query.countryCode)}`;
}

/** The refusal of a form that `formSnapshotOnly` forbids looking up. */
function notInSnapshot(path: string, query: IncidentFieldsQuery): ValidationIssue {
  return {
    path,
    code: 'form_not_in_snapshot',
    message: `the form of ${describeForm(query)} is not in formSnapshot, and formSnapshotOnly forbids looking it up; add it with \`claims forms pull\``,
  };
}

/**
 * The path is the index in `extendedFields` (an identifier can repeat, an index cannot), or
 * `extendedFields` itself for a required field that is absent; the message starts with the
 * identifier so it can still be searched for.
 */
function toIssue({ index, problem }: LocatedProblem): ValidationIssue {
  return {
    path: index === undefined ? 'extendedFields' : `extendedFields[${index}]`,
    message: `${excerpt(problem.identifier)}: ${problem.message}`,
    code: problem.code,
  };
}

/**
 * The error of `incidents.create` when the look-up of its form's metadata failed: it names the
 * form (a bare 404 of a GET the caller never made says nothing), and the claim was not sent,
 * whatever the look-up's own outcome.
 */
function lookupFailed(error: unknown, form: string): Error {
  const why =
    error instanceof ClaimsApiError && error.status === 404
      ? `there is no incident form metadata for ${form} (the look-up answered 404)`
      : `the incident form metadata for ${form} could not be read (${error instanceof ClaimsApiError ? error.status : error instanceof Error ? excerpt(error.name) : excerpt(String(error))})`;
  return restate(
    error,
    `Cannot check extendedFields: ${why}. The claim was not sent; the look-up's error is the cause.`,
    'not_sent',
  );
}
