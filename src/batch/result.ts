/** A key's state as reported to the user (a `sending` record reads as `unknown`). */
export type ClaimState = 'filed' | 'rejected' | 'unknown' | 'not_sent';

/**
 * What this run did with a claim.
 * - `sent`: sent now; `state` is how it ended (`filed`; `unknown` when no answer said; `not_sent`
 *   when it provably never reached the API), unless refused as below.
 * - `refused`: sent now, and refused for the claim itself (400, 409, 413, 422 and any other
 *   answer that judges the claim): `rejected`, sent again only once its body changes.
 * - `already_filed`: filed by an earlier run (its `incidentId` given); not sent.
 * - `needs_review`: an earlier POST may have filed it (`sending` or `unknown` in the journal);
 *   not sent until resolved (`Journal.resolve`, `claims journal resolve`).
 * - `conflict`: filed earlier with a different body; not sent.
 * - `unchanged_rejection`: refused earlier and its body has not changed; not sent.
 * - `aborted`: not sent because the caller stopped the batch (`signal`, Ctrl-C).
 * - `stopped`: not sent because the batch stopped by itself (the journal could not be
 *   written, the API could not be reached: see `BatchStoppedError`).
 * - `upload_failed`: a `{ file }` attachment could not be uploaded; the claim was not sent.
 * - `taken_elsewhere`: a shared journal says another machine took the key first.
 * - `caller_refused`: sent, and refused for the caller or the route, not the claim (401, 403,
 *   404, 405, a 429 after the last retry; `status` says which), or not sent because the token
 *   provider gave no token: `not_sent`, sent again on the next run.
 */
export type ClaimNote =
  | 'sent'
  | 'refused'
  | 'already_filed'
  | 'needs_review'
  | 'conflict'
  | 'unchanged_rejection'
  | 'aborted'
  | 'stopped'
  | 'upload_failed'
  | 'taken_elsewhere'
  | 'caller_refused';

/** One claim's result: one per input line, in the order they settle. */
export interface ClaimResult {
  /** The claim's own reference, as given in the input: the journal's key. */
  key: string;
  /** 1-based line (or position) of the claim in the input. */
  line: number;
  /** Where the claim stands: `filed`, `rejected`, `unknown` (a claim may exist: review it) or `not_sent`. */
  state: ClaimState;
  /** What this run did with it, e.g. `sent` or `already_filed` (see {@link ClaimNote}). */
  note: ClaimNote;
  /** The incident's id, when `filed` (now or by an earlier run). */
  incidentId?: string;
  /** The request id of the answer that filed it (this run's, or the journal's), when the server sent one. */
  requestId?: string;
  /** HTTP status of a refusal (or of the answer that left the claim `unknown`). */
  status?: number;
  /** The server's answer body for `rejected`. */
  problems?: unknown;
  /** What went wrong or what to do, in words. */
  error?: string;
}

/** Progress of a batch, given to `onProgress` after every settled claim. */
export interface BatchProgress {
  /** Claims settled so far (sent, skipped or not sent). */
  done: number;
  /** Claims in the batch. */
  total: number;
  /** POSTs under way. */
  inFlight: number;
  /** Settled claims by state. */
  counts: Record<ClaimState, number>;
}
