import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { FormIndex } from '../checks/form-index.js';
import type { ClaimsClientBase as ClaimsClient } from '../client.js';
import { locateExtendedFieldProblems } from '../extended-fields.js';
import { formsOfProgrammes } from '../forms/programmes.js';
import { errorMessage } from '../internal/error-message.js';
import { excerpt } from '../internal/quote.js';
import { collectIssues } from '../internal/validate.js';
import { outcomeOf } from '../outcome.js';
import { describeForm } from '../resources/metadata.js';
import type { AttachmentRefInput } from '../schemas/attachments.js';
import type { IncidentCreate } from '../schemas/incidents.js';
import { schemas } from '../schemas/load.js';
import type { IncidentFieldDescriptor, IncidentFieldsQuery } from '../schemas/metadata.js';
import { echo } from './echo.js';
import type { LineProblem } from './errors.js';

/** One claim of a batch: your own reference and the incident to file. */
export interface ClaimInput {
  /** Your own unique reference of the claim: the journal's key. */
  key: string;
  /** The body `incidents.create` sends: checked, with its extended fields, before any claim is sent. */
  incident: IncidentCreate;
  /** 1-based line in your input, for messages. @default its position in the batch */
  line?: number;
}

/** A claim that passed every check, with its line. */
export interface ValidClaim {
  /** The claim's own reference: the journal's key, unique in the batch. */
  key: string;
  /** The incident body, as given. */
  incident: IncidentCreate;
  /** 1-based line in the input (or position in the batch). */
  line: number;
  /**
   * With `filesRoot`: the incident with each `{ file }` path replaced by the file it names
   * (absolute, symlinks resolved, its stored name kept), which is what is uploaded. `incident`
   * stays as given: its hash is what the journal keeps.
   */
  filesResolved?: IncidentCreate;
}

/** Options of {@link validateClaims}. */
export interface ValidateOptions {
  /**
   * The folder `{ file }` attachments must be in: a relative path is read from it, and a path
   * that leads outside it (`../..`, an absolute path elsewhere, a symlink out of it) is a
   * problem of its line. See `FileClaimsOptions.filesRoot`.
   * @default unset: any readable path, relative to the working directory
   */
  filesRoot?: string;
  /**
   * The folder a relative `{ file }` path is read from, with `filesRoot` (the `claims` CLI:
   * the input file's folder, while `--files-root` may name a wider one).
   * @default filesRoot
   */
  filesRelativeTo?: string;
  /**
   * Also check every line's programme, policy type and country against the programmes
   * metadata (GET `/metadata/programmes`, asked once), with extended fields or not: a form
   * it does not list is a problem of the line (`unknown_programme`, `unknown_policy_type`,
   * `unknown_country`), not a refusal halfway through the batch. Skipped when that look-up
   * fails (an API without it, no connection, no token: the batch then meets the same failure
   * itself) or answers in a shape the SDK does not read (the spec does not describe it). The `claims` CLI sets it, for `--dry-run` and a real run alike.
   * @default false
   */
  checkProgrammes?: boolean;
}

/** How many form look-ups run at once. */
const LOOKUP_CONCURRENCY = 4;

/**
 * Checks every claim of a batch before any is sent: its shape, the incident's schema, its
 * extended fields against the form's metadata (one look-up per form, however many lines use
 * it), that `{ file }` attachments can be read, that no key appears twice, and with
 * `checkProgrammes` its form against the programmes metadata.
 *
 * @returns the valid claims and every problem found (an empty list when all is well).
 * @throws the look-up's own error when a form's metadata could not be fetched (other than a
 *   refusal, which is a problem of the lines naming that form).
 */
export async function validateClaims(
  client: ClaimsClient,
  inputs: Iterable<unknown> | AsyncIterable<unknown>,
  options: ValidateOptions = {},
): Promise<{ claims: ValidClaim[]; problems: LineProblem[] }> {
  const { IncidentCreateSchema } = await schemas();
  const root =
    options.filesRoot === undefined
      ? undefined
      : {
          real: await realRoot(options.filesRoot),
          base: resolve(options.filesRelativeTo ?? options.filesRoot),
        };
  const problems: LineProblem[] = [];
  const claims: ValidClaim[] = [];
  const lineOfKey = new Map<string, number>();
  const forms = new Map<string, { query: IncidentFieldsQuery; claims: ValidClaim[] }>();
  let position = 0;
  for await (const input of inputs) {
    position++;
    const record = (input !== null && typeof input === 'object' ? input : {}) as Record<string, unknown>;
    const line = typeof record.line === 'number' ? record.line : position;
    const key = typeof record.key === 'string' && record.key !== '' ? record.key : undefined;
    const before = problems.length;
    const problem = (path: string, message: string) => problems.push({ line, key, path, message });
    if (key === undefined) problem('key', 'needs a non-empty string key (your own reference of the claim)');
    else if (lineOfKey.has(key)) problem('key', `the same key is on line ${lineOfKey.get(key)}`);
    else lineOfKey.set(key, line);
    if (record.incident === null || typeof record.incident !== 'object') {
      problem('incident', 'needs an incident object');
      continue;
    }
    for (const issue of collectIssues([['incident', IncidentCreateSchema, record.incident]]).issues) {
      problem(issue.path, issue.message);
    }
    const incident = record.incident as IncidentCreate;
    const json = notJson(incident);
    if (json !== undefined) problem('incident', json);
    const filesResolved = await checkFiles(incident, root, problem);
    if (problems.length > before || key === undefined) continue;
    const claim: ValidClaim = filesResolved
      ? { key, incident, line, filesResolved }
      : { key, incident, line };
    claims.push(claim);
  }
  const listed = options.checkProgrammes && claims.length > 0 ? await listedForms(client) : undefined;
  for (const claim of claims) {
    const { incident } = claim;
    const query = {
      programmeCode: incident.programmeCode,
      policyTypeCode: incident.policyTypeCode,
      countryCode: incident.policyCountry,
    };
    const unlisted = listed && notListed(listed, query);
    if (unlisted) {
      problems.push({ line: claim.line, key: claim.key, ...unlisted });
      continue;
    }
    if (incident.extendedFields) {
      const id = JSON.stringify(query);
      const form = forms.get(id) ?? { query, claims: [] };
      form.claims.push(claim);
      forms.set(id, form);
    }
  }
  await forEachLimited([...forms.values()], LOOKUP_CONCURRENCY, async (form) => {
    const descriptors = await lookUp(client, form.query);
    // Indexed once per form, not per claim: a listSource of 1,000,000 values is read once.
    const fields = typeof descriptors === 'string' ? descriptors : new FormIndex(descriptors);
    for (const claim of form.claims) {
      if (typeof fields === 'string') {
        problems.push({ line: claim.line, key: claim.key, path: 'incident', message: fields });
        continue;
      }
      for (const { index, problem } of locateExtendedFieldProblems(
        fields,
        // Stryker disable next-line ArrayDeclaration: a claim is in a form only when it has extendedFields
        claim.incident.extendedFields ?? [],
      )) {
        problems.push({
          line: claim.line,
          key: claim.key,
          path: index === undefined ? 'incident.extendedFields' : `incident.extendedFields[${index}]`,
          message: `${excerpt(problem.identifier)}: ${problem.message}`,
          code: problem.code,
        });
      }
    }
  });
  problems.sort((a, b) => a.line - b.line);
  const bad = new Set(problems.map((p) => p.line));
  return { claims: claims.filter((c) => !bad.has(c.line)), problems };
}

/**
 * Why the incident cannot be sent as JSON (a BigInt, a cycle, a `toJSON` that throws), as the
 * client would refuse it when sending; `undefined` when it can. Found here, it is a problem of
 * its line, before the journal hashes the body or anything is sent.
 */
function notJson(incident: IncidentCreate): string | undefined {
  try {
    JSON.stringify(incident);
    return undefined;
  } catch (error) {
    return `cannot be sent as JSON: ${excerpt(errorMessage(error))}`;
  }
}

/**
 * Every (programme, policy type, country) the programmes metadata lists, or `undefined` when it
 * cannot say: the look-up failed (404: an API without it; 401, 403; no connection; no token),
 * or its answer is not in the shape the SDK reads (the spec does not describe it). A claim naming a form not
 * listed would be refused when sent; checked here for every line, with extended fields or not.
 */
async function listedForms(client: ClaimsClient): Promise<IncidentFieldsQuery[] | undefined> {
  try {
    return formsOfProgrammes(await client.metadata.programmes());
  } catch {
    // Not the lines' fault: the batch meets an unreachable API or a refused token itself.
    return undefined;
  }
}

/** Why a claim's form is not among those listed (`undefined`: it is), naming the first part that is not. */
function notListed(
  listed: IncidentFieldsQuery[],
  query: IncidentFieldsQuery,
): Pick<LineProblem, 'path' | 'message' | 'code'> | undefined {
  const programme = listed.filter((f) => f.programmeCode === query.programmeCode);
  if (programme.length === 0) {
    return {
      path: 'incident.programmeCode',
      message: `${echo(query.programmeCode)} is not a programme the programmes metadata lists`,
      code: 'unknown_programme',
    };
  }
  const type = programme.filter((f) => f.policyTypeCode === query.policyTypeCode);
  if (type.length === 0) {
    return {
      path: 'incident.policyTypeCode',
      message: `${echo(query.policyTypeCode)} is not a policy type of programme ${echo(query.programmeCode)} (it has ${programme
        .map((f) => f.policyTypeCode)
        .filter((t, i, all) => all.indexOf(t) === i)
        .map((t) => echo(t))
        .join(', ')})`,
      code: 'unknown_policy_type',
    };
  }
  if (!type.some((f) => f.countryCode === query.countryCode)) {
    return {
      path: 'incident.policyCountry',
      message: `${echo(query.countryCode)} is not a country of policy type ${echo(query.policyTypeCode)} of programme ${echo(query.programmeCode)} (it has ${type.map((f) => echo(f.countryCode)).join(', ')})`,
      code: 'unknown_country',
    };
  }
  return undefined;
}

/** The form's descriptors, or why the server refused to give them (then the lines are at fault). */
async function lookUp(
  client: ClaimsClient,
  query: IncidentFieldsQuery,
): Promise<IncidentFieldDescriptor[] | string> {
  try {
    return await client.metadata.incidentFields(query);
  } catch (error) {
    if (outcomeOf(error) !== 'rejected') throw error;
    return `the form of ${describeForm(query)} could not be looked up: ${(error as Error).message}`;
  }
}

/** The files root as the file system names it (symlinks resolved), so that paths compare. */
async function realRoot(root: string): Promise<string> {
  try {
    return await realpath(root);
  } catch {
    // A root that does not exist: every path in it will be refused as unreadable.
    return resolve(root);
  }
}

/**
 * A `{ file }` given as a path must be a readable file now, not halfway through the batch;
 * with a files root, inside it. Returns the incident with the paths resolved, with a root.
 */
async function checkFiles(
  incident: IncidentCreate,
  root: { real: string; base: string } | undefined,
  problem: (path: string, message: string) => void,
): Promise<IncidentCreate | undefined> {
  if (!Array.isArray(incident.attachments)) return undefined;
  let resolved: AttachmentRefInput[] | undefined;
  for (const [i, ref] of incident.attachments.entries()) {
    const file: unknown = (ref as { file?: unknown } | null)?.file;
    const given = typeof file === 'string' ? file : (file as { path?: unknown } | undefined)?.path;
    if (typeof given !== 'string') continue;
    const at = `incident.attachments[${i}].file`;
    let path = given;
    if (root !== undefined) {
      const real = await realpath(resolve(root.base, given)).catch((error: NodeJS.ErrnoException) => error);
      if (real instanceof Error) {
        problem(at, `${echo(given)} cannot be read (${real.code})`);
        continue;
      }
      if (!isInside(root.real, real)) {
        problem(
          at,
          `${echo(given)} is outside the folder files are read from (${echo(root.real)}); name another with --files-root`,
        );
        continue;
      }
      path = real;
    }
    try {
      if (!(await stat(path)).isFile()) {
        problem(at, `${echo(given)} is not a file`);
        continue;
      }
    } catch (error) {
      problem(at, `${echo(given)} cannot be read (${(error as NodeJS.ErrnoException).code})`);
      continue;
    }
    if (root !== undefined) {
      resolved ??= [...incident.attachments];
      const upload = typeof file === 'string' ? { path } : { ...(file as object), path };
      resolved[i] = { ...ref, file: { filename: basename(given), ...upload } } as AttachmentRefInput;
    }
  }
  return resolved ? { ...incident, attachments: resolved } : undefined;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
