import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../src/errors.js';
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
