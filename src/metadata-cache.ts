import type { IncidentFieldDescriptor, IncidentFieldsQuery } from './schemas/metadata.js';
import type { CallOptions } from './transport.js';

type Fetcher = (query: IncidentFieldsQuery, options?: CallOptions) => Promise<IncidentFieldDescriptor[]>;

interface Entry {
  expiresAt: number;
  value: Promise<IncidentFieldDescriptor[]>;
}

/**
 * Incident form descriptors per (programme, policy type, country), kept for a TTL.
 * Concurrent callers share one look-up; a failed look-up is dropped so the next call retries.
 */
export class MetadataCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly fetcher: Fetcher,
  ) {}

  get(query: IncidentFieldsQuery, options?: CallOptions): Promise<IncidentFieldDescriptor[]> {
    const key = `${query.programmeCode}\u0000${query.policyTypeCode}\u0000${query.countryCode}`;
    const now = Date.now();
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = this.fetcher(query, options);
    const entry = { expiresAt: now + this.ttlMs, value };
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}
