import { excerpt } from './quote.js';
import type { Redactor } from './redact.js';

/** The message of anything thrown: an `Error`'s `message`, else the value as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The message of a token provider's failure: what failed and why, in the provider's own words
 * (cut and escaped like any outside text: a provider's error may quote a server's answer),
 * so a log line of the message alone says what to fix. The token the 401 `refused`, which the
 * provider may quote, is redacted (by `refused`, its redactor). The provider's error stays the
 * `cause`, redacted by the transport the same way.
 */
export function providerFailure(error: unknown, refresh: boolean, refused: Redactor): string {
  const why = error instanceof Error ? `${error.name}: ${error.message}` : safeString(error);
  return `accessToken provider failed${refresh ? ' after a 401' : ''}: ${excerpt(refused.text(why))}`;
}

/** `String(value)`, or its kind when even that throws (an object with a throwing toString). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `a thrown ${typeof value}`;
  }
}
