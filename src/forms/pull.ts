import type { ClaimsClientBase } from '../client.js';
import { ClaimsError, ClaimsValidationError, describeIssues, type ValidationIssue } from '../errors.js';
import {
  FORM_SNAPSHOT_VERSION,
  type FormSnapshot,
  type FormSnapshotForm,
  formKey,
} from '../form-snapshot.js';
import { quote } from '../internal/quote.js';
import type { IncidentFieldsQuery } from '../schemas/metadata.js';
import type { CallOptions } from '../transport.js';
import { sameDescriptors } from './canonical.js';
import { byCodeUnits } from './diff.js';
import { eachLimited, liveForm } from './live.js';
import { formsOfProgrammes } from './programmes.js';

/** Which forms `pullForms` reads, and what it keeps of an earlier snapshot. */
export interface PullRequest {
  /** The forms named (`--programme P --policy-type T --country C`, repeated). */
  forms?: readonly IncidentFieldsQuery[];
  /** Every form the programmes operation lists (`--all`). */
  all?: boolean;
  /**
   * The snapshot already on disk, if any. A form whose descriptors and source are unchanged
   * keeps its entry (and its `pulledAt`), so an idle pull rewrites nothing. With neither
   * `forms` nor `all`, its forms are pulled again (all of them again when it was pulled with `all`).
   */
  previous?: FormSnapshot | undefined;
  /** Where the forms are read from, as recorded: see {@link sourceOf}. */
  source: string;
  /** The time recorded as `pulledAt` of the forms that changed. @default now */
  now?: Date;
}

/** What `pullForms` made, and what changed since `previous`. */
export interface PullResult {
  snapshot: FormSnapshot;
  /** Keys of the forms new or changed since `previous`, sorted. */
  changed: string[];
  /** Keys of the forms as they were in `previous`, sorted. */
  unchanged: string[];
  /** Keys of `previous` no longer in the snapshot, sorted. */
  dropped: string[];
}

const CONCURRENCY = 4;

/**
 * Reads the forms' metadata and makes the snapshot `claims forms pull` writes.
 * @throws ClaimsValidationError when the request names no form, or two forms share a key.
 * @throws ClaimsError when a form does not exist (404, named) or could not be read, or the
 *   programmes answer cannot be read (`all`); nothing is made then.
 */
export async function pullForms(
  client: ClaimsClientBase,
  request: PullRequest,
  options?: CallOptions,
): Promise<PullResult> {
  const { previous } = request;
  const named = request.forms ?? [];
  if (named.length > 0 && request.all === true) throw usage('name forms or ask for all of them, not both');
  const all = request.all === true || (named.length === 0 && previous?.all === true);
  let queries: readonly IncidentFieldsQuery[] = named;
  if (all) queries = formsOfProgrammes(await client.metadata.programmes(undefined, options));
  else if (named.length === 0) {
    if (previous === undefined)
      throw usage('name the forms to pull (programme, policy type, country), or ask for all of them');
    queries = Object.values(previous.forms);
  }
  const wanted = distinctForms(queries);
  const now = (request.now ?? new Date()).toISOString();
  const pulled = new Map<string, FormSnapshotForm>();
  const changed: string[] = [];
  const unchanged: string[] = [];
  await eachLimited([...wanted], CONCURRENCY, async ([key, query]) => {
    const descriptors = await readForm(client, query, options);
    const kept = previous && Object.hasOwn(previous.forms, key) ? previous.forms[key] : undefined;
    if (
      kept !== undefined &&
      kept.source === request.source &&
      sameDescriptors(kept.descriptors, descriptors)
    ) {
      pulled.set(key, kept);
      unchanged.push(key);
      return;
    }
    const { programmeCode, policyTypeCode } = query;
    const countryCode = query.countryCode.toUpperCase();
    pulled.set(key, {
      programmeCode,
      policyTypeCode,
      countryCode,
      pulledAt: now,
      source: request.source,
      descriptors,
    });
    changed.push(key);
  });
  // Forms in key order, whatever order the look-ups finished in.
  const forms = Object.fromEntries([...pulled].sort(([a], [b]) => byCodeUnits(a, b)));
  const dropped = Object.keys(previous?.forms ?? {}).filter((key) => !wanted.has(key));
  const snapshot: FormSnapshot = { version: FORM_SNAPSHOT_VERSION, ...(all ? { all: true } : {}), forms };
  return {
    snapshot,
    changed: changed.sort(byCodeUnits),
    unchanged: unchanged.sort(byCodeUnits),
    dropped: dropped.sort(byCodeUnits),
  };
}

/**
 * The forms by key, each once. Two different forms with one key (a `/` inside a code makes
 * `A/B` + `C` and `A` + `B/C` meet) cannot both be kept: refused, named.
 */
function distinctForms(queries: readonly IncidentFieldsQuery[]): Map<string, IncidentFieldsQuery> {
  const forms = new Map<string, IncidentFieldsQuery>();
  const issues: ValidationIssue[] = [];
  for (const query of queries) {
    const key = formKey(query);
    const seen = forms.get(key);
    if (seen === undefined) forms.set(key, query);
    else if (seen.programmeCode !== query.programmeCode || seen.policyTypeCode !== query.policyTypeCode)
      issues.push({
        path: 'forms',
        message: `programme ${quote(seen.programmeCode)} with policy type ${quote(seen.policyTypeCode)}, and programme ${quote(query.programmeCode)} with policy type ${quote(query.policyTypeCode)}, both make the key ${quote(key)}; a snapshot cannot hold both`,
      });
  }
  if (issues.length > 0)
    throw new ClaimsValidationError(issues, describeIssues('Cannot pull the forms', issues));
  return forms;
}

async function readForm(
  client: ClaimsClientBase,
  query: IncidentFieldsQuery,
  options: CallOptions | undefined,
) {
  const live = await liveForm(client, query, options);
  if (Array.isArray(live)) return live;
  throw new ClaimsError(
    `Cannot pull the forms: there is no form for programme ${quote(query.programmeCode)}, policy type ${quote(query.policyTypeCode)}, country ${quote(query.countryCode)} (the metadata look-up answered 404); nothing was written`,
    { cause: live, outcome: 'rejected' },
  );
}

function usage(message: string): ClaimsValidationError {
  const issue = { path: 'forms', message };
  return new ClaimsValidationError([issue], describeIssues('Cannot pull the forms', [issue]));
}

/**
 * The API's base address as a snapshot records it: scheme, host, port and path only, so that
 * credentials in a URL (`https://user:secret@…`) or a query never reach the file.
 */
export function sourceOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
