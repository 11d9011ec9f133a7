import { ClaimsError, ClaimsValidationError } from '../errors.js';

/** Why the journal refused: see {@link JournalError}. */
export type JournalErrorCode = 'locked' | 'corrupt' | 'io' | 'not_resolvable' | 'unknown_key' | 'closed';

/**
 * The submission journal refused: another run holds its lock (`locked`), a record other than
 * the last is damaged (`corrupt`), the file could not be read or written (`io`, the system's
 * error as `cause`), a key cannot be resolved in its state (`not_resolvable`,
 * `unknown_key`), or it was used after `close()` (`closed`). Nothing was sent.
 */
export class JournalError extends ClaimsError {
  override name = 'JournalError';
  readonly code: JournalErrorCode;

  constructor(code: JournalErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.code = code;
  }
}

/** One bad line of a batch: where it is, which key, which field and what is wrong. */
export interface LineProblem {
  /** 1-based line (or position) in the input. */
  line: number;
  /** The line's key, when it has a usable one. */
  key: string | undefined;
  /** The field, e.g. `incident.extendedFields[2]`; empty for the line as a whole. */
  path: string;
  message: string;
  /** A machine-readable kind, where one exists (e.g. `not_in_list`). */
  code?: string;
}

/** Some lines of a batch are invalid: the batch was refused before the first claim was sent. */
export class BatchInputError extends ClaimsValidationError {
  override name = 'BatchInputError';
  readonly problems: LineProblem[];

  constructor(problems: LineProblem[]) {
    super(
      problems.map((p) => ({ path: `line ${p.line}${p.path ? `: ${p.path}` : ''}`, message: p.message })),
      `Invalid batch, nothing was sent: ${problems.length} problem(s); first: ${describeLineProblem(problems[0] as LineProblem)}`,
    );
    this.problems = problems;
  }
}

/** `line 3 (key "A-3") incident.policyCountry: must be a 2-letter country code` */
export function describeLineProblem(problem: LineProblem): string {
  const key = problem.key === undefined ? '' : ` (key ${JSON.stringify(problem.key)})`;
  return `line ${problem.line}${key}${problem.path ? ` ${problem.path}` : ''}: ${problem.message}`;
}
