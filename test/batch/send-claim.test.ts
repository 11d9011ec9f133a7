/** One claim's POST and what its failure records: the rules "never twice" rests on. */
import { describe, expect, it } from 'vitest';
import {
  boundedProblems,
  CALLER_REFUSALS,
  isCallerRefusal,
  isConnectionFailure,
  MAX_PROBLEMS,
  MAX_RECORD_ERROR,
  postClaim,
  recordOfFailure,
  refusesEveryClaim,
} from '../../src/batch/send-claim.js';
import type { ClaimsClientBase } from '../../src/client.js';
import {
  ClaimsApiError,
  ClaimsConnectionError,
  ClaimsError,
  InternalServerError,
  RateLimitError,
  UnprocessableEntityError,
} from '../../src/errors.js';

const base = { key: 'K', bodyHash: 'H', at: '2026-11-26T09:00:00.000Z' };
const init = (status: number, body: unknown, requestId?: string) => ({
  status,
  body,
  headers: (requestId === undefined ? {} : { 'x-request-id': requestId }) as Record<string, string>,
  method: 'POST',
  url: 'http://127.0.0.1/incidents',
});
const refused = () => new ClaimsConnectionError('connect ECONNREFUSED', { outcome: 'not_sent' });
const cutOff = () => new ClaimsConnectionError('socket hang up', { outcome: 'unknown' });

describe('postClaim', () => {
  it('sends once, with no retry inside the SDK and no second extended-field check, and gives the id and request id', async () => {
    const calls: unknown[][] = [];
    const client = {
      incidents: {
        create: (...args: unknown[]) => {
          calls.push(args);
          return { withResponse: async () => ({ data: { incidentId: 'INC-1' }, requestId: 'req-1' }) };
        },
      },
    } as unknown as ClaimsClientBase;
    const incident = { policyNumber: 'P' };
    expect(await postClaim(client, incident as never)).toEqual({ incidentId: 'INC-1', requestId: 'req-1' });
    expect(calls).toEqual([[incident, { maxRetries: 0, checkExtendedFields: false }]]);
  });
});

describe('isConnectionFailure', () => {
  it('a connection that could not be opened, and only that, is a connection failure', () => {
    expect(isConnectionFailure(refused())).toBe(true);
    expect(isConnectionFailure(cutOff())).toBe(false);
    expect(isConnectionFailure(new ClaimsError('not sent', { outcome: 'not_sent' }))).toBe(false);
    expect(isConnectionFailure(new Error('ECONNREFUSED'))).toBe(false);
  });
});

describe('isCallerRefusal and refusesEveryClaim: answers that judge the caller or the route', () => {
  const answer = (status: number) => new ClaimsApiError(init(status, { message: 'no' }));

  it('401, 403, 404, 405 and 429 judge the caller or the route; every other status judges the claim', () => {
    expect([...CALLER_REFUSALS].sort()).toEqual([401, 403, 404, 405, 429]);
    for (const status of [401, 403, 404, 405, 429])
      expect(isCallerRefusal(answer(status)), `${status}`).toBe(true);
    for (const status of [400, 402, 406, 409, 413, 422, 500, 503]) {
      expect(isCallerRefusal(answer(status)), `${status}`).toBe(false);
    }
  });

  it('only 401 and 403 refuse every claim (the token); a 404, 405 or 429 is the one call’s', () => {
    expect(refusesEveryClaim(answer(401))).toBe(true);
    expect(refusesEveryClaim(answer(403))).toBe(true);
    for (const status of [400, 404, 405, 429, 500])
      expect(refusesEveryClaim(answer(status)), `${status}`).toBe(false);
  });

  it('an error that is not an answer of the API is neither, whatever status it carries', () => {
    const lookalike = Object.assign(new Error('401 from somewhere else'), { status: 401 });
    for (const error of [
      lookalike,
      refused(),
      new ClaimsError('no', { outcome: 'not_sent' }),
      undefined,
      null,
    ]) {
      expect(isCallerRefusal(error)).toBe(false);
      expect(refusesEveryClaim(error)).toBe(false);
    }
  });
});

describe('boundedProblems', () => {
  it(`keeps a body of up to ${MAX_PROBLEMS} characters of JSON whole, and a longer one as its size and start`, () => {
    const exactly = { m: 'x'.repeat(MAX_PROBLEMS - 8) };
    expect(JSON.stringify(exactly)).toHaveLength(MAX_PROBLEMS);
    expect(boundedProblems(exactly)).toBe(exactly);
    const over = { m: 'é'.repeat(MAX_PROBLEMS) };
    expect(boundedProblems(over)).toEqual({
      truncated: true,
      bytes: Buffer.byteLength(JSON.stringify(over)),
      start: `${JSON.stringify(over).slice(0, 2_047)}…`,
    });
    expect(boundedProblems('t'.repeat(MAX_PROBLEMS + 1))).toEqual({
      truncated: true,
      bytes: MAX_PROBLEMS + 1,
      start: `${'t'.repeat(2_047)}…`,
    });
    expect(boundedProblems('short')).toBe('short');
  });

  it('keeps a string body of exactly the bound whole, and cuts one character more', () => {
    const exactly = 's'.repeat(MAX_PROBLEMS);
    expect(boundedProblems(exactly)).toBe(exactly);
    expect(boundedProblems(`${exactly}s`)).toMatchObject({ truncated: true, bytes: MAX_PROBLEMS + 1 });
  });

  it('no body stays no body', () => {
    expect(boundedProblems(undefined)).toBeUndefined();
  });
});

describe('recordOfFailure', () => {
  it('a 429 that outlasted its retries: not_sent, with its status and request id', () => {
    const error = new RateLimitError(init(429, { message: 'slow down' }, 'req-429'));
    expect(recordOfFailure(error, base)).toStrictEqual({
      ...base,
      requestId: 'req-429',
      status: 429,
      state: 'not_sent',
      error: error.message,
    });
  });

  it('a refusal: rejected, with its status, request id and body as problems', () => {
    const error = new UnprocessableEntityError(init(422, { errors: ['policyNumber'] }, 'req-422'));
    expect(recordOfFailure(error, base)).toStrictEqual({
      ...base,
      requestId: 'req-422',
      status: 422,
      state: 'rejected',
      problems: { errors: ['policyNumber'] },
      error: error.message,
    });
  });

  it('a refusal that is not an answer of the API: rejected, with no status, request id or problems', () => {
    const record = recordOfFailure(new ClaimsError('refused', { outcome: 'rejected' }), base);
    expect(record).toEqual({ ...base, state: 'rejected', error: 'refused' });
    expect(Object.keys(record)).not.toContain('requestId');
    expect(Object.keys(record)).not.toContain('status');
  });

  it('a connection never opened: not_sent, no status', () => {
    expect(recordOfFailure(refused(), base)).toStrictEqual({
      ...base,
      state: 'not_sent',
      error: 'connect ECONNREFUSED',
    });
  });

  it('a 5xx, a connection cut after sending, anything else: unknown (the claim may exist)', () => {
    const error = new InternalServerError(init(503, 'busy'));
    expect(recordOfFailure(error, base)).toStrictEqual({
      ...base,
      status: 503,
      state: 'unknown',
      error: error.message,
    });
    const cut = cutOff();
    expect(recordOfFailure(cut, base)).toStrictEqual({ ...base, state: 'unknown', error: cut.message });
    expect(cut.message).toContain('may have been processed');
    expect(recordOfFailure(new TypeError('boom'), base)).toStrictEqual({
      ...base,
      state: 'unknown',
      error: 'boom',
    });
  });

  it('keeps at most MAX_RECORD_ERROR characters of a message: a longer one is cut with …', () => {
    expect(recordOfFailure(new Error('e'.repeat(50_000)), base).error).toBe(
      `${'e'.repeat(MAX_RECORD_ERROR - 1)}…`,
    );
    const whole = 'w'.repeat(MAX_RECORD_ERROR);
    expect(recordOfFailure(new Error(whole), base).error).toBe(whole);
    // Something thrown that is not an Error: its text.
    expect(recordOfFailure('no connection', base)).toStrictEqual({
      ...base,
      state: 'unknown',
      error: 'no connection',
    });
  });

  it.each([401, 403, 404, 405])('a %i: not_sent, with its status (the claim was not judged)', (status) => {
    const error = new ClaimsApiError(init(status, { message: 'no' }, `req-${status}`));
    expect(recordOfFailure(error, base)).toStrictEqual({
      ...base,
      requestId: `req-${status}`,
      status,
      state: 'not_sent',
      error: error.message,
    });
  });
});
