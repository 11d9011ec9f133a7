import type { ClaimsClientBase } from '../client.js';
import { ClaimsApiError } from '../errors.js';
import type { IncidentFieldDescriptor, IncidentFieldsQuery } from '../schemas/metadata.js';
import type { CallOptions } from '../transport.js';

/**
 * A form's descriptors as the server gives them now (never from a cache or a snapshot), or
 * the 404 when it says there is no such form. Any other failure is thrown.
 */
export async function liveForm(
  client: ClaimsClientBase,
  query: IncidentFieldsQuery,
  options: CallOptions | undefined,
): Promise<IncidentFieldDescriptor[] | ClaimsApiError> {
  try {
    // The three codes only: a snapshot's form object carries its descriptors too.
    const { programmeCode, policyTypeCode, countryCode } = query;
    return await client.metadata.incidentFields({ programmeCode, policyTypeCode, countryCode }, options);
  } catch (error) {
    if (error instanceof ClaimsApiError && error.status === 404) return error;
    throw error;
  }
}

/**
 * Runs `work` on every item, at most `limit` at once. The first failure rejects, and no item
 * is started after it (those running finish).
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await work(items[next++] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
