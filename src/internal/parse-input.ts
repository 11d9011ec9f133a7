import { collectIssues, type Schema, throwIfInvalid } from './validate.js';

/**
 * Validates arguments up front when a call does more than one request (metadata check,
 * upload, then create): every issue is reported before anything is sent.
 */
export function parseInput<T>(checks: ReadonlyArray<readonly [string, Schema, unknown]>): T[] {
  const { issues, values } = collectIssues(checks);
  throwIfInvalid(issues);
  return values as T[];
}
