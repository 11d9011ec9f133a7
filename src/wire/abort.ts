/** The platform's `AbortError` for a user's abort, keeping the signal's reason as `cause`. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const error = new DOMException('The operation was aborted', 'AbortError');
  if (reason !== undefined) Object.defineProperty(error, 'cause', { value: reason, configurable: true });
  return error;
}
