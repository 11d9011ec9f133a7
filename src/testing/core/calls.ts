import type { SandboxFault } from './faults/fault.js';
import type { SandboxBodyView } from './secrets.js';

/** One call the sandbox answered (or was asked to fail), as `sandbox.calls` lists it. Secrets redacted. */
export interface SandboxCall {
  /** 1, 2, 3… in the order calls arrived; `GET /_sandbox/calls/{id}` answers it. */
  id: number;
  /** When it arrived: an ISO 8601 UTC timestamp. */
  at: string;
  /** The HTTP method, e.g. `'POST'`. */
  method: string;
  /** The operation, e.g. `'POST /incidents/{incidentId}/events'`; method and path as sent for an unknown one. */
  route: string;
  /** The path as sent, e.g. `/incidents/1b9d…/events` (without the query). */
  path: string;
  /**
   * The status the sandbox answered, or would have answered when a fault cut the answer
   * (`reset: 'after'`, `timeout`, `truncate`); `null` when the call was reset before it was handled.
   */
  status: number | null;
  /** True when the sandbox acted on the call (its handler answered 2xx): e.g. an incident exists. */
  processed: boolean;
  /** The fault injected, queued or by chaos. */
  fault?: SandboxFault;
  /** How long the sandbox took, from the request's head to the end of its answer, in ms. */
  ms: number;
  /** What was received, redacted. */
  request: {
    /** The request's headers, names in lower case. */
    headers: Record<string, string>;
    /** The request's body as shown. */
    body: SandboxBodyView;
  };
  /** The answer the sandbox made, redacted (a fault may have kept some or all of it from the client); absent after a reset before the call was handled. */
  response?: {
    /** The answer's headers. */
    headers: Record<string, string>;
    /** The answer's body as shown. */
    body: SandboxBodyView;
  };
}

/** The newest calls, at most `max`; the oldest drop out first. */
export class CallLog {
  readonly #calls = new Map<number, SandboxCall>();
  #nextId = 1;
  /** Calls dropped to keep within the limit. */
  dropped = 0;

  constructor(private readonly max: number) {}

  /** A new call's id. */
  nextId(): number {
    return this.#nextId++;
  }

  add(call: SandboxCall): void {
    this.#calls.set(call.id, call);
    for (const id of this.#calls.keys()) {
      if (this.#calls.size <= this.max) break;
      this.#calls.delete(id);
      this.dropped++;
    }
  }

  get(id: number): SandboxCall | undefined {
    return this.#calls.get(id);
  }

  list(): SandboxCall[] {
    return [...this.#calls.values()];
  }

  /** Empties the log; ids go on counting (a view never mistakes a new call for an old one). */
  clear(): void {
    this.#calls.clear();
    this.dropped = 0;
  }
}
