import { json } from '../http.js';
import type { SandboxResponse } from '../types.js';
import type { SandboxFault } from './fault.js';

/** A call's answer under a fault, and whether the call was handled at all. */
export interface FaultedAnswer {
  answer: SandboxResponse;
  /** False when the fault answered in the call's place (an error status, `reset: 'before'`): the call did not run. */
  ran: boolean;
  /** How long to wait before the answer goes out (`delayMs`), in ms: the caller waits, once the call is recorded. */
  delayMs: number;
}

/**
 * Runs a call under a fault: an error status or `reset: 'before'` answers in its place; every
 * other fault lets it run, then changes its answer (status and body for a 2xx fault on a 2xx
 * answer), says how long to hold it (`delayMs`), or tells the server in front what to do
 * with the bytes (`network`).
 */
export async function applyFault(
  fault: SandboxFault | undefined,
  run: () => Promise<SandboxResponse>,
): Promise<FaultedAnswer> {
  if (fault && 'status' in fault && fault.status >= 400)
    return { answer: statusAnswer(fault), ran: false, delayMs: 0 };
  if (fault && 'reset' in fault && fault.reset === 'before') {
    return {
      answer: { status: 0, headers: {}, body: undefined, network: { kind: 'reset' } },
      ran: false,
      delayMs: 0,
    };
  }
  const answer = await run();
  if (!fault) return { answer, ran: true, delayMs: 0 };
  if ('status' in fault) return { answer: successAnswer(answer, fault), ran: true, delayMs: 0 };
  if ('delayMs' in fault) return { answer, ran: true, delayMs: fault.delayMs };
  return { answer: { ...answer, network: networkFault(fault) }, ran: true, delayMs: 0 };
}

type NetworkOnly = Exclude<SandboxFault, { status: number } | { delayMs: number }>;

function networkFault(fault: NetworkOnly): NonNullable<SandboxResponse['network']> {
  if ('reset' in fault) return { kind: 'reset' };
  if ('timeout' in fault) return { kind: 'hang' };
  if ('truncate' in fault) return { kind: 'truncate', afterBytes: fault.truncate.afterBytes };
  return { kind: 'drip', bytes: fault.drip.bytes, everyMs: fault.drip.everyMs };
}

/** A status fault's own answer: its body, or the sandbox's error shape saying it was injected. */
function statusAnswer(fault: {
  status: number;
  retryAfter?: number | string;
  body?: unknown;
}): SandboxResponse {
  const headers: Record<string, string> =
    fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
  if (fault.body === undefined) {
    return json(
      fault.status,
      { message: `Injected fault: ${fault.status} (sandbox.faults)`, code: 'injected_fault' },
      headers,
    );
  }
  if (typeof fault.body !== 'string') return json(fault.status, fault.body, headers);
  const text = json(fault.status, undefined, headers);
  return {
    ...text,
    headers: { ...text.headers, 'content-type': 'text/plain; charset=utf-8' },
    body: fault.body,
  };
}

/** A 2xx fault on a 2xx answer: its status (and body, when given); any other answer as it is. */
function successAnswer(
  answer: SandboxResponse,
  fault: { status: number; retryAfter?: number | string; body?: unknown },
): SandboxResponse {
  if (answer.status < 200 || answer.status > 299) return answer;
  if (fault.body !== undefined) return statusAnswer(fault);
  const headers = { ...answer.headers };
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
  return { ...answer, status: fault.status, headers };
}
