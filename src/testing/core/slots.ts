import { SandboxHttpError } from './http.js';

/** Callers waiting for a slot at most; past it a call is answered 429 at once. */
export const MAX_WAITING = 64;

/**
 * Bounds work done at once (uploads read and parsed together): a call takes a slot or waits
 * for one; the release function gives it back.
 */
export class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  /**
   * A slot, once one is free. A call that stops waiting (`signal`) leaves the queue.
   * @throws SandboxHttpError 429 when {@link MAX_WAITING} calls wait already.
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.#free > 0) {
      this.#free--;
      return this.#releaser();
    }
    if (this.#waiting.length >= MAX_WAITING) {
      throw new SandboxHttpError(
        429,
        'too_many_uploads',
        `${MAX_WAITING} uploads wait already: try again shortly`,
        undefined,
        { 'retry-after': '1' },
      );
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      // Called only while waiting: waking removes this listener first.
      const leave = () => {
        this.#waiting.splice(this.#waiting.indexOf(wake), 1);
        reject(new SandboxHttpError(400, 'bad_request', 'The caller went away while its upload waited'));
      };
      this.#waiting.push(wake);
      if (signal?.aborted) leave();
      else signal?.addEventListener('abort', leave);
    });
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}
