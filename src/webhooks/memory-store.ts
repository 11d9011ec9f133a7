import { ClaimsValidationError, type ValidationIssue } from '../errors.js';
import type { DeliveryStore } from './delivery-store.js';

/** Options of {@link MemoryDeliveryStore}. */
export interface MemoryDeliveryStoreOptions {
  /**
   * How long a done key is remembered, in milliseconds: a copy that arrives later runs the
   * handler again. Longer than the sender's retries last.
   * @default 86400000 (24 hours)
   */
  retentionMs?: number;
  /**
   * The most keys kept. Past it the oldest done keys are forgotten first (held keys never:
   * their number is bounded by the requests in flight).
   * @default 10000
   */
  maxEntries?: number;
}

interface Entry {
  held: boolean;
  /** When the hold or the retention ends (ms since the epoch). */
  until: number;
}

const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * The default {@link DeliveryStore}: keys in this process's memory, bounded in time
 * (`retentionMs`) and number (`maxEntries`). One process only: receivers on several machines
 * (or a serverless function's instances) need a shared store, such as PostgreSQL.
 */
export class MemoryDeliveryStore implements DeliveryStore {
  readonly #retentionMs: number;
  readonly #maxEntries: number;
  // Insertion order is the order keys were last claimed or done: the oldest come first.
  readonly #entries = new Map<string, Entry>();

  constructor(options: MemoryDeliveryStoreOptions = {}) {
    const issues: ValidationIssue[] = [];
    for (const name of ['retentionMs', 'maxEntries'] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
        issues.push({ path: name, message: 'must be a positive whole number' });
      }
    }
    if (issues.length > 0) throw new ClaimsValidationError(issues);
    this.#retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  /** How many keys are kept now (held and done, expired ones not yet swept included). */
  get size(): number {
    return this.#entries.size;
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    this.#sweep(now);
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.until > now) return false;
    this.#set(key, { held: true, until: now + ttlMs });
    return true;
  }

  async release(key: string): Promise<void> {
    if (this.#entries.get(key)?.held) this.#entries.delete(key);
  }

  async done(key: string): Promise<void> {
    this.#set(key, { held: false, until: Date.now() + this.#retentionMs });
  }

  async isDone(key: string): Promise<boolean> {
    const entry = this.#entries.get(key);
    return entry !== undefined && !entry.held && entry.until > Date.now();
  }

  #set(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size <= this.#maxEntries) return;
    // One key was added, so forgetting one (the oldest done one) restores the bound.
    for (const [oldest, { held }] of this.#entries) {
      if (held) continue;
      this.#entries.delete(oldest);
      return;
    }
  }

  /** Drops expired keys from the front, where the oldest are: cheap, and bounded by what it drops. */
  #sweep(now: number): void {
    for (const [key, { until }] of this.#entries) {
      if (until > now) return;
      this.#entries.delete(key);
    }
  }
}
