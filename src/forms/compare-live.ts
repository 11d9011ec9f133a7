import type { ClaimsClientBase } from '../client.js';
import { ClaimsValidationError, describeIssues } from '../errors.js';
import { type FormSnapshot, formKey, formSnapshotIssues } from '../form-snapshot.js';
import type { IncidentFieldDescriptor, IncidentFieldsQuery } from '../schemas/metadata.js';
import type { CallOptions } from '../transport.js';
import type { FormChange } from './changes.js';
import { diffForms, type FormsByKey } from './diff.js';
import { eachLimited, liveForm } from './live.js';
import { formsOfProgrammes } from './programmes.js';

/** How many form look-ups run at once. */
const CONCURRENCY = 4;

/** What `checkForms` (check.ts) does, in the module it loads on its first call. */
export async function compareWithLive(
  client: ClaimsClientBase,
  snapshot: FormSnapshot,
  options?: CallOptions,
): Promise<FormChange[]> {
  const issues = formSnapshotIssues(snapshot, 'snapshot');
  if (issues.length > 0)
    throw new ClaimsValidationError(issues, describeIssues('Invalid form snapshot', issues));
  const before: Record<string, readonly IncidentFieldDescriptor[]> = {};
  const wanted = new Map<string, IncidentFieldsQuery>();
  for (const form of Object.values(snapshot.forms)) {
    before[formKey(form)] = form.descriptors;
    wanted.set(formKey(form), form);
  }
  if (snapshot.all === true) {
    for (const query of formsOfProgrammes(await client.metadata.programmes(undefined, options))) {
      const key = formKey(query);
      if (!wanted.has(key)) wanted.set(key, query);
    }
  }
  const after: Record<string, IncidentFieldDescriptor[]> = {};
  await eachLimited([...wanted], CONCURRENCY, async ([key, query]) => {
    const live = await liveForm(client, query, options);
    if (Array.isArray(live)) after[key] = live;
  });
  return diffForms(before, after as FormsByKey);
}
