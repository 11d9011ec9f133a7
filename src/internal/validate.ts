import type { ZodType } from 'zod';
import { ClaimsValidationError, type ValidationIssue } from '../errors.js';

/** Formats a zod issue path as `attachments[0].url`. */
export function formatPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** Runs every check and returns all issues at once (not just the first) with the parsed values. */
export function collectIssues(checks: ReadonlyArray<readonly [string, ZodType, unknown]>): {
  issues: ValidationIssue[];
  values: unknown[];
} {
  const issues: ValidationIssue[] = [];
  const values: unknown[] = [];
  for (const [name, schema, value] of checks) {
    const result = schema.safeParse(value);
    if (result.success) {
      values.push(result.data);
      continue;
    }
    values.push(undefined);
    for (const issue of result.error.issues) {
      issues.push({ path: formatPath(name, issue.path), message: issue.message });
    }
  }
  return { issues, values };
}

/** Throws one `ClaimsValidationError` naming every issue, when there are any. */
export function throwIfInvalid(issues: ValidationIssue[]): void {
  if (issues.length > 0) throw new ClaimsValidationError(issues);
}
