/**
 * What the server may have done with a call that failed. The API has no idempotency key and no
 * way to read a claim back, so the error is the only witness: this is what it says.
 *
 * - `'not_sent'`: nothing of the request can have reached the server; it is safe to send again.
 * - `'rejected'`: the server answered 4xx: it refused and did not act.
 * - `'unknown'`: the request was sent and no usable answer came: the server **may have acted**
 *   (a claim may exist). Do not send it again blindly.
 * - `'processed'`: the server answered 2xx: it acted, but the answer is unusable.
 */
export type Outcome = 'not_sent' | 'rejected' | 'unknown' | 'processed';

/**
 * Where the outcome is kept on an error. A registry symbol, not a module-private one, so the
 * ESM and CommonJS builds of the SDK, loaded side by side, read each other's errors.
 */
export const OUTCOME = Symbol.for('claims-notification-sdk.outcome');

/** Said by every `'unknown'` error's message. */
export const MAY_HAVE_BEEN_PROCESSED = 'the request may have been processed';

/**
 * The outcome of anything a call of this SDK rejected with: every `ClaimsError`, and the
 * platform's `AbortError` of a caller's abort. `undefined` for an error that did not come from
 * a call of this SDK.
 *
 * @example
 * try {
 *   await client.incidents.create(claim);
 * } catch (error) {
 *   if (outcomeOf(error) === 'unknown') queueForReview(claim, error); // a claim may exist
 *   else if (outcomeOf(error) === 'not_sent') retryLater(claim);
 *   else throw error;
 * }
 */
export function outcomeOf(error: unknown): Outcome | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const value = (error as { [OUTCOME]?: unknown })[OUTCOME];
  return isOutcome(value) ? value : undefined;
}

function isOutcome(value: unknown): value is Outcome {
  return value === 'not_sent' || value === 'rejected' || value === 'unknown' || value === 'processed';
}

/**
 * Records an outcome on an error the SDK is building (never on a caller's object): where
 * {@link outcomeOf} reads it. Only the error's builder calls it, before anyone can see the error.
 */
export function markOutcome<E extends object>(error: E, outcome: Outcome): E {
  Object.defineProperty(error, OUTCOME, {
    value: outcome,
    configurable: false,
    writable: false,
    enumerable: false,
  });
  return error;
}

/** A message as an error of this outcome says it: an `'unknown'` one says that the request may have been processed. */
export function withOutcomeNote(message: string, outcome: Outcome): string {
  return outcome === 'unknown' && !message.includes(MAY_HAVE_BEEN_PROCESSED)
    ? `${message} (${MAY_HAVE_BEEN_PROCESSED})`
    : message;
}
