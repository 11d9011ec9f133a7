import type { $ZodErrorMap, $ZodIssue, $ZodType, ParseContext, util } from 'zod/v4/core';
import { ClaimsValidationError, type ValidationIssue } from '../errors.js';
import { excerpt } from './quote.js';

/**
 * A zod schema, classic (`zod`) or mini (`zod/mini`, what the SDK's own schemas use): both
 * parse with `safeParse(value, context)`.
 */
export interface Schema<T = unknown> extends $ZodType<T> {
  safeParse(value: unknown, context?: ParseContext<$ZodIssue>): util.SafeParseResult<T>;
}

/**
 * How the SDK's own parses word an issue their schema does not word itself: zod's English
 * messages, set by the schemas module when it loads (zod/mini loads no locale, and the SDK
 * must not set zod's global config, which belongs to the application). Before that no SDK
 * schema exists to parse with.
 */
let sdkMessages: ParseContext<$ZodIssue> = {};

/** Called once by the schemas module with zod's English error map. */
export function useMessages(error: $ZodErrorMap): void {
  sdkMessages = { error };
}

/** Formats a zod issue path as `attachments[0].url`. */
export function formatPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      // A key is a caller's (or a server's) text: cut and escaped like any in a message.
      const name = excerpt(String(key));
      out += out ? `.${name}` : name;
    }
  }
  return out;
}

/**
 * Runs every check and returns all issues at once (not just the first) with the parsed values.
 * `context` defaults to the SDK's English messages; an application's own schema (the webhook
 * receiver's) is parsed with `{}`, i.e. under the application's zod configuration.
 */
export function collectIssues(
  checks: ReadonlyArray<readonly [string, Schema, unknown]>,
  context: ParseContext<$ZodIssue> = sdkMessages,
): {
  issues: ValidationIssue[];
  values: unknown[];
} {
  const issues: ValidationIssue[] = [];
  const values: unknown[] = [];
  for (const [name, schema, value] of checks) {
    const result = schema.safeParse(value, context);
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
