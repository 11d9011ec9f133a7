import { ClaimsError, ClaimsValidationError } from '../errors.js';
import { echo } from './echo.js';

/** Why the journal refused: see {@link JournalError}. */
export type JournalErrorCode =
  | 'locked'
  | 'corrupt'
  | 'io'
  | 'not_found'
  | 'not_a_file'
  | 'read_only'
  | 'invalid_store'
  | 'not_resolvable'
  | 'unknown_key'
  | 'changed_elsewhere'
  | 'closed';

/**
 * The submission journal refused:
 * - `locked`: another run holds it (a single-run store);
 * - `corrupt`: its content is not a journal's, or a record does not fit (the message names
 *   the line or record and what is wrong); nothing in it was changed;
 * - `io`: it could not be read or written (the system's error as `cause`, its code such as
 *   `ENOSPC` or `EFBIG` in the message);
 * - `not_found`: opened read-only and there is no journal there;
 * - `not_a_file`: the path is not a regular file with one name (a symlink, a device, a hard link);
 * - `read_only`: a write to a journal opened read-only;
 * - `invalid_store`: a store of yours lacks what the `JournalStore` contract asks;
 * - `not_resolvable`, `unknown_key`: a key cannot be resolved in its state;
 * - `changed_elsewhere`: a shared store: another run changed a key after this run took it
 *   (its lease ran out and a person resolved it meanwhile), so this run's record of it was
 *   not written;
 * - `closed`: used after `close()`.
 */
export class JournalError extends ClaimsError {
  override name = 'JournalError';
  /** Why: see the class. */
  readonly code: JournalErrorCode;

  constructor(
    code: JournalErrorCode,
    message: string,
    options: {
      /** The underlying failure, e.g. the system error for `io`; kept as `cause`. */
      cause?: unknown;
    } = {},
  ) {
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
  /** What is wrong, e.g. `'must be a 2-letter country code'`. */
  message: string;
  /** A machine-readable kind, where one exists (e.g. `not_in_list`). */
  code?: string;
}

/** Some lines of a batch are invalid: the batch was refused before the first claim was sent. */
export class BatchInputError extends ClaimsValidationError {
  override name = 'BatchInputError';
  /** Every bad line's problems, in input order: `line`, `key`, `path`, `message`, `code`. */
  readonly problems: LineProblem[];

  constructor(problems: LineProblem[]) {
    super(
      problems.map((p) => ({ path: `line ${p.line}${p.path ? `: ${p.path}` : ''}`, message: p.message })),
      `Invalid batch, nothing was sent: ${problems.length} problem(s); first: ${describeLineProblem(problems[0] as LineProblem)}`,
    );
    this.problems = problems;
  }
}

/**
 * `line 3 (key "A-3") incident.policyCountry: must be a 2-letter country code`: the key quoted
 * by `echo` (bounded, control characters escaped), as is every value of the input a problem
 * names.
 */
export function describeLineProblem(problem: LineProblem): string {
  const key = problem.key === undefined ? '' : ` (key ${echo(problem.key)})`;
  return `line ${problem.line}${key}${problem.path ? ` ${problem.path}` : ''}: ${problem.message}`;
}

/**
 * Why a batch stopped by itself before every claim was tried:
 * - `journal_failed`: the journal could not be written (a full disk, a file size limit, a
 *   store that failed): no claim may leave without its `sending` record;
 * - `unreachable`: the API could not be reached: connections failed on every attempt of a
 *   claim (or the SDK's token provider could not reach its token endpoint, or was told to come
 *   back later, on every attempt), with no answer from the API in between (see docs/bulk-filing.md);
 * - `journal_unresponsive`: the journal store did not answer within the grace after `signal`
 *   aborted;
 * - `caller_refused`: the API refused the caller (a 401 that persisted after the token provider
 *   was asked again, or a 403), or the token provider failed in a way that waiting does not
 *   mend (the token endpoint refused the credentials, e.g. `invalid_client`; a provider of
 *   yours threw): every claim would get the same answer. The keys refused so are `not_sent`
 *   (note `caller_refused`), sendable on a re-run with good credentials.
 */
export type BatchStopReason = 'journal_failed' | 'unreachable' | 'journal_unresponsive' | 'caller_refused';

/**
 * A claim whose outcome this run knows but whose record the journal could not keep: its
 * journal state stays `sending` (so it is never sent again), and this says how to resolve it
 * without looking anything up.
 */
export interface UnrecordedClaim {
  /** The claim's key. */
  key: string;
  /**
   * What happened to it: `filed` (resolve it as filed, with `incidentId`), `rejected` or
   * `not_sent` (the server did not file it: resolve it as not filed), `unknown` (no usable
   * answer: look it up first).
   */
  state: 'filed' | 'rejected' | 'not_sent' | 'unknown';
  /** For `filed`: the incident's id the server gave (`claims journal resolve --filed`). */
  incidentId?: string;
  /** The request id of the answer, when the server sent one. */
  requestId?: string;
}

/**
 * The batch stopped by itself: thrown by `fileClaims` after it yielded a result for every
 * claim (those not tried are `not_sent`). `reason` says why in a word, `message` in a line,
 * `cause` is the underlying error; `unrecorded` lists the claims whose final record could
 * not be written (their journal state is `sending`, so they are never sent again), with what
 * this run knows of each, so that resolving them needs no looking up.
 */
export class BatchStoppedError extends ClaimsError {
  override name = 'BatchStoppedError';
  /** Why: see {@link BatchStopReason}. */
  readonly reason: BatchStopReason;
  /** Claims whose final record could not be written, in the order they settled. */
  readonly unrecorded: UnrecordedClaim[];

  constructor(
    reason: BatchStopReason,
    message: string,
    options: {
      /** The underlying error (the store's, the connection's); kept as `cause`. */
      cause?: unknown;
      /** Claims whose final record could not be written. @default [] */
      unrecorded?: UnrecordedClaim[];
    } = {},
  ) {
    // ClaimsError leaves `cause` unset when it is undefined.
    super(message, { cause: options.cause });
    this.reason = reason;
    this.unrecorded = options.unrecorded ?? [];
  }
}
