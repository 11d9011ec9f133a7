/**
 * Background work of the sandbox (downloads, deliveries): tracked so a test can await it
 * instead of sleeping, and aborted together when the sandbox closes.
 */
export class PendingWork {
  readonly #running = new Set<Promise<unknown>>();
  readonly #controller = new AbortController();

  /** Aborted when the sandbox closes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Tracks a task; its failure is the task's own business (it records it). */
  track(task: Promise<unknown>): void {
    const settled = task.then(
      () => undefined,
      () => undefined,
    );
    this.#running.add(settled);
    void settled.then(() => this.#running.delete(settled));
  }

  /**
   * Resolves once no task is running. Each task is bounded by its own timeout, and a round
   * may start more tasks (a download never does today), so the rounds are bounded too.
   */
  async settled(): Promise<void> {
    for (let round = 0; round < 100 && this.#running.size > 0; round++) {
      await Promise.all([...this.#running]);
    }
  }

  /** Aborts every running task. */
  abort(): void {
    this.#controller.abort();
  }
}
