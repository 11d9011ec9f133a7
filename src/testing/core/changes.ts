/** What changed in the sandbox, for the inspector's live view. */
export type SandboxChange =
  | { kind: 'call'; id: number }
  | { kind: 'incident'; id: string }
  | { kind: 'attachment'; id: string }
  | { kind: 'delivery'; id: string }
  | { kind: 'faults' }
  | { kind: 'reset' };

/** Listeners to the sandbox's changes; one listener's failure never reaches the call that changed it. */
export class Changes {
  readonly #listeners = new Set<(change: SandboxChange) => void>();

  /** Calls `listener` on every change until the returned function is called. */
  on(listener: (change: SandboxChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(change: SandboxChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // A view's failure is the view's: the sandbox's own work goes on.
      }
    }
  }
}
