import { type Outcome, setOutcome } from '../outcome.js';
import type { WireSignal } from './types.js';

/**
 * The platform's `AbortError` for a caller's abort, keeping the signal's reason as `cause`.
 * A fresh one per call, never the signal's own reason: calls sharing one signal may each have
 * a different outcome, and the caller's object is not ours to mark.
 */
export function abortError(signal: AbortSignal | WireSignal, outcome: Outcome = 'not_sent'): Error {
  const reason: unknown = signal.reason;
  const error = new DOMException('The operation was aborted', 'AbortError');
  // Stryker disable next-line BooleanLiteral: nothing redefines `cause` afterwards; configurable only as the platform's own is
  if (reason !== undefined) Object.defineProperty(error, 'cause', { value: reason, configurable: true });
  return setOutcome(error, outcome);
}
