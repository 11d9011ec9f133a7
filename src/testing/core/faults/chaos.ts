import { randomInt } from 'node:crypto';
import { ClaimsValidationError, describeIssues } from '../../../errors.js';
import type { SandboxFault } from './fault.js';

/** Random faults in a share of calls, for soak tests (`claims-sandbox --chaos 0.1 --seed N`). */
export interface SandboxChaosOptions {
  /** The share of calls that get a fault, from 0 to 1, e.g. `0.1` for one call in ten. */
  rate: number;
  /**
   * Seeds the random schedule: the same seed and the same calls in the same order give the
   * same faults, so a run can be replayed. @default a random seed (read it from `sandbox.chaos.seed`)
   */
  seed?: number;
}

/** The chaos a sandbox runs with, as `sandbox.chaos` shows it. */
export interface SandboxChaos {
  /** The share of calls that get a fault. */
  readonly rate: number;
  /** The seed in use: pass it again to replay the same schedule. */
  readonly seed: number;
}

/**
 * mulberry32: a small, fast 32-bit PRNG, good enough to spread faults and fully determined
 * by its seed (not for secrets).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The kinds chaos picks from, each equally likely, with parameters drawn from `random`. */
const KINDS: ReadonlyArray<(random: () => number) => SandboxFault> = [
  (random) => ({ status: ([500, 502, 503] as const)[Math.floor(random() * 3)] as number }),
  () => ({ status: 429, retryAfter: 1 }),
  (random) => ({ delayMs: 100 + Math.floor(random() * 1_900) }),
  () => ({ reset: 'before' }),
  () => ({ reset: 'after' }),
  () => ({ timeout: 'after' }),
  (random) => ({ truncate: { afterBytes: Math.floor(random() * 16) } }),
  (random) => ({ drip: { bytes: 1 + Math.floor(random() * 8), everyMs: 10 + Math.floor(random() * 90) } }),
];

/** Draws, per call, whether it gets a fault and which one. */
export class ChaosSchedule implements SandboxChaos {
  readonly rate: number;
  readonly seed: number;
  readonly #random: () => number;

  /** @throws ClaimsValidationError for a rate outside 0-1 or a seed that is not a 32-bit integer. */
  constructor(options: SandboxChaosOptions) {
    const issues = [];
    const { rate, seed = randomInt(2 ** 32 - 1) } = options;
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) {
      issues.push({ path: 'chaos.rate', message: 'must be a number from 0 to 1, e.g. 0.1' });
    }
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
      issues.push({ path: 'chaos.seed', message: 'must be an integer from 0 to 4294967295' });
    }
    if (issues.length > 0)
      throw new ClaimsValidationError(issues, describeIssues('Invalid sandbox chaos', issues));
    this.rate = rate;
    this.seed = seed;
    this.#random = mulberry32(seed);
  }

  /** The next call's fault, or `undefined`. Every call draws alike, hit or not, so a schedule replays. */
  draw(): SandboxFault | undefined {
    const hit = this.#random() < this.rate;
    const kind = KINDS[Math.floor(this.#random() * KINDS.length)] as (random: () => number) => SandboxFault;
    const fault = kind(this.#random);
    return hit ? fault : undefined;
  }
}
