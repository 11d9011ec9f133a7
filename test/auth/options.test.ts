import { describe, expect, it } from 'vitest';
import { type ClientCredentialsOptions, clientCredentials } from '../../src/auth/index.js';
import { ClaimsValidationError } from '../../src/errors.js';

// Every refusal of clientCredentials' options, word for word: thrown at once, before any request.
const good: ClientCredentialsOptions = {
  tokenUrl: 'https://auth.example.com/oauth2/token',
  clientId: 'portal',
  clientSecret: 'topsecret',
};

function refusal(options: Partial<Record<keyof ClientCredentialsOptions, unknown>>): ClaimsValidationError {
  try {
    clientCredentials({ ...good, ...options } as ClientCredentialsOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ClaimsValidationError);
    return error as ClaimsValidationError;
  }
  throw new Error(`accepted: ${JSON.stringify(options)}`);
}
const issues = (options: Partial<Record<keyof ClientCredentialsOptions, unknown>>) =>
  refusal(options).issues.map((i) => `${i.path} ${i.message}`);

describe('clientCredentials options, refused word for word', () => {
  it('every problem in one error, its message listing each', () => {
    const error = refusal({
      tokenUrl: 'ftp://auth.example.com/t',
      clientId: 7,
      clientSecret: '',
      scope: ['a', 1],
      audience: 3,
      clientAuthentication: 'private_key_jwt',
      fetch: 'fetch',
      refreshAheadMs: -1,
      refreshJitterMs: 1.5,
      timeoutMs: 2 ** 31,
    });
    const expected = [
      'tokenUrl must be an https URL without user info (http only for localhost)',
      'clientId must be a non-empty string',
      'clientSecret must be a non-empty string',
      'scope must be a string or an array of strings',
      'audience must be a string',
      "clientAuthentication must be 'client_secret_basic' or 'client_secret_post'",
      'fetch must be a fetch-compatible function',
      'refreshAheadMs must be a whole number of ms, 0 or more',
      'refreshJitterMs must be a whole number of ms, 0 or more',
      'timeoutMs must be a whole number of ms from 1 to 2147483647',
    ];
    expect(error.issues.map((i) => `${i.path} ${i.message}`)).toEqual(expected);
    expect(error.message).toBe(`Invalid clientCredentials options: ${expected.join('; ')}`);
  });

  it('the token URL: https anywhere, http only on this machine, never with user info', () => {
    const bad = ['tokenUrl must be an https URL without user info (http only for localhost)'];
    for (const tokenUrl of [
      'http://auth.example.com/t',
      'http://127.0.0.2/t',
      'ftp://localhost/t',
      'https://user@auth.example.com/t',
      'https://:pw@auth.example.com/t',
      'not a url',
      undefined,
    ]) {
      expect(issues({ tokenUrl }), String(tokenUrl)).toEqual(bad);
    }
    for (const tokenUrl of [
      'https://auth.example.com/t',
      'http://localhost:8080/t',
      'http://127.0.0.1/t',
      'http://[::1]:9/t',
    ]) {
      expect(() => clientCredentials({ ...good, tokenUrl }), tokenUrl).not.toThrow();
    }
  });

  it('a missing options object is refused as such, not a TypeError', () => {
    expect(() => clientCredentials(undefined as unknown as ClientCredentialsOptions)).toThrow(
      ClaimsValidationError,
    );
  });

  it('scope: a string or strings; audience a string; either authentication method', () => {
    for (const scope of ['claims:write', ['a', 'b'], []])
      expect(() => clientCredentials({ ...good, scope })).not.toThrow();
    expect(issues({ scope: 5 })).toEqual(['scope must be a string or an array of strings']);
    expect(issues({ scope: { 0: 'a' } })).toEqual(['scope must be a string or an array of strings']);
    expect(() => clientCredentials({ ...good, audience: '' })).not.toThrow();
    for (const clientAuthentication of ['client_secret_basic', 'client_secret_post'] as const) {
      expect(() => clientCredentials({ ...good, clientAuthentication })).not.toThrow();
    }
    expect(() => clientCredentials({ ...good, fetch: async () => new Response('') })).not.toThrow();
  });

  it('the times: whole ms, refresh 0 or more, timeout from 1 to 2^31 - 1', () => {
    for (const name of ['refreshAheadMs', 'refreshJitterMs'] as const) {
      expect(() => clientCredentials({ ...good, [name]: 0 })).not.toThrow();
      expect(issues({ [name]: -1 })).toEqual([`${name} must be a whole number of ms, 0 or more`]);
      expect(issues({ [name]: 0.5 })).toEqual([`${name} must be a whole number of ms, 0 or more`]);
      expect(issues({ [name]: '5' })).toEqual([`${name} must be a whole number of ms, 0 or more`]);
    }
    const timeout = ['timeoutMs must be a whole number of ms from 1 to 2147483647'];
    for (const timeoutMs of [1, 2 ** 31 - 1])
      expect(() => clientCredentials({ ...good, timeoutMs })).not.toThrow();
    for (const timeoutMs of [0, 2 ** 31, 1.5, Number.NaN, '10'])
      expect(issues({ timeoutMs }), String(timeoutMs)).toEqual(timeout);
  });
});
