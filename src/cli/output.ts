import { plainText, terminalJson } from '../batch/echo.js';
import { BatchInputError, describeLineProblem, JournalError } from '../batch/errors.js';
import { ClaimsApiError, ClaimsValidationError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { EXIT, UsageError } from './exit-codes.js';

/**
 * Prints a command's result: JSON with `--json` (exact), else a short human line and the JSON
 * (whose strings JSON already escapes, but for the C1 and bidirectional controls a terminal
 * acts on, escaped here too).
 */
export function printResult(value: unknown, json: boolean, summary?: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(value ?? null)}\n`);
    return;
  }
  if (summary) process.stdout.write(`${plainText(summary)}\n`);
  if (value !== undefined) process.stdout.write(`${terminalJson(value)}\n`);
}

/** Prints an error in words (no stack) and says which exit code it means. */
export function reportError(error: unknown): number {
  // Every line escaped: a message may quote a server's answer or a line of the input.
  const write = (line: string) => process.stderr.write(`${plainText(line, 2_000)}\n`);
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
  // A journal path that is no journal file: the operator named the wrong thing.
  if (error instanceof JournalError && (error.code === 'not_found' || error.code === 'not_a_file'))
    return EXIT.usage;
  return EXIT.failed;
}
