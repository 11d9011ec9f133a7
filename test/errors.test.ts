import { describe, expect, it, vi } from 'vitest';
import { errorFromResponse, restate, WebhookVerificationError } from '../src/errors.js';
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
