import { describe, expect, it, vi } from 'vitest';
import {
  errorFromResponse,
  NotFoundError,
  requestIdOf,
  restate,
  WebhookVerificationError,
} from '../src/errors.js';
import {
  ClaimsApiError,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  InternalServerError,
  isClaimsError,
  RateLimitError,
} from '../src/index.js';
import { OUTCOME, outcomeOf } from '../src/outcome.js';

const init = {
  status: 429,
  body: { error: 'slow down' },
  headers: { 'request-id': 'abc' },
  method: 'GET',
  url: 'https://x/api',
};

describe('errors', () => {
  it('builds the most specific class per status', () => {
    expect(errorFromResponse(init)).toBeInstanceOf(RateLimitError);
    expect(errorFromResponse({ ...init, status: 599 })).toBeInstanceOf(InternalServerError);
    const generic = errorFromResponse({ ...init, status: 451 });
    expect(generic.constructor).toBe(ClaimsApiError);
    expect(generic.name).toBe('ClaimsApiError');
  });

  it('reads the request id from the first known header present', () => {
    expect(errorFromResponse(init).requestId).toBe('abc');
    expect(errorFromResponse({ ...init, headers: {} }).requestId).toBeUndefined();
  });

  it('summarises the server’s words in the message, shortened', () => {
    expect(errorFromResponse(init).message).toBe('429 GET https://x/api: slow down');
    expect(errorFromResponse({ ...init, body: { code: 7 } }).message).toBe(
      '429 GET https://x/api: {"code":7}',
    );
    expect(errorFromResponse({ ...init, body: undefined }).message).toBe('429 GET https://x/api');
    const long = errorFromResponse({ ...init, body: 'x'.repeat(1000) }).message;
    expect(long.length).toBeLessThan(330);
    expect(long.endsWith('…')).toBe(true);
  });

  it('keeps the class hierarchy and names', () => {
    const timeout = new ClaimsTimeoutError('t', { cause: new Error('inner') });
    expect(timeout).toBeInstanceOf(ClaimsConnectionError);
    expect(timeout).toBeInstanceOf(ClaimsError);
    expect(timeout.name).toBe('ClaimsTimeoutError');
    expect((timeout.cause as Error).message).toBe('inner');
    expect(isClaimsError(timeout)).toBe(true);
    expect(isClaimsError(new Error('x'))).toBe(false);
  });

  it('validation errors list their issues in the message', () => {
    const error = new ClaimsValidationError([
      { path: 'a.b', message: 'is wrong' },
      { path: '', message: 'is empty' },
    ]);
    expect(error.message).toBe('Invalid request: a.b: is wrong; is empty');
    const response = new ClaimsResponseValidationError(
      {},
      [{ path: 'incidentId', message: 'missing' }],
      'POST /x',
    );
    expect(response.message).toBe('Unexpected response from POST /x: incidentId: missing');
    expect(response.name).toBe('ClaimsResponseValidationError');
  });
});

describe('errors across builds and in JSON', () => {
  it('isClaimsError recognises a ClaimsError of another copy of the SDK (the other build)', async () => {
    vi.resetModules();
    // A query makes a second, separate module instance: its own ClaimsError class.
    const otherCopy = '../src/errors.js?other-build';
    const other = (await import(otherCopy)) as typeof import('../src/errors.js');
    const foreign = new other.ClaimsValidationError([{ path: 'x', message: 'bad' }]);
    expect(foreign).not.toBeInstanceOf(ClaimsError); // two classes, as with the ESM and CJS builds
    expect(isClaimsError(foreign)).toBe(true);
    expect(other.isClaimsError(new ClaimsConnectionError('down'))).toBe(true);
    expect(isClaimsError(new Error('plain'))).toBe(false);
    expect(isClaimsError({ name: 'ClaimsError', message: 'lookalike' })).toBe(false);
    expect(isClaimsError(null)).toBe(false);
  });

  it('JSON.stringify gives name, message and the documented fields of an API error', () => {
    const error = errorFromResponse({ ...init, status: 422, headers: { 'x-request-id': 'req-1' } });
    const json = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
    expect(json).toMatchObject({
      name: 'UnprocessableEntityError',
      message: '422 GET https://x/api: slow down',
      outcome: 'rejected',
      status: 422,
      requestId: 'req-1',
      method: 'GET',
      url: 'https://x/api',
      body: { error: 'slow down' },
    });
    expect(json).not.toHaveProperty('stack');
  });

  it('JSON.stringify of a validation error keeps its issues, and never a cause', () => {
    const error = new ClaimsValidationError([{ path: 'isActve', message: 'did you mean isActive?' }]);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      name: 'ClaimsValidationError',
      message: 'Invalid request: isActve: did you mean isActive?',
      outcome: 'not_sent',
      issues: [{ path: 'isActve', message: 'did you mean isActive?' }],
    });
    const withCause = new ClaimsConnectionError('no answer', { cause: new Error('Bearer secret-token') });
    expect(JSON.stringify(withCause)).not.toContain('secret-token');
    expect(JSON.parse(JSON.stringify(withCause))).toMatchObject({
      name: 'ClaimsConnectionError',
      message: 'no answer (the request may have been processed)',
      outcome: 'unknown',
    });
  });
});

describe('the own fields of every error class', () => {
  const cause = new Error('Bearer secret-token');
  const every: Error[] = [
    new ClaimsError('x', { cause }),
    new ClaimsValidationError([{ path: 'a', message: 'b' }]),
    new ClaimsResponseValidationError({}, [], 'GET https://x', { cause }),
    new ClaimsConnectionError('x', { cause, method: 'GET', url: 'https://x', attempts: 1 }),
    new ClaimsTimeoutError('x', { cause }),
    errorFromResponse({ ...init, status: 404 }),
    errorFromResponse({ ...init, status: 503, outcome: 'unknown', attempts: 3 }),
    new WebhookVerificationError('invalid_body', 'x', [], { cause }),
    restate(errorFromResponse({ ...init, status: 404 }), 'the look-up failed', 'not_sent'),
    restate(new TypeError('bad'), 'the step failed', 'not_sent'),
  ];

  it.each(every.map((error) => [error.name, error] as const))(
    '%s: no stack, cause or message among them, so JSON carries neither',
    (_name, error) => {
      expect(Object.keys(error)).not.toEqual(expect.arrayContaining(['stack']));
      expect(Object.keys(error)).not.toContain('cause');
      expect(Object.keys(error)).not.toContain('message');
      const json = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
      expect(Object.keys(json).slice(0, 3)).toEqual(['name', 'message', 'outcome']);
      expect(json.name).toBe(error.name);
      expect(JSON.stringify(error)).not.toContain('secret-token');
      expect(json).not.toHaveProperty('stack');
    },
  );
});

/**
 * The error tree's own promises that a mutation of src/errors.ts and src/outcome.ts once got
 * past: which call an error names, the server's words in the message, the request id headers,
 * the outcome of a 3xx, recognising the other build's errors, and the restated step error.
 */
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

describe('what each error says of itself, pinned', () => {
  const answer = (status: number, extra: Partial<typeof init> & { attempts?: number } = {}) =>
    errorFromResponse({ ...init, status, ...extra });

  it('names every class, whatever a minifier does to it', () => {
    expect(new ClaimsError('m').name).toBe('ClaimsError');
    const names = Object.fromEntries(
      [400, 401, 403, 404, 409, 418, 422, 429, 500, 503].map((status) => [status, answer(status).name]),
    );
    expect(names).toEqual({
      400: 'BadRequestError',
      401: 'AuthenticationError',
      403: 'PermissionDeniedError',
      404: 'NotFoundError',
      409: 'ConflictError',
      418: 'ClaimsApiError',
      422: 'UnprocessableEntityError',
      429: 'RateLimitError',
      500: 'InternalServerError',
      503: 'InternalServerError',
    });
  });

  it('a 4xx is rejected, a 500 and above (or an unfollowed 3xx) unknown, unless told', () => {
    expect([400, 499, 500, 503, 302].map((status) => answer(status).outcome)).toEqual([
      'rejected',
      'rejected',
      'unknown',
      'unknown',
      'unknown',
    ]);
    expect(answer(500)).toBeInstanceOf(InternalServerError);
    expect(errorFromResponse({ ...init, status: 503, outcome: 'not_sent' }).outcome).toBe('not_sent');
  });

  it('counts one attempt unless told how many', () => {
    expect(answer(404).attempts).toBe(1);
    expect(answer(404, { attempts: 3 }).attempts).toBe(3);
  });

  it('reads the request id from each header servers use, the first one listed winning', () => {
    for (const name of ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid']) {
      expect(requestIdOf({ [name]: `id-of-${name}` })).toBe(`id-of-${name}`);
    }
    expect(requestIdOf({ 'x-amzn-requestid': 'd', 'request-id': 'b', 'x-request-id': 'a' })).toBe('a');
    expect(requestIdOf({ 'x-other-id': 'z' })).toBeUndefined();
  });

  it('has a cause only when given one', () => {
    const cause = new Error('below');
    expect(new ClaimsError('m', { cause }).cause).toBe(cause);
    expect(Object.hasOwn(new ClaimsError('m'), 'cause')).toBe(false);
  });

  it("an answer that cannot be read after a 2xx is 'processed', with its cause", () => {
    const cause = new Error('body broke off');
    const error = new ClaimsResponseValidationError({ a: 1 }, [], 'GET https://x/api', { cause });
    expect(error.outcome).toBe('processed');
    expect(error.cause).toBe(cause);
    expect(error.message).toMatch(/^Unexpected response from GET https:\/\/x\/api/);
  });

  it("restates a caller's AbortError as a fresh AbortError with the call's outcome and the reason kept", () => {
    const reason = new Error('user left');
    const original = new DOMException('The operation was aborted', 'AbortError');
    Object.defineProperty(original, 'cause', { value: reason });
    const restated = restate(original, 'the create was not sent', 'not_sent');
    expect(restated).not.toBe(original);
    expect(restated.name).toBe('AbortError');
    expect(restated).not.toBeInstanceOf(ClaimsError);
    expect(outcomeOf(restated)).toBe('not_sent');
    expect(restated.cause).toBe(reason);
    // The cause can be replaced, as on any platform error.
    expect(Object.getOwnPropertyDescriptor(restated, 'cause')?.configurable).toBe(true);
  });
});
