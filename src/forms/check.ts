import type { ClaimsClientBase } from '../client.js';
import type { FormSnapshot } from '../form-snapshot.js';
import { onFirstUse } from '../internal/on-first-use.js';
import type { CallOptions } from '../transport.js';
import type { FormChange } from './changes.js';

/**
 * The diff and the live reads, loaded on first use: code an incident's create never runs, which
 * the main entry's import (a serverless cold start) should not pay for.
 */
const loadComparison = onFirstUse(() => import('./compare-live.js'));

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
  const { compareWithLive } = await loadComparison();
  return compareWithLive(client, snapshot, options);
}
