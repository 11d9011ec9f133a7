import type { ClaimsClientBase as ClaimsClient } from '../client.js';
import { ClaimsApiError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { resolveAttachmentRefs } from '../resources/attachment-refs.js';
import { backoffDelay, parseRetryAfter } from '../retry.js';
import type { IncidentCreate } from '../schemas/incidents.js';
import { bodyHash } from './body-hash.js';
import { Channel } from './channel.js';
import { isoNow } from './clock.js';
import { decide } from './decide.js';
import { BatchInputError } from './errors.js';
import { Journal } from './journal.js';
import { RateGate } from './rate-gate.js';
import type { JournalRecord, JournalState } from './record.js';
import type { BatchProgress, ClaimNote, ClaimResult, ClaimState } from './result.js';
import { isResendable, postClaim, recordOfFailure } from './send-claim.js';
import type { JournalStore } from './store.js';
import { type ClaimInput, type ValidClaim, validateClaims } from './validate-claims.js';

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
   * queued are reported `not_sent` (note `aborted`). The iterator then ends normally.
   */
  signal?: AbortSignal;
  /** Called after every settled claim. */
  onProgress?: (progress: BatchProgress) => void;
  /**
   * How many times one claim is sent again after an answer that proves it was not processed
   * (429, or a connection that could not be opened). Each such answer pauses the whole batch:
   * for the `Retry-After` asked, else an exponential backoff.
   * @default 5
   */
  maxRetries?: number;
}

const DEFAULT_CONCURRENCY = 8;
const DEFAULT_MAX_RETRIES = 5;
/** The longest pause a `Retry-After` can impose on a batch. */
const MAX_PAUSE_MS = 10 * 60_000;

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
  const owned = !(options.journal instanceof Journal);
  const journal = options.journal instanceof Journal ? options.journal : await Journal.open(options.journal);
  try {
    const { claims: valid, problems } = await validateClaims(client, claims);
    if (problems.length > 0) throw new BatchInputError(problems);
    const run = new BatchRun(client, journal, valid, options);
    const running = run.run();
    try {
      yield* run.results;
    } finally {
      // The caller stopped reading (or we are done): in-flight claims still get recorded.
      run.stop();
      await running;
    }
  } finally {
    if (owned) await journal.close();
  }
}

interface Queued {
  claim: ValidClaim;
  hash: string;
}

/** One run over a validated batch: the queue, the workers, the shared pause, the progress. */
class BatchRun {
  readonly results = new Channel<ClaimResult>();
  readonly #stop = new AbortController();
  readonly #gate = new RateGate();
  readonly #queue: Queued[] = [];
  /** The next claim of `#queue` to take (an index: `shift()` on 10,000 claims copies them). */
  #next = 0;
  readonly #progress: BatchProgress;
  readonly #maxRetries: number;
  #failure: { error: unknown } | undefined;
  /** Final records being written; the run ends only after they are durable. */
  #recording = 0;
  #allRecorded: (() => void) | undefined;

  constructor(
    private readonly client: ClaimsClient,
    private readonly journal: Journal,
    private readonly claims: ValidClaim[],
    private readonly options: FileClaimsOptions,
  ) {
    this.#progress = {
      done: 0,
      total: claims.length,
      inFlight: 0,
      counts: { filed: 0, rejected: 0, unknown: 0, not_sent: 0 },
    };
    this.#maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const signal = options.signal;
    if (signal?.aborted) this.#stop.abort();
    else
      signal?.addEventListener('abort', () => this.#stop.abort(), { once: true, signal: this.#stop.signal });
  }

  stop(): void {
    this.#stop.abort();
  }

  async run(): Promise<void> {
    try {
      for (const claim of this.claims) {
        const hash = bodyHash(claim.incident);
        const decision = decide(this.journal.get(claim.key), hash);
        if (decision.send) this.#queue.push({ claim, hash });
        else this.#settle(claim, decision.result);
      }
      const concurrency = Math.max(1, Math.floor(this.options.concurrency ?? DEFAULT_CONCURRENCY));
      const workers = Array.from({ length: Math.min(concurrency, this.#queue.length) }, () => this.#work());
      await Promise.all(workers);
      if (this.#recording > 0) await new Promise<void>((resolve) => (this.#allRecorded = resolve));
      for (const { claim } of this.#queue.splice(this.#next)) {
        this.#settle(claim, { state: 'not_sent', note: 'aborted', error: 'not sent: the batch was stopped' });
      }
      if (this.#failure) this.results.fail(this.#failure.error);
      else this.results.close();
    } catch (error) {
      this.results.fail(error);
    } finally {
      this.#stop.abort();
    }
  }

  async #work(): Promise<void> {
    while (!this.#stop.signal.aborted) {
      const next = this.#queue[this.#next];
      if (!next) return;
      this.#next++;
      try {
        await this.#file(next);
      } catch (error) {
        // The journal could not be written: nothing more may be sent without a record.
        this.#failure ??= { error };
        this.#stop.abort();
      }
    }
  }

  async #file({ claim, hash }: Queued): Promise<void> {
    const signal = this.#stop.signal;
    const base = () => ({ key: claim.key, bodyHash: hash, at: isoNow() });
    let incident = claim.incident;
    if (hasFileRefs(incident)) {
      if (!(await this.#gate.ready(signal))) return this.#aborted(claim);
      try {
        // Uploaded before the `sending` record: a crash here leaves an unused attachment, never a claim.
        const attachments = await resolveAttachmentRefs(
          incident.attachments,
          this.client.attachments,
          {},
          'incident',
        );
        incident = { ...incident, attachments };
      } catch (error) {
        const record: JournalRecord = {
          ...base(),
          state: 'not_sent',
          error: `upload failed: ${errorMessage(error)}`,
        };
        await this.journal.write(record);
        return this.#settle(claim, resultOf(record, 'upload_failed'));
      }
    }
    if (!this.#gate.isOpen(signal) && !(await this.#gate.ready(signal))) return this.#aborted(claim);
    const sending: JournalRecord = { key: claim.key, state: 'sending', bodyHash: hash, at: isoNow() };
    if (!(await this.journal.begin(sending))) {
      return this.#settle(claim, {
        state: 'unknown',
        note: 'taken_elsewhere',
        error: 'another run sharing this journal took this key first',
      });
    }
    let lastError: unknown;
    for (let retry = 0; ; retry++) {
      // Checked again right before the POST: a pause set while this claim's `sending` record
      // was being synced holds it too.
      if (!this.#gate.isOpen(signal) && !(await this.#gate.ready(signal))) {
        // Stopped before sending (again): nothing of this attempt reached the server, and any
        // earlier attempt was provably not processed (a 429 or no connection).
        const stopped: JournalRecord = {
          ...base(),
          state: 'not_sent',
          error:
            lastError === undefined
              ? 'not sent: the batch was stopped'
              : `not sent: ${errorMessage(lastError)}`,
        };
        await this.journal.write(stopped);
        return this.#settle(claim, resultOf(stopped, 'aborted'));
      }
      this.#progress.inFlight++;
      let record: JournalRecord;
      try {
        const { incidentId, requestId } = await postClaim(this.client, incident);
        record = { key: claim.key, state: 'filed', bodyHash: hash, at: isoNow(), incidentId };
        if (requestId !== undefined) record.requestId = requestId;
      } catch (error) {
        if (isResendable(error) && retry < this.#maxRetries) {
          this.#progress.inFlight--;
          this.#gate.pause(pauseFor(error, retry));
          lastError = error;
          continue;
        }
        record = recordOfFailure(error, base());
      }
      this.#progress.inFlight--;
      // The worker takes its next claim at once; this one is reported once its record is durable,
      // so its write shares an fdatasync with the next `sending` records (group commit).
      this.#recording++;
      const failed = (error: unknown) => {
        this.#failure ??= { error };
        this.#stop.abort();
      };
      this.journal
        .write(record)
        .then(() => this.#settle(claim, resultOf(record, 'sent')))
        // A failed write, or an `onProgress` that threw: the batch fails, as elsewhere.
        .then(undefined, failed)
        .then(() => this.#recorded());
      return;
    }
  }

  #recorded(): void {
    if (--this.#recording === 0) this.#allRecorded?.();
  }

  #aborted(claim: ValidClaim): void {
    this.#settle(claim, { state: 'not_sent', note: 'aborted', error: 'not sent: the batch was stopped' });
  }

  #settle(claim: ValidClaim, result: Omit<ClaimResult, 'key' | 'line'>): void {
    const progress = this.#progress;
    progress.done++;
    progress.counts[result.state]++;
    this.results.push({ key: claim.key, line: claim.line, ...result });
    this.options.onProgress?.({ ...progress, counts: { ...progress.counts } });
  }
}

function hasFileRefs(incident: IncidentCreate): boolean {
  return incident.attachments?.some((ref) => ref.file !== undefined) ?? false;
}

function pauseFor(error: unknown, retry: number): number {
  const asked = error instanceof ClaimsApiError ? parseRetryAfter(error.headers) : undefined;
  return Math.min(asked ?? backoffDelay(retry), MAX_PAUSE_MS);
}

const REPORTED: Record<JournalState, ClaimState> = {
  sending: 'unknown',
  filed: 'filed',
  rejected: 'rejected',
  unknown: 'unknown',
  not_sent: 'not_sent',
};

function resultOf(record: JournalRecord, note: ClaimNote): Omit<ClaimResult, 'key' | 'line'> {
  // Fields set one by one, not spread: this runs once per claim.
  const result: Omit<ClaimResult, 'key' | 'line'> = { state: REPORTED[record.state], note };
  if (record.incidentId !== undefined) result.incidentId = record.incidentId;
  if (record.requestId !== undefined) result.requestId = record.requestId;
  if (record.status !== undefined) result.status = record.status;
  if (record.problems !== undefined) result.problems = record.problems;
  if (record.error !== undefined) result.error = record.error;
  return result;
}
