import type { ClaimsClientBase as ClaimsClient } from '../client.js';
import { BatchRun } from './batch-run.js';
import { BatchInputError, BatchStoppedError } from './errors.js';
import { graceText, StoreGaveNoAnswer, withinGrace } from './grace.js';
import { Journal } from './journal.js';
import type { BatchProgress, ClaimResult } from './result.js';
import type { JournalStore } from './store.js';
import { type ClaimInput, validateClaims } from './validate-claims.js';

/** Options of {@link fileClaims}. */
export interface FileClaimsOptions {
  /**
   * The submission journal: a file path (the default file store), a store of yours, or an
   * open {@link Journal} (then it is left open). Required: without it a crash would file
   * claims twice on the next run.
   */
  journal: string | JournalStore | Journal;
  /**
   * How many claims are sent at once.
   * @default 8
   */
  concurrency?: number;
  /**
   * Stops taking new claims: the ones in flight settle and are recorded; the ones still
   * queued are reported `not_sent` (note `aborted`). The iterator then ends normally. A
   * journal store that has not answered a write 5 s after the abort is given up: the run
   * ends with what it knows and throws `BatchStoppedError` (`journal_unresponsive`).
   */
  signal?: AbortSignal;
  /** Called after every settled claim. */
  onProgress?: (progress: BatchProgress) => void;
  /**
   * How many times one claim is sent again after an answer that proves it was not processed
   * (429, or a connection that could not be opened). Each such answer pauses the whole batch:
   * for the `Retry-After` asked, else an exponential backoff. When a claim's every attempt
   * failed to connect and no claim got an answer meanwhile, the API is unreachable and the
   * batch stops (`BatchStoppedError`, `unreachable`).
   * @default 5
   */
  maxRetries?: number;
  /**
   * Where `{ file }` attachments may be read from. When set, a relative path is read from
   * this folder (not the working directory), and a path that leads outside it (`../..`, an
   * absolute path elsewhere, a symlink out of it) refuses its line. The `claims` CLI sets it
   * to the input file's folder (or `--files-root`): an input file from elsewhere cannot make
   * it upload the operator's other files.
   * @default unset: any readable path, relative to the working directory
   */
  filesRoot?: string;
  /**
   * With `filesRoot`: the folder a relative `{ file }` path is read from, when not the root
   * itself (the CLI: the input file's folder, with `--files-root` naming a wider one).
   * @default filesRoot
   */
  filesRelativeTo?: string;
}

const DEFAULT_CONCURRENCY = 8;
const DEFAULT_MAX_RETRIES = 5;

/**
 * Files a batch of claims, each at most once across runs, keeping a durable journal of each
 * key's state. Every line is validated first (schemas, extended fields against metadata,
 * readable `{ file }` paths, unique keys): one bad line refuses the batch with
 * `BatchInputError` before anything is sent. Then:
 *
 * - a key already `filed` is skipped (its `incidentId` reported); filed with another body: `conflict`;
 * - a key `sending` or `unknown` (a claim may exist) is not sent, but reported `needs_review`
 *   until resolved (`Journal.resolve`);
 * - a key `rejected` is sent again only when its body changed; `not_sent` keys are sent.
 *
 * For each claim sent, `sending` is written durably before the POST leaves and the result after.
 *
 * @returns an async iterator of one {@link ClaimResult} per claim, in the order they settle.
 * @throws BatchInputError (before anything is sent) when a line is invalid.
 * @throws BatchStoppedError after the last result, when the batch stopped by itself (the
 *   journal could not be written, the API could not be reached): its `reason`, and the claims
 *   filed whose `filed` record could not be written (`unrecorded`).
 * @example
 * for await (const result of fileClaims(client, claims, { journal: 'night.journal', concurrency: 16 })) {
 *   if (result.state !== 'filed') console.warn(result.key, result.state, result.error);
 * }
 */
export async function* fileClaims(
  client: ClaimsClient,
  claims: Iterable<ClaimInput> | AsyncIterable<ClaimInput>,
  options: FileClaimsOptions,
): AsyncGenerator<ClaimResult, void, undefined> {
  // Validated before the journal is opened: a refused batch leaves no journal behind.
  // It reads filesRoot and filesRelativeTo of them.
  const { claims: valid, problems } = await validateClaims(client, claims, options);
  if (problems.length > 0) throw new BatchInputError(problems);
  const owned = !(options.journal instanceof Journal);
  const journal =
    options.journal instanceof Journal ? options.journal : await openWithin(options.journal, options.signal);
  let run: BatchRun | undefined;
  let ended = false;
  try {
    run = new BatchRun(client, journal, valid, {
      concurrency: Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY)),
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      signal: options.signal,
      onProgress: options.onProgress,
    });
    const running = run.run();
    try {
      yield* run.results;
    } finally {
      // The caller stopped reading (or we are done): in-flight claims still get recorded.
      run.stop();
      await running;
    }
    ended = true;
  } finally {
    if (owned) {
      // After a stop, a store that never answers cannot hold the caller (the grace runs from
      // the stop); a close that fails after the batch already failed does not hide why.
      const closing = run ? run.guard(journal.close()) : withinGrace(journal.close(), options.signal);
      await closing.catch((error: unknown) => {
        if (ended && !(error instanceof StoreGaveNoAnswer)) throw error;
      });
    }
    run?.dispose();
  }
}

/**
 * Opens the journal; when `signal` aborts, a store that has not opened within the grace is
 * given up (and closed if it ever opens).
 */
async function openWithin(where: string | JournalStore, signal: AbortSignal | undefined): Promise<Journal> {
  const opening = Journal.open(where);
  try {
    return await withinGrace(opening, signal);
  } catch (error) {
    if (!(error instanceof StoreGaveNoAnswer)) throw error;
    opening.then((journal) => journal.close()).catch(() => undefined);
    throw new BatchStoppedError(
      'journal_unresponsive',
      `The journal store did not open within ${graceText()} of the abort; nothing was sent`,
      { cause: error },
    );
  }
}
