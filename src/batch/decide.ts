import type { JournalRecord } from './record.js';
import type { ClaimResult } from './result.js';
import { CALLER_REFUSALS } from './send-claim.js';

export type Decision = { send: true } | { send: false; result: Omit<ClaimResult, 'key' | 'line'> };

/**
 * Whether a claim may be sent, from its key's latest journal record and its body's hash. The
 * only place that decides: a claim that may exist on the server is never sent again.
 */
export function decide(previous: JournalRecord | undefined, hash: string): Decision {
  if (previous === undefined || previous.state === 'not_sent') return { send: true };
  switch (previous.state) {
    case 'filed':
      return previous.bodyHash === hash
        ? { send: false, result: { state: 'filed', note: 'already_filed', ...filedFields(previous) } }
        : {
            send: false,
            result: {
              state: 'filed',
              note: 'conflict',
              ...filedFields(previous),
              error: `this key was filed (incidentId ${previous.incidentId}) with a different body; not sent again`,
            },
          };
    case 'rejected':
      // A refusal of the caller or the route recorded as `rejected` by an earlier version (a run
      // with an expired token): it said nothing of the claim, so the claim is sent again.
      if (previous.bodyHash !== hash || CALLER_REFUSALS.has(previous.status as number)) return { send: true };
      return {
        send: false,
        result: {
          state: 'rejected',
          note: 'unchanged_rejection',
          ...(previous.status === undefined ? {} : { status: previous.status }),
          ...(previous.problems === undefined ? {} : { problems: previous.problems }),
          error: `refused earlier${previous.error ? ` (${previous.error})` : ''}; not sent again until its body changes`,
        },
      };
    default:
      if (previous.heldElsewhere === true && previous.state === 'sending') {
        return {
          send: false,
          result: {
            state: 'unknown',
            note: 'taken_elsewhere',
            error: 'another run sharing this journal is sending it',
          },
        };
      }
      // `sending` (the process died with the POST in flight) or `unknown` (no usable answer).
      return {
        send: false,
        result: {
          state: 'unknown',
          note: 'needs_review',
          error:
            `may have been filed (${previous.state === 'sending' ? 'the run stopped while it was being sent' : (previous.error ?? 'no usable answer')}); ` +
            'not sent again until resolved as filed or not filed',
        },
      };
  }
}

function filedFields(record: JournalRecord): Pick<ClaimResult, 'incidentId' | 'requestId'> {
  return {
    ...(record.incidentId === undefined ? {} : { incidentId: record.incidentId }),
    ...(record.requestId === undefined ? {} : { requestId: record.requestId }),
  };
}
