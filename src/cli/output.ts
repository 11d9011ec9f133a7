import { BatchInputError, describeLineProblem } from '../batch/errors.js';
import { ClaimsApiError, ClaimsValidationError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { EXIT, UsageError } from './exit-codes.js';

/** Prints a command's result: JSON with `--json`, else a short human line and the JSON. */
export function printResult(value: unknown, json: boolean, summary?: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(value ?? null)}\n`);
    return;
  }
  if (summary) process.stdout.write(`${summary}\n`);
  if (value !== undefined) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints an error in words (no stack) and says which exit code it means. */
export function reportError(error: unknown): number {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  if (error instanceof UsageError) {
    write(`claims: ${error.message}`);
    return EXIT.usage;
  }
  if (error instanceof BatchInputError) {
    write(`claims: ${error.problems.length} problem(s) in the input; nothing was sent:`);
    for (const problem of error.problems) write(`  ${describeLineProblem(problem)}`);
    return EXIT.usage;
  }
  if (error instanceof ClaimsValidationError) {
    write(`claims: invalid request, nothing was sent:`);
    for (const issue of error.issues) write(`  ${issue.path ? `${issue.path}: ` : ''}${issue.message}`);
    return EXIT.usage;
  }
  const name = error instanceof Error ? error.name : 'Error';
  const message = errorMessage(error);
  write(`claims: ${name}: ${message}`);
  if (error instanceof ClaimsApiError && error.requestId) write(`  request id: ${error.requestId}`);
  return EXIT.failed;
}
