/** One write waiting for its group: its key, and how to answer it. */
interface Waiting<Item, Answer> {
  key: string;
  item: Item;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/**
 * Writes asked for at about the same time, sent as one statement (group commit), one statement
 * under way at a time. PostgreSQL's cost is per statement, not per row: one row alone cost its
 * server ~350 µs of CPU (half of it planning) and the driver ~100 µs, sixteen in one statement
 * ~40 µs and ~15 µs a row, and each statement waits for its own commit to be flushed (measured
 * on this project's 2-vCPU box; docs/benchmarks.md).
 *
 * So the writes asked for in one turn of the event loop (a claim's final record and the next
 * claim's `sending` record) go together, and those asked for while a statement is under way
 * wait and go together in the next. One at a time rather than two: two statements of one
 * worker under way at once share the server's CPU, so both end later; one after the other, the
 * first ends sooner and the second about as late (bench/batch.ts --latency, 2026-11-27,
 * interleaved: 0.909-0.917 of the latency bound at concurrency 4 against 0.849-0.871, four
 * workers 655-680 claims/s against 616-666).
 *
 * A group never holds two writes of one key, so a key's writes land in the order asked. A
 * group holds at most `max`.
 */
export class WriteGroups<Item, Answer> {
  readonly #waiting: Waiting<Item, Answer>[] = [];
  #sending = false;
  #scheduled = false;

  /**
   * @param send writes a group at once, answering each item, in the order given; a failure
   *   fails every write of the group.
   * @param max the most writes in one group.
   */
  constructor(
    private readonly send: (items: Item[]) => Promise<Answer[]>,
    private readonly max: number,
  ) {}

  /** Writes `item` with the next group; resolves with its answer once that group is written. */
  write(key: string, item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.#waiting.push({ key, item, resolve, reject });
      // Stryker disable next-line ConditionalExpression: a shortcut only: a second start in a turn finds nothing to send, or a group under way
      if (this.#scheduled) return;
      // Stryker disable next-line BooleanLiteral: as above
      this.#scheduled = true;
      // The next turn: the writes asked for in this one (a claim's final record, then the next
      // claim's `sending` record, a few promise steps apart) go in the same statement.
      setImmediate(() => {
        this.#scheduled = false;
        this.#start();
      });
    });
  }

  /** Sends the next group, unless one is under way or none waits. */
  #start(): void {
    if (this.#sending) return;
    const group = this.#nextGroup();
    if (group.length === 0) return;
    this.#sending = true;
    let sent: Promise<Answer[]>;
    try {
      sent = this.send(group.map((w) => w.item));
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (answers) => this.#done(group, (w, i) => w.resolve(answers[i] as Answer)),
      (error: unknown) => this.#done(group, (w) => w.reject(error)),
    );
  }

  /** A group is written (or failed): answers its writes, then sends the next. */
  #done(group: Waiting<Item, Answer>[], answer: (w: Waiting<Item, Answer>, i: number) => void): void {
    this.#sending = false;
    for (const [i, w] of group.entries()) answer(w, i);
    this.#start();
  }

  /** Takes the next group off the queue: oldest first, one write per key, at most `max`. */
  #nextGroup(): Waiting<Item, Answer>[] {
    const group: Waiting<Item, Answer>[] = [];
    const keys = new Set<string>();
    const left: Waiting<Item, Answer>[] = [];
    for (const w of this.#waiting) {
      if (group.length < this.max && !keys.has(w.key)) {
        keys.add(w.key);
        group.push(w);
      } else left.push(w);
    }
    this.#waiting.length = 0;
    this.#waiting.push(...left);
    return group;
  }
}
