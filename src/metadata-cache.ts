import { abortError } from './errors.js';
import { onAbort } from './internal/abort-fanout.js';
import type { IncidentFieldDescriptor, IncidentFieldsQuery } from './schemas/metadata.js';
import type { CallOptions } from './transport.js';

type Fetcher = (query: IncidentFieldsQuery, options: CallOptions) => Promise<IncidentFieldDescriptor[]>;

interface Entry {
  promise: Promise<IncidentFieldDescriptor[]>;
  /** Set once the look-up succeeded; an entry still in flight never goes stale. */
  expiresAt: number | undefined;
  /** Aborts the shared look-up once every caller waiting for it has given up. */
  controller: AbortController;
  /** Callers still waiting for the look-up in flight. */
  waiters: number;
}

/** How many forms a cache keeps at most, unless told otherwise. */
export const DEFAULT_MAX_ENTRIES = 1_000;

/**
 * Incident form descriptors per (programme, policy type, country), kept for a TTL counted
 * from when the answer arrived, for at most `maxEntries` forms.
 *
 * - Bounded: past `maxEntries` forms, the least recently used one is dropped (a form read
 *   again moves to the back of the line). Expired forms are dropped each time a form is
 *   added, so a cache of many short-lived forms holds only the live ones.
 * - Concurrent callers share one look-up.
 * - A failed look-up is dropped at once, so the next call asks again.
 * - The shared look-up does not run with any caller's `signal`: one caller's abort must not
 *   fail the others. Each caller races its own signal against the shared promise instead,
 *   and when the last waiting caller aborts, the look-up itself is aborted and dropped.
 *   Its other options (`timeoutMs`, `maxRetries`, `headers`) are the first caller's.
 */
export class MetadataCache {
  readonly #entries = new Map<string, Entry>();

  /**
   * @param ttlMs how long a successful answer is reused, in ms; `0` disables reuse (concurrent
   *   callers still share one look-up)
   * @param fetcher asks the server; called with the first caller's options and the cache's own signal
   * @param maxEntries most forms kept (answers and look-ups in flight), at least 1
   */
  constructor(
    private readonly ttlMs: number,
    private readonly fetcher: Fetcher,
    private readonly maxEntries: number = DEFAULT_MAX_ENTRIES,
  ) {}

  /** How many forms are kept (answers and look-ups in flight). */
  get size(): number {
    return this.#entries.size;
  }

  /** The descriptors for `query`, from the cache when fresh, else from one shared look-up. */
  get(query: IncidentFieldsQuery, options: CallOptions = {}): Promise<IncidentFieldDescriptor[]> {
    const { signal, ...shared } = options;
    if (signal?.aborted) return Promise.reject(abortError(signal.reason, 'not_sent'));
    const normalised = normaliseQuery(query);
    const key = cacheKey(normalised);
    const hit = this.#entries.get(key);
    let entry: Entry;
    if (hit && !isStale(hit, Date.now())) {
      // The most recently used goes to the back: the front is the first to go when full.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      entry = hit;
    } else entry = this.#start(key, normalised, shared);
    return this.#wait(key, entry, signal);
  }

  /** Drops every entry; look-ups in flight finish for their callers but are not kept. */
  clear(): void {
    this.#entries.clear();
  }

  #start(key: string, query: IncidentFieldsQuery, options: CallOptions): Entry {
    const controller = new AbortController();
    const promise = this.fetcher(query, { ...options, signal: controller.signal });
    const entry: Entry = { promise, expiresAt: undefined, controller, waiters: 0 };
    this.#entries.delete(key);
    this.#makeRoom();
    this.#entries.set(key, entry);
    promise.then(
      () => {
        entry.expiresAt = Date.now() + this.ttlMs;
      },
      () => this.#drop(key, entry),
    );
    return entry;
  }

  /** The shared promise as seen by one caller: rejected early if that caller's signal aborts. */
  #wait(key: string, entry: Entry, signal: AbortSignal | undefined): Promise<IncidentFieldDescriptor[]> {
    if (entry.expiresAt !== undefined) return entry.promise;
    // Callers without a signal count too: they can never give up, so they keep it alive.
    entry.waiters++;
    if (!signal) return entry.promise;
    return new Promise((resolve, reject) => {
      const abandon = () => {
        entry.waiters--;
        // Nobody else wants this answer: stop the request rather than let it run unobserved.
        // (It has not arrived: its arrival stops this listener, right after setting expiresAt.)
        if (entry.waiters === 0) {
          this.#drop(key, entry);
          entry.controller.abort();
        }
        reject(abortError(signal.reason, 'not_sent'));
      };
      // Through the fan-out: one listener on a signal shared by many calls, not one each.
      const stopListening = onAbort(signal, abandon);
      entry.promise.then(
        (value) => {
          stopListening();
          resolve(value);
        },
        (error: unknown) => {
          stopListening();
          reject(error);
        },
      );
    });
  }

  /**
   * Drops every expired form, then the least recently used ones until one more fits. A look-up
   * in flight that is dropped still answers its callers; it is just not kept.
   */
  #makeRoom(): void {
    const now = Date.now();
    for (const [key, entry] of this.#entries) if (isStale(entry, now)) this.#entries.delete(key);
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < this.maxEntries) break;
      this.#entries.delete(key);
    }
  }

  /** Removes `entry` unless a newer look-up has already replaced it. */
  #drop(key: string, entry: Entry): void {
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
  }
}

function isStale(entry: Entry, now: number): boolean {
  // An entry in flight never goes stale.
  return (entry.expiresAt ?? Number.POSITIVE_INFINITY) <= now;
}

/**
 * Country codes are case-insensitive (`gb` and `GB` are one form), so they are upper-cased,
 * the ISO 3166 spelling, both for the key and for the query sent. Programme and policy type
 * codes are kept as given: the spec does not say the service ignores their case.
 */
function normaliseQuery(query: IncidentFieldsQuery): IncidentFieldsQuery {
  return { ...query, countryCode: query.countryCode.toUpperCase() };
}

function cacheKey(query: IncidentFieldsQuery): string {
  // NUL cannot appear in a code typed by a person, so the parts cannot run into each other.
  return `${query.programmeCode}\u0000${query.policyTypeCode}\u0000${query.countryCode}`;
}
