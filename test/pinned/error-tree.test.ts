/**
 * The error tree's own promises that a mutation of src/errors.ts and src/outcome.ts once got
 * past: which call an error names, the server's words in the message, the request id headers,
 * the outcome of a 3xx, recognising the other build's errors, and the restated step error.
 */
import { describe, expect, it } from 'vitest';
import {
  ClaimsConnectionError,
  ClaimsError,
  ClaimsTimeoutError,
  errorFromResponse,
  isClaimsError,
  NotFoundError,
  requestIdOf,
  restate,
  WebhookVerificationError,
} from '../../src/errors.js';
import { OUTCOME, outcomeOf } from '../../src/outcome.js';

const call = { method: 'POST', url: 'https://claims.example.com/api/incidents', attempts: 2 };
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  errorFromResponse({ status, body, headers, method: 'GET', url: 'https://claims.example.com/x' });

describe('a connection error built with its call', () => {
  it('keeps the message as given and carries method, url and attempts', () => {
    const error = new ClaimsConnectionError(`POST ${call.url}: socket hang up`, {
      outcome: 'not_sent',
      ...call,
    });
    expect(error.message).toBe(`POST ${call.url}: socket hang up`);
    expect(error).toMatchObject({ method: 'POST', url: call.url, attempts: 2 });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'ClaimsConnectionError',
      message: `POST ${call.url}: socket hang up`,
      outcome: 'not_sent',
      method: 'POST',
      url: call.url,
      attempts: 2,
    });
  });

  it('without a call: the fields are undefined', () => {
    const error = new ClaimsTimeoutError('slow');
    expect(error.method).toBeUndefined();
    expect(error.url).toBeUndefined();
    expect(error.attempts).toBeUndefined();
  });

  it('its stack starts with its class and its one final message, said once', () => {
    const error = new ClaimsTimeoutError('GET https://x/y: Request timed out: no progress for 5 ms');
    const note = '(the request may have been processed)';
    expect(error.stack?.split('\n')[0]).toBe(`ClaimsTimeoutError: ${error.message}`);
    expect(error.message.endsWith(note)).toBe(true);
    expect(error.stack?.split(note)).toHaveLength(2);
  });
});

describe('an API error', () => {
  it('of a 3xx (an unfollowed redirect) may have been processed', () => {
    expect(answer(302, '').outcome).toBe('unknown');
    expect(answer(499, '').outcome).toBe('rejected');
  });

  it.each(['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid'])(
    'takes its request id from %s',
    (name) => {
      expect(requestIdOf({ [name]: 'req-7' })).toBe('req-7');
      expect(answer(404, '', { [name]: 'req-7' }).requestId).toBe('req-7');
    },
  );

  it.each(['message', 'error', 'detail', 'title', 'error_description'])('quotes the server’s %s', (key) => {
    expect(answer(400, { [key]: 'no such policy', other: 1 }).message).toBe(
      '400 GET https://claims.example.com/x: no such policy',
    );
  });

  it('puts the server’s words on one line, trimmed', () => {
    expect(answer(400, '  no such\n\n  policy \t').message).toBe(
      '400 GET https://claims.example.com/x: no such policy',
    );
  });

  it('keeps 300 characters whole and cuts 301 to 300, the ellipsis included', () => {
    expect(answer(400, 'a'.repeat(300)).message.endsWith(`: ${'a'.repeat(300)}`)).toBe(true);
    expect(answer(400, 'a'.repeat(301)).message.endsWith(`: ${'a'.repeat(299)}…`)).toBe(true);
  });
});

describe('isClaimsError', () => {
  it('recognises an error of the other build by its registry brand', () => {
    const other = Object.assign(new Error('x'), { [Symbol.for('claims-notification-sdk.error')]: true });
    expect(isClaimsError(other)).toBe(true);
  });

  it('refuses a branded function and primitives', () => {
    const fn = Object.assign(() => undefined, { [Symbol.for('claims-notification-sdk.error')]: true });
    expect(isClaimsError(fn)).toBe(false);
    expect(isClaimsError('ClaimsError')).toBe(false);
    expect(isClaimsError(null)).toBe(false);
  });
});

describe('the outcome', () => {
  it('is fixed when the error is built: it can be neither changed nor removed', () => {
    const error = new ClaimsError('x', { outcome: 'unknown' });
    const fields = error as unknown as Record<symbol, unknown>;
    expect(() => {
      fields[OUTCOME] = 'not_sent';
    }).toThrow(TypeError);
    expect(() => delete fields[OUTCOME]).toThrow(TypeError);
    expect(error.outcome).toBe('unknown');
    expect(outcomeOf(error)).toBe('unknown');
  });
});

describe('WebhookVerificationError', () => {
  it('is named and has no issues unless given', () => {
    const error = new WebhookVerificationError('missing_header', 'no header');
    expect(error.name).toBe('WebhookVerificationError');
    expect(error.issues).toEqual([]);
  });
});

describe('restate', () => {
  it('wraps an error that is not the SDK’s in a ClaimsError with it as cause', () => {
    const cause = new TypeError('bad');
    const error = restate(cause, 'metadata look-up failed', 'not_sent');
    expect(error).toBeInstanceOf(ClaimsError);
    expect(error.message).toBe('metadata look-up failed');
    expect(error.cause).toBe(cause);
    expect((error as ClaimsError).outcome).toBe('not_sent');
  });

  it('copies an SDK error with a stack that starts with its class and the new message', () => {
    const step = answer(404, 'gone');
    const error = restate(step, 'the upload failed: 404', 'not_sent');
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.stack?.startsWith('NotFoundError: the upload failed: 404\n')).toBe(true);
    expect(Object.keys(error)).not.toContain('stack');
    expect(error.cause).toBe(step);
  });
});
