import { z } from 'zod';

/**
 * An error answer instead of the call's own. A status of 400-599 answers at once and the
 * call is **not** processed; a 2xx status processes the call, then answers with that status
 * (and `body`, when given, instead of the call's own: e.g. a body the client cannot read).
 */
export interface SandboxStatusFault {
  /** The status to answer with: 200-299 (processed) or 400-599 (not processed), e.g. `503`. */
  status: number;
  /** A `Retry-After` header: seconds (a number), or any text as sent (e.g. an HTTP date). */
  retryAfter?: number | string;
  /**
   * The answer's body: a string is sent as it is (`text/plain`), anything else as JSON.
   * @default `{ "message": "Injected fault: <status>", "code": "injected_fault" }` for 4xx/5xx; the call's own for 2xx
   */
  body?: unknown;
}

/** Processes the call, then waits this long before answering (a slow server). */
export interface SandboxDelayFault {
  /** How long to wait before the answer, in ms (at most 600000). */
  delayMs: number;
}

/**
 * Resets the connection (TCP RST) instead of answering. `before`: the call is read whole but
 * not processed. `after`: it is processed (an incident exists), then the connection is reset.
 */
export interface SandboxResetFault {
  /** Whether the call is processed before the reset. */
  reset: 'before' | 'after';
}

/**
 * Processes the call and never answers: the connection is held open until the client gives
 * up (its `timeoutMs`), at most 10 minutes, or the sandbox closes.
 */
export interface SandboxTimeoutFault {
  /** Always `'after'`: the call is processed first. */
  timeout: 'after';
}

/**
 * Processes the call, sends the head (with the whole body's `Content-Length`) and the first
 * `afterBytes` bytes of the body, then closes the connection. A body no longer than
 * `afterBytes` is sent whole.
 */
export interface SandboxTruncateFault {
  /** Where the body is cut. */
  truncate: {
    /** How many bytes of the body are sent before the connection closes (0: none). */
    afterBytes: number;
  };
}

/** Processes the call, then sends its answer's body `bytes` bytes at a time, every `everyMs`. */
export interface SandboxDripFault {
  /** How the body trickles out. */
  drip: {
    /** Bytes per write (at least 1). */
    bytes: number;
    /** Wait between writes, in ms (1-60000). */
    everyMs: number;
  };
}

/** What a fault does to a call: one of the six kinds. */
export type SandboxFault =
  | SandboxStatusFault
  | SandboxDelayFault
  | SandboxResetFault
  | SandboxTimeoutFault
  | SandboxTruncateFault
  | SandboxDripFault;

/** A fault to inject into the next calls to one route (`sandbox.faults.next(...)`). */
export interface SandboxFaultRule {
  /**
   * The route, as `'METHOD /path'`: a route of the API such as `'POST /incidents'` or
   * `'POST /incidents/{incidentId}/events'` (`{name}` or `:name` matches any value), or a
   * concrete path such as `'POST /incidents/1b9d…/events'` for one incident only.
   */
  route: string;
  /** What happens to the call. */
  fault: SandboxFault;
  /** How many matching calls it hits, one after the other. @default 1 */
  times?: number;
}

/** The longest a fault may make a call wait (delay, hold, drip step): 10 minutes. */
export const MAX_FAULT_WAIT_MS = 600_000;
const MAX_BODY_CHARS = 65_536;
const MAX_TIMES = 10_000;

const int = (min: number, max: number) =>
  z.number().int().min(min, `must be ${min} or more`).max(max, `must be ${max} or less`);

const FaultBody = z.unknown().refine((body) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined || text.length <= MAX_BODY_CHARS;
}, `must be at most ${MAX_BODY_CHARS} characters (as JSON)`);

const StatusFault = z.strictObject({
  status: int(200, 599).refine(
    (status) => status <= 299 || status >= 400,
    'must be 200-299 (processed) or 400-599 (refused)',
  ),
  retryAfter: z
    .union([
      int(0, 86_400),
      z
        .string()
        .max(200, 'must be at most 200 characters')
        .regex(/^[\x20-\x7e]*$/, 'must be printable ASCII'),
    ])
    .optional(),
  body: FaultBody.optional(),
});

const KINDS_IN_WORDS =
  "must be one of { status, retryAfter?, body? }, { delayMs }, { reset: 'before' | 'after' }, { timeout: 'after' }, { truncate: { afterBytes } }, { drip: { bytes, everyMs } }";

/** The sandbox's reading of a fault: exactly one kind, every number bounded. */
export const SandboxFaultSchema = z.union(
  [
    StatusFault,
    z.strictObject({ delayMs: int(0, MAX_FAULT_WAIT_MS) }),
    z.strictObject({ reset: z.enum(['before', 'after']) }),
    z.strictObject({ timeout: z.literal('after') }),
    z.strictObject({ truncate: z.strictObject({ afterBytes: int(0, 10 * 1024 * 1024) }) }),
    z.strictObject({
      drip: z.strictObject({ bytes: int(1, 1024 * 1024), everyMs: int(1, 60_000) }),
    }),
  ],
  { error: KINDS_IN_WORDS },
);

/** A fault rule as read from a caller (library or `POST /_sandbox/faults`). */
export const SandboxFaultRuleSchema = z.strictObject({
  route: z.string().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
  fault: SandboxFaultSchema,
  times: int(1, MAX_TIMES).optional(),
});

/** A fault in words, for the inspector and messages: `503 (Retry-After: 2)`, `reset after`. */
export function describeFault(fault: SandboxFault): string {
  if ('status' in fault) {
    return fault.retryAfter === undefined
      ? `${fault.status}`
      : `${fault.status} (Retry-After: ${fault.retryAfter})`;
  }
  if ('delayMs' in fault) return `delay ${fault.delayMs} ms`;
  if ('reset' in fault) return `reset ${fault.reset}`;
  if ('timeout' in fault) return 'time-out after';
  if ('truncate' in fault) return `cut after ${fault.truncate.afterBytes} bytes`;
  return `drip ${fault.drip.bytes} bytes every ${fault.drip.everyMs} ms`;
}

/** True when the call is processed before the fault acts (everything but an error status and `reset: 'before'`). */
export function processesCall(fault: SandboxFault): boolean {
  if ('status' in fault) return fault.status <= 299;
  if ('reset' in fault) return fault.reset === 'after';
  return true;
}
