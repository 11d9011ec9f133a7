import { ClaimsValidationError, describeIssues } from '../../../errors.js';
import { collectIssues } from '../../../internal/validate.js';
import { type SandboxFault, type SandboxFaultRule, SandboxFaultRuleSchema } from './fault.js';
import { parseRoute, type RoutePattern, routeMatches } from './route-pattern.js';

/** A queued fault, as `sandbox.faults.pending` lists it. */
export interface SandboxPendingFault {
  /** The route as given, e.g. `'POST /incidents'`. */
  route: string;
  /** What it does. */
  fault: SandboxFault;
  /** How many more matching calls it hits. */
  remaining: number;
}

/** The most rules queued at once: each is small, but a loop adding them must stop somewhere. */
export const MAX_QUEUED_FAULTS = 1_000;

interface Queued extends SandboxPendingFault {
  pattern: RoutePattern;
}

/**
 * Faults to inject, in the order queued: a call takes the first rule that fits its route
 * (one hit off its count). `sandbox.faults`.
 */
export class FaultQueue {
  #rules: Queued[] = [];
  readonly #changed: () => void;

  /** @internal */
  constructor(changed: () => void = () => undefined) {
    this.#changed = changed;
  }

  /**
   * Injects `fault` into the next `times` calls to `route` (after calls already queued for it).
   * @example sandbox.faults.next({ route: 'POST /incidents', fault: { reset: 'after' } });
   * @throws ClaimsValidationError naming every problem (an unknown route lists the known ones).
   */
  next(rule: SandboxFaultRule): void {
    const { issues, values } = collectIssues([['', SandboxFaultRuleSchema, rule]]);
    const parsed = values[0] as SandboxFaultRule | undefined;
    const pattern = parsed ? parseRoute(parsed.route) : undefined;
    if (typeof pattern === 'string') issues.push({ path: 'route', message: pattern });
    if (issues.length === 0 && this.#rules.length >= MAX_QUEUED_FAULTS) {
      issues.push({
        path: 'fault',
        message: `${MAX_QUEUED_FAULTS} faults are queued already: clear() them first`,
      });
    }
    if (issues.length > 0)
      throw new ClaimsValidationError(issues, describeIssues('Invalid sandbox fault', issues));
    const valid = parsed as SandboxFaultRule;
    this.#rules.push({
      route: valid.route.trim(),
      fault: structuredClone(valid.fault),
      remaining: valid.times ?? 1,
      pattern: pattern as RoutePattern,
    });
    this.#changed();
  }

  /** Drops every queued fault. */
  clear(): void {
    this.#rules = [];
    this.#changed();
  }

  /** The faults still queued, first to hit first (copies). */
  get pending(): SandboxPendingFault[] {
    return this.#rules.map(({ route, fault, remaining }) => ({
      route,
      fault: structuredClone(fault),
      remaining,
    }));
  }

  /** @internal The fault for a call, counted off its rule; `undefined` when none fits. */
  take(method: string, template: readonly string[], segments: readonly string[]): SandboxFault | undefined {
    const index = this.#rules.findIndex((r) => routeMatches(r.pattern, method, template, segments));
    if (index < 0) return undefined;
    const rule = this.#rules[index] as Queued;
    rule.remaining--;
    if (rule.remaining === 0) this.#rules.splice(index, 1);
    this.#changed();
    return structuredClone(rule.fault);
  }
}
