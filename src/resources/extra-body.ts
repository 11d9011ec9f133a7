import type { CallOptions } from '../transport.js';

/** Options of the calls that send a JSON body: the call options, plus `extraBody`. */
export interface BodyCallOptions extends CallOptions {
  /**
   * Fields the API accepts but this SDK does not document (the spec lists only some), merged
   * into the top level of the JSON body after the body was checked. The request types list
   * only documented fields, so a misspelt one does not compile; this is the one way to send
   * another on purpose. A key that is a documented field of the body is refused
   * (`ClaimsValidationError`): give that in the body, where it is checked.
   *
   * @example
   * await client.incidents.create(incident, { extraBody: { brokerReference: 'BR-1182' } });
   */
  extraBody?: Record<string, unknown>;
}

/** The checked body with the caller's undocumented fields added (documented keys were refused in them). */
export function withExtraBody<T extends object>(body: T, extra: Record<string, unknown> | undefined): T {
  return extra === undefined ? body : { ...body, ...extra };
}
