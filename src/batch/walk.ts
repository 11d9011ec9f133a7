/**
 * The order a run takes the claims of its input in: each position once. A run walks the input
 * in order and keeps to it while it is alone on its journal; only a run that met another one
 * filing the same batch is moved elsewhere ({@link Walk.jumpTo}), and from there walks on in
 * order, round to the start, over the positions it has not visited yet.
 */
export class Walk {
  readonly #visited: Uint8Array;
  #left: number;
  #next = 0;

  /** @param length how many positions: the claims to take. */
  constructor(readonly length: number) {
    this.#visited = new Uint8Array(length);
    this.#left = length;
  }

  /** The next position not visited yet, from where the walk is, marked visited; `undefined` once none is left. */
  next(): number | undefined {
    if (this.#left === 0) return undefined;
    for (;;) {
      if (this.#next >= this.length) this.#next = 0;
      const at = this.#next++;
      if (this.visit(at)) return at;
    }
  }

  /** Marks a position visited (taken, or settled otherwise); false when it already was. */
  visit(at: number): boolean {
    if (this.#visited[at] === 1) return false;
    this.#visited[at] = 1;
    this.#left--;
    return true;
  }

  /** Whether a position was visited. */
  visited(at: number): boolean {
    return this.#visited[at] === 1;
  }

  /** Goes on from `at` (0 ≤ at < length): the next position taken is the first not visited from there. */
  jumpTo(at: number): void {
    this.#next = at;
  }

  /** The positions not visited, in order, each marked visited now: what a run that stopped did not take. */
  rest(): number[] {
    const rest: number[] = [];
    for (let at = 0; at < this.length; at++) if (this.visit(at)) rest.push(at);
    return rest;
  }
}
