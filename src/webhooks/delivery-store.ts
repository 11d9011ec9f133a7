/**
 * Where a receiver records which deliveries it has taken, so a copy of one (the sender may
 * send a delivery again) does not run the handler twice. One key per delivery, derived by
 * `deduplicate.key` from the payload. A key is free, held (a handler is running), or done.
 *
 * `MemoryDeliveryStore` serves one process; a store shared by many processes (a database)
 * implements the same four methods with the same meaning, each one atomic.
 */
export interface DeliveryStore {
  /**
   * Takes `key` for `ttlMs` milliseconds: resolves `true` when the key was free (never seen,
   * released, or its hold or retention ran out) and is now held by this caller, which runs the
   * handler; `false` when it is held or done. Two concurrent claims of one free key: exactly
   * one resolves `true`. The hold ends by itself after `ttlMs` (a process that died while
   * handling), so a later copy is processed.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** Frees a held key (the handler failed): the next copy is processed. A done key stays done. */
  release(key: string): Promise<void>;
  /** Marks the key done: copies are recognised for the store's retention, then forgotten. */
  done(key: string): Promise<void>;
  /**
   * Whether the key is done (within retention). With it a receiver answers a copy of a
   * processed delivery 200, and a copy of one still being handled 409 (try later). A store
   * without it gets 409 for every copy: never a lost delivery, but the sender keeps trying.
   */
  isDone?(key: string): Promise<boolean>;
}
