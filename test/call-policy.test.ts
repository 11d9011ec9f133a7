import { describe, expect, it } from 'vitest';
import {
  type Attempt,
  attemptOfError,
  attemptOutcome,
  backoffDelay,
  type CallLimits,
  type CallState,
  callOutcome,
  isRetryable,
  nextStep,
  parseRetryAfter,
  recordAttempt,
  type Step,
} from '../src/call-policy.js';
import type { Outcome } from '../src/outcome.js';
import type { Sent } from '../src/wire/failure.js';

type Row = [
  name: string,
  attempt: Attempt,
  state: Partial<CallState>,
  expected: { next: Step['next']; outcome?: Outcome; delayMs?: number; refusedWaitMs?: number },
];

const answer = (status: number, retryAfterMs?: number): Attempt => ({ kind: 'answer', status, retryAfterMs });
const failed = (sent: Sent): Attempt => ({ kind: 'failure', sent });
const GET = { method: 'GET' };
const PATCH = { method: 'PATCH' };
const POST = { method: 'POST' };

/**
 * The call policy, read as its table: what an attempt produced and where the call stands, and
 * what happens next. `random` is 0 (no jitter) and the limits are the client's (2 retries,
 * Retry-After up to 60 s, a longer one refused) unless a row says otherwise.
 */
const ROWS: Row[] = [
  // Stopped, refused, unusable: the call ends whatever the method.
  [
    'stopped before sending',
    { kind: 'stopped', phase: 'not_sent' },
    GET,
    { next: 'fail', outcome: 'not_sent' },
  ],
  ['stopped after sending', { kind: 'stopped', phase: 'unknown' }, GET, { next: 'fail', outcome: 'unknown' }],
  [
    'stopped in a 2xx body',
    { kind: 'stopped', phase: 'processed' },
    POST,
    { next: 'fail', outcome: 'processed' },
  ],
  [
    'stopped before sending, an earlier 503',
    { kind: 'stopped', phase: 'not_sent' },
    { ...GET, earlierMayHaveActed: true },
    { next: 'fail', outcome: 'unknown' },
  ],
  ['refused (client closed)', { kind: 'refused' }, GET, { next: 'fail', outcome: 'not_sent' }],
  [
    'refused, an earlier reset',
    { kind: 'refused' },
    { ...PATCH, earlierMayHaveActed: true },
    { next: 'fail', outcome: 'unknown' },
  ],
  ['an unusable 2xx', { kind: 'unusable' }, GET, { next: 'fail', outcome: 'processed' }],
  [
    'an unusable 2xx, an earlier 503',
    { kind: 'unusable' },
    { ...GET, earlierMayHaveActed: true },
    { next: 'fail', outcome: 'processed' },
  ],
  // A one-shot stream: nothing is sent twice, not even at once.
  [
    'one-shot: dead connection',
    failed('dead_connection'),
    { ...POST, replayable: false },
    { next: 'fail', outcome: 'not_sent' },
  ],
  ['one-shot: 429', answer(429), { ...POST, replayable: false }, { next: 'fail', outcome: 'rejected' }],
  [
    'one-shot: 401 with a provider',
    answer(401),
    { ...POST, replayable: false, tokenProvider: true },
    { next: 'fail', outcome: 'rejected' },
  ],
  // Resends at once, not counted.
  ['dead connection: a fresh one', failed('dead_connection'), POST, { next: 'resend_fresh' }],
  [
    'dead connection, maxRetries used up: still a fresh one',
    failed('dead_connection'),
    { ...POST, retries: 2 },
    { next: 'resend_fresh' },
  ],
  [
    'dead connection again: a retry',
    failed('dead_connection'),
    { ...POST, freshResendUsed: true },
    { next: 'retry', delayMs: 500 },
  ],
  [
    'dead again, maxRetries used up',
    failed('dead_connection'),
    { ...POST, freshResendUsed: true, retries: 2 },
    { next: 'fail', outcome: 'not_sent' },
  ],
  [
    '401 with a provider: a new token',
    answer(401),
    { ...POST, tokenProvider: true },
    { next: 'resend_new_token' },
  ],
  [
    '503 with a provider: a retry, the token kept (only a 401 asks for a new one)',
    answer(503),
    { ...GET, tokenProvider: true },
    { next: 'retry', delayMs: 500 },
  ],
  [
    '401 with a provider, maxRetries used up: still a new token',
    answer(401),
    { ...GET, tokenProvider: true, retries: 2 },
    { next: 'resend_new_token' },
  ],
  [
    '401 again',
    answer(401),
    { ...POST, tokenProvider: true, newTokenUsed: true },
    { next: 'fail', outcome: 'rejected' },
  ],
  ['401 with a static token', answer(401), GET, { next: 'fail', outcome: 'rejected' }],
  // Statuses.
  ...[408, 429, 500, 502, 503, 504].flatMap((status): Row[] => [
    [`GET ${status}`, answer(status), GET, { next: 'retry', delayMs: 500 }],
    [`PATCH ${status}`, answer(status), PATCH, { next: 'retry', delayMs: 500 }],
  ]),
  ['POST 429', answer(429), POST, { next: 'retry', delayMs: 500 }],
  ['POST 408', answer(408), POST, { next: 'fail', outcome: 'rejected' }],
  ...[500, 502, 503, 504].map(
    (status): Row => [`POST ${status}`, answer(status), POST, { next: 'fail', outcome: 'unknown' }],
  ),
  ...[400, 403, 404, 409, 422].map(
    (status): Row => [`GET ${status}`, answer(status), GET, { next: 'fail', outcome: 'rejected' }],
  ),
  ...[301, 304, 501, 505].map(
    (status): Row => [`GET ${status}`, answer(status), GET, { next: 'fail', outcome: 'unknown' }],
  ),
  ['GET 503 on the last retry', answer(503), { ...GET, retries: 2 }, { next: 'fail', outcome: 'unknown' }],
  ['GET 429 on the last retry', answer(429), { ...GET, retries: 2 }, { next: 'fail', outcome: 'rejected' }],
  [
    'GET 404 after an earlier 503',
    answer(404),
    { ...GET, earlierMayHaveActed: true },
    { next: 'fail', outcome: 'unknown' },
  ],
  // Backoff doubles per retry made; Retry-After wins, up to 60 s; longer is refused at once.
  ['the second retry waits 1 s', answer(503), { ...GET, retries: 1 }, { next: 'retry', delayMs: 1000 }],
  ['Retry-After 0', answer(429, 0), POST, { next: 'retry', delayMs: 0 }],
  ['Retry-After 60 s', answer(503, 60_000), GET, { next: 'retry', delayMs: 60_000 }],
  [
    'Retry-After past 60 s',
    answer(429, 60_001),
    POST,
    { next: 'fail', outcome: 'rejected', refusedWaitMs: 60_001 },
  ],
  [
    'Retry-After past 60 s, no retry left anyway',
    answer(429, 90_000),
    { ...POST, retries: 2 },
    { next: 'fail', outcome: 'rejected' },
  ],
  ['Retry-After on an answer not retried', answer(404, 90_000), GET, { next: 'fail', outcome: 'rejected' }],
  // No usable answer: how far the request got.
  ...(['not_connected', 'refused_tls', 'not_written', 'bad_answer', 'maybe'] as const).map(
    (sent): Row => [`GET ${sent}`, failed(sent), GET, { next: 'retry', delayMs: 500 }],
  ),
  ...(['not_connected', 'refused_tls', 'not_written', 'maybe'] as const).map(
    (sent): Row => [`PATCH ${sent}`, failed(sent), PATCH, { next: 'retry', delayMs: 500 }],
  ),
  ['PATCH answered with what is not HTTP', failed('bad_answer'), PATCH, { next: 'fail', outcome: 'unknown' }],
  ['POST never connected', failed('not_connected'), POST, { next: 'retry', delayMs: 500 }],
  ['POST refused_tls', failed('refused_tls'), POST, { next: 'fail', outcome: 'not_sent' }],
  [
    'POST proven unwritten on a live connection',
    failed('not_written'),
    POST,
    { next: 'fail', outcome: 'not_sent' },
  ],
  ['POST answered with what is not HTTP', failed('bad_answer'), POST, { next: 'fail', outcome: 'unknown' }],
  ['POST may have left', failed('maybe'), POST, { next: 'fail', outcome: 'unknown' }],
  // A fetch of yours that resolved no Response would resolve the same again: no method repeats it.
  ...[GET, PATCH, POST].map(
    (state): Row => [
      `${state.method} over a fetch that resolved no Response`,
      failed('not_a_response'),
      state,
      { next: 'fail', outcome: 'unknown' },
    ],
  ),
  [
    'POST never connected, last retry',
    failed('not_connected'),
    { ...POST, retries: 2 },
    { next: 'fail', outcome: 'not_sent' },
  ],
  // A 2xx head, then its body failed: only a GET goes again.
  ['GET body cut', { kind: 'body_failed', stalled: false }, GET, { next: 'retry', delayMs: 500 }],
  ['GET body stalled', { kind: 'body_failed', stalled: true }, GET, { next: 'retry', delayMs: 500 }],
  ['PATCH body cut', { kind: 'body_failed', stalled: false }, PATCH, { next: 'fail', outcome: 'unknown' }],
  [
    'PATCH body stalled',
    { kind: 'body_failed', stalled: true },
    PATCH,
    { next: 'fail', outcome: 'processed' },
  ],
  ['POST body cut', { kind: 'body_failed', stalled: false }, POST, { next: 'fail', outcome: 'unknown' }],
  ['POST body stalled', { kind: 'body_failed', stalled: true }, POST, { next: 'fail', outcome: 'processed' }],
];

const START: CallState = {
  method: 'GET',
  retries: 0,
  replayable: true,
  freshResendUsed: false,
  newTokenUsed: false,
  tokenProvider: false,
  earlierMayHaveActed: false,
};
const CLIENT: CallLimits = { maxRetries: 2, maxRetryAfterMs: 60_000, longerWait: 'fail', random: () => 0 };

describe('nextStep: what follows an attempt', () => {
  it.each(ROWS)('%s', (_name, attempt, state, expected) => {
    const step = nextStep(attempt, { ...START, ...state }, CLIENT);
    expect(step.next).toBe(expected.next);
    if (step.next === 'fail') {
      expect(step.outcome).toBe(expected.outcome);
      expect(step.refusedWaitMs).toBe(expected.refusedWaitMs);
    }
    if (step.next === 'retry') expect(step.delayMs).toBe(expected.delayMs);
  });

  it('a retry counts one more and remembers an attempt that may have been acted on', () => {
    const start = { ...START, method: 'GET' };
    const after503 = nextStep(answer(503), start, CLIENT);
    expect(after503).toMatchObject({ next: 'retry', state: { retries: 1, earlierMayHaveActed: true } });
    const after429 = nextStep(answer(429), start, CLIENT);
    expect(after429).toMatchObject({ next: 'retry', state: { retries: 1, earlierMayHaveActed: false } });
    const afterRefused = nextStep(failed('not_connected'), start, CLIENT);
    expect(afterRefused).toMatchObject({ state: { earlierMayHaveActed: false } });
    const afterStall = nextStep({ kind: 'body_failed', stalled: true }, start, CLIENT);
    expect(afterStall).toMatchObject({ state: { earlierMayHaveActed: true } });
    const afterCut = nextStep({ kind: 'body_failed', stalled: false }, start, CLIENT);
    expect(afterCut).toMatchObject({ state: { earlierMayHaveActed: true } });
    // The earlier flag stays set once set.
    const again = nextStep(answer(429), { ...start, earlierMayHaveActed: true }, CLIENT);
    expect(again).toMatchObject({ state: { earlierMayHaveActed: true } });
  });

  it('a resend at once uses its one chance and counts no retry', () => {
    expect(nextStep(failed('dead_connection'), { ...START, method: 'POST' }, CLIENT)).toEqual({
      next: 'resend_fresh',
      state: { ...START, method: 'POST', freshResendUsed: true },
    });
    expect(nextStep(answer(401), { ...START, tokenProvider: true }, CLIENT)).toEqual({
      next: 'resend_new_token',
      state: { ...START, tokenProvider: true, newTokenUsed: true },
    });
  });

  it('the batch’s limits: a longer Retry-After waits the limit instead of failing', () => {
    const batch: CallLimits = {
      maxRetries: 5,
      maxRetryAfterMs: 600_000,
      longerWait: 'wait_max',
      random: () => 0,
    };
    const post = { ...START, method: 'POST' };
    expect(nextStep(answer(429, 3_600_000), post, batch)).toMatchObject({ next: 'retry', delayMs: 600_000 });
    expect(nextStep(answer(429, 90_000), post, batch)).toMatchObject({ next: 'retry', delayMs: 90_000 });
    expect(nextStep(answer(429), { ...post, retries: 4 }, batch)).toMatchObject({
      next: 'retry',
      delayMs: 8000,
    });
    expect(nextStep(answer(429), { ...post, retries: 5 }, batch)).toMatchObject({ next: 'fail' });
  });

  it('jitter takes up to a quarter off the backoff, from the limits’ random', () => {
    const step = nextStep(answer(503), START, { ...CLIENT, random: () => 0.5 });
    expect(step).toMatchObject({ next: 'retry', delayMs: 437.5 });
  });
});

describe('isRetryable', () => {
  it('a stop, a refusal or an unusable answer never is, whatever the method', () => {
    for (const method of ['GET', 'PATCH', 'POST']) {
      for (const attempt of [
        { kind: 'stopped', phase: 'not_sent' },
        { kind: 'refused' },
        { kind: 'unusable' },
      ] as const) {
        expect(isRetryable(method, attempt)).toBe(false);
      }
    }
  });
});

describe('attemptOutcome and callOutcome', () => {
  it('an attempt’s outcome: what the server may have done with it', () => {
    expect(attemptOutcome(answer(404))).toBe('rejected');
    expect(attemptOutcome(answer(499))).toBe('rejected');
    expect(attemptOutcome(answer(500))).toBe('unknown');
    expect(attemptOutcome(answer(399))).toBe('unknown');
    expect(attemptOutcome(failed('dead_connection'))).toBe('not_sent');
    expect(attemptOutcome(failed('bad_answer'))).toBe('unknown');
    expect(attemptOutcome(failed('not_a_response'))).toBe('unknown');
    expect(attemptOutcome({ kind: 'refused' })).toBe('not_sent');
  });

  it('a call’s outcome: unknown when an earlier attempt may have acted, unless it was processed', () => {
    for (const last of ['not_sent', 'rejected', 'unknown'] as const) {
      expect(callOutcome(last, false)).toBe(last);
      expect(callOutcome(last, true)).toBe('unknown');
    }
    expect(callOutcome('processed', true)).toBe('processed');
  });
});

describe('attemptOfError: what a finished call’s error says of its last attempt', () => {
  it('an error the call recorded', () => {
    const error = recordAttempt(new Error('x'), answer(429, 5));
    expect(attemptOfError(error)).toEqual(answer(429, 5));
  });

  it('anything else is read as refused: never repeated', () => {
    for (const other of [new Error('x'), undefined, null, 'boom', 42]) {
      expect(attemptOfError(other)).toEqual({ kind: 'refused' });
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');

  it('reads seconds, fractions and retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after': '3' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(parseRetryAfter({ 'retry-after': '0' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
  });

  it('treats retry-after-ms 0 as zero, not as absent', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '0', 'retry-after': '9' }, now)).toBe(0);
  });

  it('reads an HTTP date, and a past date as no wait', () => {
    expect(parseRetryAfter({ 'retry-after': 'Sat, 21 Nov 2026 12:00:10 GMT' }, now)).toBe(10_000);
    expect(parseRetryAfter({ 'retry-after': 'Sat, 21 Nov 2026 11:00:00 GMT' }, now)).toBe(0);
  });

  it('reads many digits, fractions of more than one digit and spaces around', () => {
    expect(parseRetryAfter({ 'retry-after': '30' }, now)).toBe(30_000);
    expect(parseRetryAfter({ 'retry-after': '0.25' }, now)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': ' 3 ' }, now)).toBe(3000);
  });

  it('a blank retry-after-ms is no answer (not a wait of 0): Retry-After decides', () => {
    expect(parseRetryAfter({ 'retry-after-ms': ' ', 'retry-after': '9' }, now)).toBe(9000);
    expect(parseRetryAfter({ 'retry-after-ms': '', 'retry-after': '9' }, now)).toBe(9000);
    expect(parseRetryAfter({ 'retry-after-ms': 'soon', 'retry-after': '9' }, now)).toBe(9000);
  });

  it('a number with anything after it is no number of seconds', () => {
    expect(parseRetryAfter({ 'retry-after': '3abc' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '3 s' }, now)).toBeUndefined();
  });

  it('returns undefined for absent or malformed values, so default backoff applies', () => {
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after-ms': '-5' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-1' }, now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('doubles from 0.5 s and caps at 8 s, with up to 25% jitter taken off', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => backoffDelay(n, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(backoffDelay(0, () => 1)).toBe(375);
    expect(backoffDelay(4, () => 0.5)).toBe(7000);
  });
});
