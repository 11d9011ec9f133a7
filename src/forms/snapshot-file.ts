import { ClaimsValidationError, describeIssues } from '../errors.js';
import { type FormSnapshot, formSnapshotIssues } from '../form-snapshot.js';
import { canonicalSnapshot } from './canonical.js';

/** The default snapshot file of `claims forms pull` and `check`. */
export const DEFAULT_SNAPSHOT_FILE = 'claims-forms.json';

/**
 * The snapshot as `claims-forms.json` holds it: forms sorted by key, keys of every object in
 * one order, two-space indents, a final newline. The same snapshot always gives the same bytes.
 */
export function serializeSnapshot(snapshot: FormSnapshot): string {
  return `${JSON.stringify(canonicalSnapshot(snapshot), null, 2)}\n`;
}

/**
 * A snapshot file's text, parsed and checked.
 * @param where names the file in messages.
 * @throws ClaimsValidationError naming the file and every problem.
 */
export function parseSnapshot(text: string, where: string): FormSnapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const issue = { path: where, message: `is not JSON (${(error as Error).message})` };
    throw new ClaimsValidationError([issue], describeIssues('Invalid form snapshot', [issue]));
  }
  const issues = formSnapshotIssues(value, where);
  if (issues.length > 0)
    throw new ClaimsValidationError(issues, describeIssues('Invalid form snapshot', issues));
  return value as FormSnapshot;
}
