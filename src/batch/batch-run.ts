import { realpath } from 'node:fs/promises';
import {
  type Attempt,
  attemptOfError,
  type CallLimits,
  type CallState,
  nextStep,
  parseRetryAfter,
} from '../call-policy.js';
import type { ClaimsClientBase as ClaimsClient } from '../client.js';
import { ClaimsApiError, RateLimitError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { hasFileRefs, resolveAttachmentRefs } from '../resources/attachment-refs.js';
import type { AttachmentRefInput } from '../schemas/attachments.js';
import { bodyHash } from './body-hash.js';
import { Channel } from './channel.js';
import { isoNow } from './clock.js';
import { decide } from './decide.js';
import { bounded, echo } from './echo.js';
import { BatchStoppedError, type BatchStopReason, type UnrecordedClaim } from './errors.js';
import { graceAfter, graceText, StoreGaveNoAnswer, withinGrace } from './grace.js';
import type { Journal } from './journal.js';
import { RateGate } from './rate-gate.js';
import type { JournalRecord } from './record.js';
import type { BatchProgress, ClaimNote, ClaimResult, ClaimState } from './result.js';
import {
  isCallerRefusal,
  isConnectionFailure,
  MAX_RECORD_ERROR as MAX_ERROR,
  postClaim,
  recordOfFailure,
  refusesEveryClaim,
  tokenProviderFailure,
} from './send-claim.js';
import type { ValidClaim } from './validate-claims.js';
import { Walk } from './walk.js';

/**
 * The longest pause a `Retry-After` can impose on a batch: 10 minutes. A batch runs unattended
 * for hours, so it waits where a caller of the client (60 s, then it fails) would not; longer
 * than this, an operator should know, and the wait asked is cut to it (`wait_max`) rather than
 * fail the claim.
 */
const MAX_PAUSE_MS = 10 * 60_000;

/**
 * Where a claim's POST stands before its first attempt, for the call policy:
 * - `replayable`: the body is JSON in memory, sent again whole;
 * - `freshResendUsed`, `newTokenUsed`: true, since the client already made those resends inside
 *   the one call (`postClaim` sends with `maxRetries: 0`, which leaves them to the transport),
 *   so the batch never makes them again;
 * - `tokenProvider`: false, for the same reason: a 401 here already had its new token;
 * - `earlierMayHaveActed`: false: the batch resends only what the policy proves unprocessed.
 */
const FIRST_ATTEMPT: CallState = {
  method: 'POST',
  retries: 0,
  replayable: true,
  freshResendUsed: true,
  // Stryker disable next-line BooleanLiteral: the policy resends with a new token only with both a provider and the resend unused: either one false is enough
  newTokenUsed: true,
  // Stryker disable next-line BooleanLiteral: as newTokenUsed above
  tokenProvider: false,
  // Stryker disable next-line BooleanLiteral: it only makes a failed step's outcome 'unknown', and the batch takes the outcome from the error (recordOfFailure), never from the step
  earlierMayHaveActed: false,
};
/** How often a shared store's refusal to `claim` a key is decided on again before it counts as taken elsewhere. */
const CLAIM_ROUNDS = 3;
/**
 * A run that met another one reads a shared journal again only once it has taken this share of
 * its claims since it last read it (and at least 16 claims per unit of concurrency): a read
 * costs the records changed since the last one (a store with `loadChanges`) or every record of
 * the journal (one without), a refused claim one statement, so a batch of any size reads its
 * journal again at most 32 times per run.
 */
const REREAD_SHARE = 32;

/** What a run is given. */
export interface RunOptions {
  concurrency: number;
  maxRetries: number;
  signal: AbortSignal | undefined;
  onProgress: ((progress: BatchProgress) => void) | undefined;
}

interface Queued {
  claim: ValidClaim;
  hash: string;
}

/**
 * One run over a validated batch: the queue, the workers, the shared pause, the progress, and
 * the batch's own stop. Every claim gets exactly one result, whatever stops the run.
 */
/** A worker of the run: what its claims share. */
interface Slot {
  /** Its last claim's final record under way (written while the slot took its next claim). */
  lastRecord: Promise<void> | undefined;
}

export class BatchRun {
  readonly results = new Channel<ClaimResult>();
  /** No new claim is taken once aborted: by the caller's signal, a stop of the run's own, or its end. */
  readonly #stop = new AbortController();
  /** Aborted when the run is stopped before its end (not by its end): the store's grace starts then. */
  readonly #interrupt = new AbortController();
  #finished = false;
  readonly #gate = new RateGate();
  readonly #queue: Queued[] = [];
  /** The order `#queue` is taken in: see {@link Walk} and `#metAnotherRun`. */
  #walk = new Walk(0);
  /** Each queued key's position in `#queue`, for the records read again (made at the first read). */
  #positions: Map<string, number> | undefined;
  /** Claims taken since the journal was last read (a shared store): see {@link REREAD_SHARE}. */
  #takenSinceRead = 0;
  /** The journal being read again, if it is. */
  #reading: Promise<void> | undefined;
  readonly #progress: BatchProgress;
  /** An error that is not a stop of the batch's own (an `onProgress` that threw): thrown at the end. */
  #failure: { error: unknown } | undefined;
  /** Why the batch stopped by itself, first reason only. */
  #stopped: { reason: BatchStopReason; message: string; cause: unknown } | undefined;
  readonly #unrecorded: UnrecordedClaim[] = [];
  /** Answers (any HTTP status) from the API so far: a connection failure with none since the claim's first is no blip. */
  #answers = 0;
  /** Final records being written; the run ends only after they are durable. */
  #recording = 0;
  #allRecorded: (() => void) | undefined;
  /** Rejects the grace (`storeGrace`) after the stop: store calls race it. */
  readonly #grace = graceAfter(this.#interrupt.signal);
  /** The store already failed to answer within the grace: it is not waited for again. */
  #gaveUp = false;
  /**
   * The batch's limits for the call policy: `maxRetries` resends of a claim proven unprocessed
   * (the caller's option: each pauses the whole batch); a `Retry-After` honoured up to
   * {@link MAX_PAUSE_MS}, and a longer one waited for that long (`wait_max`), not failed: an
   * unattended batch would rather wait than leave a claim for the next run.
   */
  readonly #limits: CallLimits;

  constructor(
    private readonly client: ClaimsClient,
    private readonly journal: Journal,
    private readonly claims: ValidClaim[],
    private readonly options: RunOptions,
  ) {
    // Stryker disable next-line StringLiteral: the policy only tests longerWait for 'fail'
    this.#limits = { maxRetries: options.maxRetries, maxRetryAfterMs: MAX_PAUSE_MS, longerWait: 'wait_max' };
    this.#progress = {
      done: 0,
      total: claims.length,
      inFlight: 0,
      counts: { filed: 0, rejected: 0, unknown: 0, not_sent: 0 },
    };
    const signal = options.signal;
    if (signal?.aborted) this.#halt();
    else {
      // Stryker disable next-line BooleanLiteral: `signal` removes the listener once the run stops, which the abort itself does
      signal?.addEventListener('abort', () => this.#halt(), { once: true, signal: this.#stop.signal });
    }
  }

  /** Stops taking new claims: the caller stopped reading (or the run is over). */
  stop(): void {
    if (this.#finished) return;
    this.#halt();
  }

  /** Ends the grace's timer: once the journal is closed. */
  dispose(): void {
    this.#grace.dispose();
  }

  #halt(): void {
    this.#interrupt.abort();
    this.#stop.abort();
  }

  /**
   * Races a journal store's answer against the grace: a call under way when the batch was
   * stopped gets the grace (`storeGrace`) from the stop, one made after it as long from its start,
   * and none once the store already failed to answer in time. A store that never answers
   * cannot keep a stopped batch running; a slow but healthy one is not given up early.
   */
  guard<T>(promise: Promise<T>): Promise<T> {
    if (this.#gaveUp) return Promise.race([promise, Promise.reject(new StoreGaveNoAnswer())]);
    // Stryker disable next-line ConditionalExpression: before the stop, withinGrace would arm its grace at the stop, as #grace does
    if (this.#interrupt.signal.aborted) return withinGrace(promise, this.#interrupt.signal);
    return Promise.race([promise, this.#grace.expired]);
  }

  async run(): Promise<void> {
    try {
      for (const claim of this.claims) {
        const hash = bodyHash(claim.incident);
        const decision = decide(this.journal.get(claim.key), hash);
        if (decision.send) this.#queue.push({ claim, hash });
        else this.#settleSafely(claim, decision.result);
      }
      this.#walk = new Walk(this.#queue.length);
      const workers = Array.from({ length: Math.min(this.options.concurrency, this.#queue.length) }, () =>
        this.#work(),
      );
      await Promise.all(workers);
      await this.#reading;
      if (this.#recording > 0) await new Promise<void>((resolve) => (this.#allRecorded = resolve));
      const [note, error] = this.#stopped
        ? (['stopped', `not sent: the batch stopped (${this.#stopped.reason})`] as const)
        : (['aborted', 'not sent: the batch was stopped'] as const);
      // Safely: an `onProgress` that throws here still leaves every claim its result.
      for (const at of this.#walk.rest())
        this.#settleSafely((this.#queue[at] as Queued).claim, { state: 'not_sent', note, error });
      if (this.#failure) this.results.fail(this.#failure.error);
      else if (this.#stopped) {
        const { reason, message, cause } = this.#stopped;
        this.results.fail(new BatchStoppedError(reason, message, { cause, unrecorded: this.#unrecorded }));
      } else this.results.close();
    } catch (error) {
      this.results.fail(error);
    } finally {
      this.#finished = true;
      this.#stop.abort();
    }
  }

  /** Stops the batch for a reason of its own: no new claim is taken; the ones in flight settle. */
  #stopBatch(reason: BatchStopReason, message: string, cause: unknown): void {
    this.#stopped ??= { reason, message, cause };
    this.#halt();
  }

  /** A journal write that failed (or got no answer): the batch stops, since nothing may leave unrecorded. */
  #journalFailed(error: unknown): void {
    if (error instanceof StoreGaveNoAnswer) {
      this.#gaveUp = true;
      this.#stopBatch(
        'journal_unresponsive',
        `The journal store did not answer within ${graceText()} of the stop; the run ended with what it knew`,
        error,
      );
    } else {
      this.#stopBatch('journal_failed', `The journal could not be written: ${errorMessage(error)}`, error);
    }
  }

  async #work(): Promise<void> {
    const slot: Slot = { lastRecord: undefined };
    while (!this.#stop.signal.aborted) {
      const at = this.#walk.next();
      if (at === undefined) return;
      this.#takenSinceRead++;
      try {
        await this.#file(this.#queue[at] as Queued, slot);
      } catch (error) {
        // Only what is not the journal's nor the network's gets here (an `onProgress` that threw).
        this.#failure ??= { error };
        this.#halt();
      }
    }
  }

  async #file({ claim, hash }: Queued, slot: Slot): Promise<void> {
    const signal = this.#stop.signal;
    const base = () => ({ key: claim.key, bodyHash: hash, at: isoNow() });
    let incident = claim.incident;
    if (hasFileRefs(incident.attachments)) {
      if (!(await this.#gate.ready(signal))) return this.#notTaken(claim);
      try {
        // Some, since some are files.
        const refs = (claim.filesResolved ?? incident).attachments as AttachmentRefInput[];
        if (claim.filesResolved) await checkStillResolved(refs);
        // Uploaded before the `sending` record: a crash here leaves an unused attachment, never a claim.
        const attachments = await resolveAttachmentRefs(refs, this.client.attachments, {}, 'incident');
        incident = { ...incident, attachments };
      } catch (error) {
        const record: JournalRecord = {
          ...base(),
          state: 'not_sent',
          error: bounded(`upload failed: ${errorMessage(error)}`, MAX_ERROR),
        };
        return this.#record(claim, record, 'upload_failed', false);
      }
    }
    this.#readSharedPause();
    if (!this.#gate.isOpen(signal) && !(await this.#gate.ready(signal))) return this.#notTaken(claim);
    if (!(await this.#begin(claim, hash))) return;
    // The slot's last claim's final record, before this claim is sent: usually durable by now
    // (it shared the sync of this `sending` record), and so a worker killed at any moment
    // leaves at most two keys `sending` per slot: the claim it sends and the one before.
    await slot.lastRecord;
    let lastError: unknown;
    let answersAtFirstFailure: number | undefined;
    let note: ClaimNote = 'sent';
    let call: CallState = { ...FIRST_ATTEMPT };
    for (;;) {
      // Checked again right before the POST: a pause set while this claim's `sending` record
      // was being synced holds it too, and so does one another run set (read with that record).
      this.#readSharedPause();
      if (!this.#gate.isOpen(signal) && !(await this.#gate.ready(signal))) {
        // Stopped before sending (again): nothing of this attempt reached the server, and any
        // earlier attempt was provably not processed (a 429 or no connection).
        const stopped: JournalRecord = {
          ...base(),
          state: 'not_sent',
          error:
            lastError === undefined
              ? this.#whyNotSent()
              : `not sent: ${bounded(errorMessage(lastError), MAX_ERROR)}`,
        };
        return this.#record(claim, stopped, this.#stopped ? 'stopped' : 'aborted', true);
      }
      this.#progress.inFlight++;
      let record: JournalRecord;
      try {
        const { incidentId, requestId } = await postClaim(this.client, incident);
        this.#answers++;
        record = { key: claim.key, state: 'filed', bodyHash: hash, at: isoNow(), incidentId };
        if (requestId !== undefined) record.requestId = requestId;
      } catch (error) {
        if (error instanceof ClaimsApiError) this.#answers++;
        const token = tokenProviderFailure(error);
        // A token endpoint out of reach is waited for as the API's own would be.
        const connection = isConnectionFailure(error) || token === 'passing';
        if (connection) answersAtFirstFailure ??= this.#answers;
        // The one call policy decides whether this claim is sent again, and after how long. A
        // token endpoint out of reach is, for it, a connection that could not be opened.
        const attempt: Attempt =
          token === 'passing' ? { kind: 'failure', sent: 'not_connected' } : attemptOfError(error);
        const step = nextStep(attempt, call, this.#limits);
        if (step.next === 'retry') {
          this.#progress.inFlight--;
          this.#gate.pause(step.delayMs);
          // Only the API's own asking is shared: a connection that fails may be this machine's.
          if (error instanceof RateLimitError) this.#pauseAll(step.delayMs);
          call = step.state;
          lastError = error;
          continue;
        }
        // Told to wait, and not sent again (a 503, a 429 after the last retry): the other
        // claims, and every run sharing the journal, wait all the same.
        const asked = askedToWait(error);
        if (asked !== undefined) {
          this.#gate.pause(asked);
          this.#pauseAll(asked);
        }
        // Unreachable only once every attempt allowed failed to connect, none answered meanwhile.
        if (
          connection &&
          answersAtFirstFailure === this.#answers &&
          call.retries >= this.options.maxRetries
        ) {
          this.#unreachable(claim, call.retries + 1, error, token === 'passing');
        }
        if (refusesEveryClaim(error)) this.#callerRefused(error);
        if (token === 'lasting') this.#tokenRefused(error);
        record = recordOfFailure(error, base());
        if (isCallerRefusal(error) || token !== undefined) note = 'caller_refused';
        else if (record.state === 'rejected') note = 'refused';
      }
      this.#progress.inFlight--;
      // The worker takes its next claim at once; this one is reported once its record is durable,
      // so its write shares an fdatasync with the next `sending` records (group commit).
      this.#recording++;
      slot.lastRecord = this.#record(claim, record, note, true).then(() => this.#recorded());
      return;
    }
  }

  /**
   * The API told this run to wait: every run sharing the journal waits too (a store with a
   * shared back-off). Not awaited: this run waits anyway, and a store that cannot keep it
   * (its failure ignored) must not stop the batch.
   */
  #pauseAll(ms: number): void {
    const store = this.journal.store;
    // Stryker disable next-line ConditionalExpression: without it, calling the missing pauseAll throws, which the catch below ignores alike
    if (!store.pauseAll) return;
    try {
      store.pauseAll(ms).catch(() => undefined);
    } catch {
      // A store of yours that throws instead of rejecting: ignored too.
    }
  }

  /** Takes on the back-off another run sharing the journal set, as the store last read it. */
  #readSharedPause(): void {
    // NaN when the store has none (or answers no number): that compares false, as a time past does.
    const until = Number(this.journal.store.pausedUntil?.());
    // Stryker disable next-line EqualityOperator: a back-off that ends right now holds nothing either way
    if (until > Date.now()) this.#gate.pauseUntil(until);
  }

  /**
   * A claim failed to connect on every attempt it was allowed, and no claim got any answer
   * from the API meanwhile: the API cannot be reached, and every other claim would spend the
   * same back-off to find it out. The batch stops.
   */
  #unreachable(claim: ValidClaim, attempts: number, error: unknown, tokenEndpoint: boolean): void {
    const what = tokenEndpoint
      ? `The token endpoint gave no token: ${attempts} attempt(s) to send key ${echo(claim.key)} got none`
      : `The API could not be reached: ${attempts} attempt(s) to send key ${echo(claim.key)} failed to connect`;
    this.#stopBatch(
      'unreachable',
      `${what} (${bounded(errorMessage(error), MAX_ERROR)}), and no claim got an answer from the API meanwhile`,
      error,
    );
  }

  /**
   * The token provider failed in a way that waiting does not mend (the token endpoint refused
   * the credentials, a provider of yours threw): no claim can be sent, so the batch stops at
   * once, as after a 401 that persists. Nothing was sent; every key stays sendable.
   */
  #tokenRefused(error: unknown): void {
    this.#stopBatch(
      'caller_refused',
      `No claim can be sent: ${bounded(errorMessage(error), MAX_ERROR)}; fix the credentials or the token ` +
        'provider and run the batch again (nothing refused so was sent or recorded as rejected)',
      error,
    );
  }

  /**
   * The API refused the caller (401 after the token provider was asked again, or 403): every
   * other claim would get the same answer, so the batch stops at once. The keys refused so and
   * those not yet sent stay sendable: a re-run with a good token files them.
   */
  #callerRefused(error: ClaimsApiError): void {
    this.#stopBatch(
      'caller_refused',
      `The API refused the caller (${error.status}${error.status === 401 ? ', after the token was asked for again' : ''}): ` +
        `${bounded(errorMessage(error), MAX_ERROR)}; fix the token or its permissions and run the batch again (nothing refused so was recorded as rejected)`,
      error,
    );
  }

  /**
   * Writes the claim's `sending` record through the store's conditional write; false when
   * this run must not send it (settled here). A shared store that refuses says what the key
   * is now, and that is decided on again.
   */
  async #begin(claim: ValidClaim, hash: string): Promise<boolean> {
    for (let round = 1; ; round++) {
      const sending: JournalRecord = { key: claim.key, state: 'sending', bodyHash: hash, at: isoNow() };
      let answer: Awaited<ReturnType<Journal['begin']>>;
      try {
        answer = await this.guard(this.journal.begin(sending));
      } catch (error) {
        this.#journalFailed(error);
        // Given up unanswered, the store may still write it: then the key reads `sending`, never sent.
        if (error instanceof StoreGaveNoAnswer) this.#unrecorded.push({ key: claim.key, state: 'not_sent' });
        this.#settle(claim, {
          state: 'not_sent',
          note: 'stopped',
          error: `not sent: its sending record could not be written (${bounded(errorMessage(error), MAX_ERROR)})`,
        });
        return false;
      }
      if (answer.taken) return true;
      this.#metAnotherRun();
      const decision = decide(answer.latest, hash);
      if (!decision.send) {
        this.#settle(claim, decision.result);
        return false;
      }
      if (round >= CLAIM_ROUNDS) {
        this.#settle(claim, {
          state: 'unknown',
          note: 'taken_elsewhere',
          error: 'other runs sharing this journal kept changing this key; not sent',
        });
        return false;
      }
    }
  }

  /**
   * A shared store refused a claim: another run is filing this batch now. Walking on right
   * behind it, this run would ask for each key that run has just taken or settled, each a
   * refused write that waits on the other run's commit, in lock-step with it. So this run goes
   * on from a random point of the input (runs meeting again part again), and, once it has taken
   * its share ({@link REREAD_SHARE}) since it last read the journal, reads the journal again
   * and settles at once every key not taken yet that other runs settled or are sending, as at
   * the start of a run (`decide`). Only the order changes: each key is still asked for, or
   * reported, exactly once, and the store's conditional write alone decides who sends it. A run
   * alone on its journal meets no other and keeps to the input's order.
   */
  #metAnotherRun(): void {
    if (!this.journal.store.shared) return;
    this.#walk.jumpTo(Math.floor(Math.random() * this.#walk.length));
    const every = Math.max(16 * this.options.concurrency, Math.ceil(this.#walk.length / REREAD_SHARE));
    if (this.#reading || this.#takenSinceRead < every) return;
    this.#takenSinceRead = 0;
    this.#reading = this.#readAgain().finally(() => {
      this.#reading = undefined;
    });
  }

  /** Reads the shared journal again: see `#metAnotherRun`. */
  async #readAgain(): Promise<void> {
    this.#positions ??= new Map(this.#queue.map(({ claim }, at) => [claim.key, at]));
    const positions = this.#positions;
    try {
      await this.guard(
        this.journal.reread((record) => {
          const at = positions.get(record.key);
          // Not queued (settled at the start), or already taken: what this run knows stands.
          // Stryker disable next-line BooleanLiteral: taking such a record on changes nothing this run reads again (it never asks the store for that key again)
          if (at === undefined || this.#walk.visited(at)) return false;
          const { claim, hash } = this.#queue[at] as Queued;
          const decision = decide(record, hash);
          if (!decision.send) {
            this.#walk.visit(at);
            this.#settleSafely(claim, decision.result);
          }
          return true;
        }),
      );
    } catch {
      // Nothing depends on it: the keys it did not settle are asked for one by one.
    }
  }

  /**
   * Writes a claim's final record and settles it. When the journal cannot keep it, the
   * claim is still reported as it ended (the key stays `sending` in the journal, for review),
   * a filed one listed in `unrecorded` with its incidentId, and the batch stops.
   */
  #record(claim: ValidClaim, record: JournalRecord, note: ClaimNote, afterSending: boolean): Promise<void> {
    return this.guard(this.journal.write(record)).then(
      () => this.#settleSafely(claim, resultOf(record, note)),
      (error: unknown) => {
        this.#journalFailed(error);
        const result = resultOf(record, note);
        if (afterSending) {
          this.#unrecorded.push({
            key: record.key,
            state: record.state as UnrecordedClaim['state'],
            ...(record.incidentId === undefined ? {} : { incidentId: record.incidentId }),
            ...(record.requestId === undefined ? {} : { requestId: record.requestId }),
          });
          result.error =
            `${result.error ? `${result.error}; ` : ''}its ${record.state} record could not be written: ` +
            `the journal still says sending, so it is not sent again until resolved (${RESOLVE_AS[result.state]})`;
        }
        this.#settleSafely(claim, result);
      },
    );
  }

  #settleSafely(claim: ValidClaim, result: Omit<ClaimResult, 'key' | 'line'>): void {
    try {
      this.#settle(claim, result);
    } catch (error) {
      // An `onProgress` that threw: the batch fails with it, as elsewhere.
      this.#failure ??= { error };
      this.#halt();
    }
  }

  #recorded(): void {
    if (--this.#recording === 0) this.#allRecorded?.();
  }

  #whyNotSent(): string {
    return this.#stopped
      ? `not sent: the batch stopped (${this.#stopped.reason})`
      : 'not sent: the batch was stopped';
  }

  #notTaken(claim: ValidClaim): void {
    this.#settle(claim, {
      state: 'not_sent',
      note: this.#stopped ? 'stopped' : 'aborted',
      error: this.#whyNotSent(),
    });
  }

  #settle(claim: ValidClaim, result: Omit<ClaimResult, 'key' | 'line'>): void {
    const progress = this.#progress;
    progress.done++;
    progress.counts[result.state]++;
    this.results.push({ key: claim.key, line: claim.line, ...result });
    this.options.onProgress?.({ ...progress, counts: { ...progress.counts } });
  }
}

/** How to resolve a key whose final record could not be written, by what this run knows. */
const RESOLVE_AS: Record<ClaimState, string> = {
  filed: 'as filed, with its incidentId',
  rejected: 'as not filed: the server refused it',
  not_sent: 'as not filed: it was not sent',
  unknown: 'look it up first: the server may have filed it',
};

/**
 * The files checked against the files root, checked again right before they are read: a path
 * whose folders were swapped for a symlink since would now lead elsewhere.
 */
async function checkStillResolved(refs: AttachmentRefInput[]): Promise<void> {
  for (const ref of refs) {
    const path = (ref.file as { path?: unknown } | undefined)?.path;
    if (typeof path === 'string' && (await realpath(path)) !== path) {
      throw new Error(
        `${echo(path)} changed since it was checked (it now leads to another file); not uploaded`,
      );
    }
  }
}

/** The wait an answer asked for (`Retry-After`), at most {@link MAX_PAUSE_MS}. */
function askedToWait(error: unknown): number | undefined {
  const asked = error instanceof ClaimsApiError ? parseRetryAfter(error.headers) : undefined;
  return asked === undefined ? undefined : Math.min(asked, MAX_PAUSE_MS);
}

/** A claim's result from its final record (never `sending`: that one is written before the POST). */
function resultOf(record: JournalRecord, note: ClaimNote): Omit<ClaimResult, 'key' | 'line'> {
  // Fields set one by one, not spread: this runs once per claim.
  const result: Omit<ClaimResult, 'key' | 'line'> = { state: record.state as ClaimState, note };
  if (record.incidentId !== undefined) result.incidentId = record.incidentId;
  if (record.requestId !== undefined) result.requestId = record.requestId;
  if (record.status !== undefined) result.status = record.status;
  if (record.problems !== undefined) result.problems = record.problems;
  if (record.error !== undefined) result.error = record.error;
  return result;
}
