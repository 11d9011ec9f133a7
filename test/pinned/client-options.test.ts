/**
 * `new ClaimsClient(options)`: each option refused with a `ClaimsValidationError` naming it and
 * saying what to give instead, every issue reported at once, and the values at the edge of
 * each check accepted (so a check made stricter by mistake fails too). A JavaScript caller
 * may pass anything, so the checks see non-objects and wrong types as well.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsClient, type ClaimsClientOptions, ClaimsValidationError } from '../../src/index.js';

const BASE = { baseUrl: 'https://claims.example.com/api', accessToken: 'tok' };

function refusal(options: unknown): ClaimsValidationError {
  try {
    new ClaimsClient(options as ClaimsClientOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ClaimsValidationError);
    return error as ClaimsValidationError;
  }
  throw new Error('expected a ClaimsValidationError');
}

const BASE_URL_MESSAGE =
  'must be an absolute http(s) URL without query or fragment, e.g. https://claims.example.com/api';

describe('options refused, each with what to give instead', () => {
  it.each([
    ['a relative baseUrl', { baseUrl: '/api' }, 'baseUrl', `${BASE_URL_MESSAGE}; got "/api"`],
    [
      'an ftp baseUrl',
      { baseUrl: 'ftp://claims.example.com' },
      'baseUrl',
      `${BASE_URL_MESSAGE}; got "ftp://claims.example.com"`,
    ],
    [
      'a baseUrl with a query',
      { baseUrl: 'https://claims.example.com/api?k=1' },
      'baseUrl',
      `${BASE_URL_MESSAGE}; got "https://claims.example.com/api?k=1"`,
    ],
    [
      'a baseUrl with a fragment',
      { baseUrl: 'https://claims.example.com/api#top' },
      'baseUrl',
      `${BASE_URL_MESSAGE}; got "https://claims.example.com/api#top"`,
    ],
    ['a numeric baseUrl', { baseUrl: 42 }, 'baseUrl', `${BASE_URL_MESSAGE}; got 42`],
    ['an unset baseUrl', { baseUrl: undefined }, 'baseUrl', `${BASE_URL_MESSAGE}; got undefined`],
    ['a null baseUrl', { baseUrl: null }, 'baseUrl', `${BASE_URL_MESSAGE}; got null`],
    [
      'a URL object as baseUrl',
      { baseUrl: new URL('ftp://x') },
      'baseUrl',
      `${BASE_URL_MESSAGE}; got an object`,
    ],
    [
      'an ftp baseUrl with a password, the password not shown',
      { baseUrl: 'ftp://me:hunter2@claims.example.com/?api_key=k1&x=2' },
      'baseUrl',
      `${BASE_URL_MESSAGE}; got "ftp://[REDACTED]:[REDACTED]@claims.example.com/?api_key=[REDACTED]&x=2"`,
    ],
    [
      'an https baseUrl with a user name and password',
      { baseUrl: 'https://me:hunter2@claims.example.com/api' },
      'baseUrl',
      'must not hold a user name or password (they would be printed wherever the URL is): give the credential as accessToken or in headers',
    ],
    [
      'an https baseUrl with a user name',
      { baseUrl: 'https://me@claims.example.com/api' },
      'baseUrl',
      'must not hold a user name or password (they would be printed wherever the URL is): give the credential as accessToken or in headers',
    ],
    [
      'metadataCacheMaxEntries 0',
      { metadataCacheMaxEntries: 0 },
      'metadataCacheMaxEntries',
      'must be a positive whole number of forms',
    ],
    [
      'metadataCacheMaxEntries 1.5',
      { metadataCacheMaxEntries: 1.5 },
      'metadataCacheMaxEntries',
      'must be a positive whole number of forms',
    ],
    [
      'metadataCacheMaxEntries as a string',
      { metadataCacheMaxEntries: '10' },
      'metadataCacheMaxEntries',
      'must be a positive whole number of forms',
    ],
    [
      'redactHeaders as a string',
      { redactHeaders: 'x-pin' },
      'redactHeaders',
      'must be an array of header names',
    ],
    [
      'redactHeaders with a number',
      { redactHeaders: ['x-pin', 1] },
      'redactHeaders',
      'must be an array of header names',
    ],
    [
      'deadlineMs 0',
      { deadlineMs: 0 },
      'deadlineMs',
      'must be a whole number of milliseconds from 1 to 2147483647',
    ],
    [
      'deadlineMs 1.5',
      { deadlineMs: 1.5 },
      'deadlineMs',
      'must be a whole number of milliseconds from 1 to 2147483647',
    ],
    [
      'maxResponseBytes 0',
      { maxResponseBytes: 0 },
      'maxResponseBytes',
      'must be a positive whole number of bytes',
    ],
    [
      'maxResponseBytes 2^53',
      { maxResponseBytes: 2 ** 53 },
      'maxResponseBytes',
      'must be a positive whole number of bytes',
    ],
    [
      'maxResponseBytes as a string',
      { maxResponseBytes: '1000' },
      'maxResponseBytes',
      'must be a positive whole number of bytes',
    ],
    [
      'a userAgent with a line break',
      { userAgent: 'a\nb' },
      'userAgent',
      'must be a string of printable ASCII characters',
    ],
    [
      'a userAgent with a tab',
      { userAgent: 'a\tb' },
      'userAgent',
      'must be a string of printable ASCII characters',
    ],
    [
      'a non-ASCII userAgent',
      { userAgent: 'portál/1' },
      'userAgent',
      'must be a string of printable ASCII characters',
    ],
    ['a numeric userAgent', { userAgent: 2 }, 'userAgent', 'must be a string of printable ASCII characters'],
    [
      'a fetch that is not a function',
      { fetch: 'https://x' },
      'fetch',
      'must be a fetch-compatible function',
    ],
    [
      'a logger without warn',
      { logger: { debug() {}, info() {}, error() {} } },
      'logger',
      'must have debug, info, warn and error methods',
    ],
    [
      'a logLevel not known',
      { logLevel: 'verbose' },
      'logLevel',
      'must be one of debug, info, warn, error, off',
    ],
  ])('%s', (_name, bad, path, message) => {
    const error = refusal({ ...BASE, ...(bad as object) });
    expect(error.issues).toEqual([{ path, message }]);
    expect(error.message).toBe(`Invalid ClaimsClient options: ${path}: ${message}`);
  });

  it('every issue at once, in the order of the options', () => {
    const error = refusal({
      baseUrl: 'nope',
      accessToken: '',
      timeoutMs: 0,
      deadlineMs: 0,
      maxRetries: -1,
      metadataCacheTtlMs: -1,
      maxResponseBytes: 0,
      userAgent: '\n',
      fetch: 1,
      logger: {},
      logLevel: 'loud',
    });
    expect(error.issues.map((i) => i.path)).toEqual([
      'baseUrl',
      'accessToken',
      'timeoutMs',
      'deadlineMs',
      'maxRetries',
      'metadataCacheTtlMs',
      'maxResponseBytes',
      'userAgent',
      'fetch',
      'logger',
      'logLevel',
    ]);
  });

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['an empty object', {}],
  ])('%s given as options: baseUrl and accessToken are asked for', (_name, options) => {
    const error = refusal(options);
    expect(error.issues.map((i) => i.path)).toEqual(['baseUrl', 'accessToken']);
  });
});

describe('options accepted at the edge of each check', () => {
  it.each([
    ['an http baseUrl', { baseUrl: 'http://127.0.0.1:8080' }],
    ['an https baseUrl with trailing slashes', { baseUrl: 'https://claims.example.com/api//' }],
    ['deadlineMs 1', { deadlineMs: 1 }],
    ['maxResponseBytes 1', { maxResponseBytes: 1 }],
    ['maxResponseBytes 2^53-1', { maxResponseBytes: Number.MAX_SAFE_INTEGER }],
    ['an empty userAgent', { userAgent: '' }],
    ['a userAgent of every printable ASCII character', { userAgent: ' ~!/(x; y) 1.2' }],
    ['a logger with the four methods', { logger: { debug() {}, info() {}, warn() {}, error() {} } }],
    ['logLevel off', { logLevel: 'off' }],
    ['a fetch', { fetch: globalThis.fetch }],
  ])('%s', (_name, good) => {
    expect(() => new ClaimsClient({ ...BASE, ...(good as object) })).not.toThrow();
  });
});

describe('the base URL as the client keeps it', () => {
  it('trailing slashes dropped: requests and messages name `<base>/<path>`', async () => {
    const paths: string[] = [];
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9/api//',
      accessToken: 'tok',
      // Two files sent, one record back: the answer is refused, naming the request.
      fetch: async (url) => {
        paths.push(url);
        return Response.json([{ filename: 'a.txt', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' }]);
      },
    });
    const error = await client.attachments
      .upload([
        { data: Buffer.from('a'), filename: 'a.txt' },
        { data: Buffer.from('b'), filename: 'b.txt' },
      ])
      .catch((e: unknown) => e);
    expect(paths).toEqual(['http://127.0.0.1:9/api/attachments']);
    expect((error as Error).message).toMatch(
      /^Unexpected response from POST http:\/\/127\.0\.0\.1:9\/api\/attachments: /,
    );
  });
});
