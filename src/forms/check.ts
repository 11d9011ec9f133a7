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

/**
 * Compares a snapshot (`claims-forms.json`, or a generated module's `snapshot`) with the live
 * metadata and resolves to every change, each marked `breaking` when a claim built from the
 * snapshot may now be refused. `[]` means no change a claim could notice.
 *
 * Each form of the snapshot is read afresh (never from the client's cache or `formSnapshot`);
 * one the server answers 404 for is `form_removed`. When the snapshot was pulled with `--all`,
 * the programmes operation is read too, and a form it lists that the snapshot lacks is
 * `form_added`.
 *
 * @example
 * import snapshot from './claims-forms.json' with { type: 'json' };
 * const changes = await checkForms(client, snapshot as FormSnapshot);
 * for (const c of changes) console.log(c.breaking ? 'BREAKING' : 'compatible', c.form, c.kind, c.identifier);
 * @throws ClaimsValidationError when `snapshot` is not a snapshot (nothing was sent).
 * @throws the look-up's own error (network, 401, 5xx…) when a form could not be read: then
 *   nothing could be compared.
 */
export async function checkForms(
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
