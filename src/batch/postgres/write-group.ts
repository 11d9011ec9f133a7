/** One write waiting for its group: its key, and how to answer it. */
interface Waiting<Item, Answer> {
  key: string;
  item: Item;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/**
 * Writes asked for at about the same time, sent as one statement (group commit), with up to
 * `lanes` statements under way at once. PostgreSQL's cost is per statement, not per row: one
 * row alone cost its server ~350 µs of CPU (half of it planning) and the driver ~100 µs,
 * sixteen in one statement ~40 µs and ~15 µs a row, and each statement waits for its own
 * commit to be flushed (measured on this project's 2-vCPU box; docs/benchmarks.md).
 *
 * So the writes asked for in one turn of the event loop (a claim's final record and the next
 * claim's `sending` record) go together. A write asked for while statements are under way
 * starts the next statement at once while a lane is free, rather than waiting for theirs to
 * commit; once every lane is busy, the writes asked for meanwhile wait and go together in the
 * next free one.
 *
 * A group never holds two writes of one key, and a key's write waits while a group under way
 * holds that key, so a key's writes land in the order asked. A group holds at most `max`.
 */
export class WriteGroups<Item, Answer> {
  readonly #waiting: Waiting<Item, Answer>[] = [];
  /** The keys of the groups under way. */
  readonly #busy = new Set<string>();
  #running = 0;
  #scheduled = false;

  /**
   * @param send writes a group at once, answering each item, in the order given; a failure
   *   fails every write of the group.
   * @param max the most writes in one group.
   * @param lanes the most groups under way at once.
   */
  constructor(
    private readonly send: (items: Item[]) => Promise<Answer[]>,
    private readonly max: number,
    private readonly lanes: number,
  ) {}

  /** Writes `item` with the next group; resolves with its answer once that group is written. */
  write(key: string, item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.#waiting.push({ key, item, resolve, reject });
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: shortcuts only: a start with every lane busy, or a second one in a turn, starts nothing (a group's end starts the next)
      if (this.#scheduled || this.#running >= this.lanes) return;
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

  /** Starts groups while a lane is free and writes wait whose keys no group under way holds. */
  #start(): void {
    while (this.#running < this.lanes) {
      const group = this.#nextGroup();
      if (group.length === 0) return;
      this.#running++;
      for (const w of group) this.#busy.add(w.key);
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
  }

  /** A group is written (or failed): answers its writes, frees its lane and keys, starts the next. */
  #done(group: Waiting<Item, Answer>[], answer: (w: Waiting<Item, Answer>, i: number) => void): void {
    this.#running--;
    for (const [i, w] of group.entries()) {
      this.#busy.delete(w.key);
      answer(w, i);
    }
    this.#start();
  }

  /** Takes the next group off the queue: oldest first, one write per key not under way, at most `max`. */
  #nextGroup(): Waiting<Item, Answer>[] {
    const group: Waiting<Item, Answer>[] = [];
    const keys = new Set<string>();
    const left: Waiting<Item, Answer>[] = [];
    for (const w of this.#waiting) {
      if (group.length < this.max && !keys.has(w.key) && !this.#busy.has(w.key)) {
        keys.add(w.key);
        group.push(w);
      } else left.push(w);
    }
    this.#waiting.length = 0;
    this.#waiting.push(...left);
    return group;
  }
}
