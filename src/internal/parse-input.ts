import type { ZodType } from 'zod';
import { collectIssues, throwIfInvalid } from './validate.js';

/**
 * Validates arguments up front when a call does more than one request (metadata check,
 * upload, then create): every issue is reported before anything is sent.
 */
export function parseInput<T>(checks: ReadonlyArray<readonly [string, ZodType, unknown]>): T[] {
  const { issues, values } = collectIssues(checks);
  throwIfInvalid(issues);
  return values as T[];
}
