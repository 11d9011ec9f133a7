/** One write waiting for its group: its key, and how to answer it. */
interface Waiting<Item, Answer> {
  key: string;
  item: Item;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/**
 * Writes asked for at the same time, sent as one statement (group commit). PostgreSQL's cost
 * is per statement, not per row: one row alone cost its server ~350 µs of CPU and the driver
 * ~100 µs, sixteen in one statement ~40 µs and ~15 µs a row (measured on this project's
 * 2-vCPU box, bench/batch.ts --latency has the figures). So while one statement is under way,
 * the writes asked for meanwhile wait, and go together in the next: a write alone waits for
 * none, and many at once share a round trip and a commit.
 *
 * A group never holds two writes of one key (the later waits for the next group, so the
 * order of a key's writes is kept), and holds at most `max` writes.
 */
export class WriteGroups<Item, Answer> {
  readonly #waiting: Waiting<Item, Answer>[] = [];
  #running = false;

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
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#waiting.length > 0) {
      const group = this.#nextGroup();
      let answers: Answer[];
      try {
        answers = await this.send(group.map((w) => w.item));
      } catch (error) {
        for (const w of group) w.reject(error);
        continue;
      }
      for (const [i, w] of group.entries()) w.resolve(answers[i] as Answer);
    }
    this.#running = false;
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
