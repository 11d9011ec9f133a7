import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsConnectionError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  VERSION,
} from '../src/index.js';

describe('ClaimsClient options', () => {
  it('exposes the six sub-clients', () => {
    const client = new ClaimsClient({ baseUrl: 'https://claims.example.com/api/', accessToken: 't' });
    for (const name of [
      'incidents',
      'events',
      'attachments',
      'metadata',
      'webhooks',
      'subscriptions',
    ] as const) {
      expect(client[name]).toBeDefined();
    }
  });

  it.each([
    [{ baseUrl: 'claims.example.com', accessToken: 't' }, 'baseUrl'],
    [{ baseUrl: 'ftp://claims.example.com', accessToken: 't' }, 'baseUrl'],
    [{ baseUrl: 'https://claims.example.com/api?key=1', accessToken: 't' }, 'baseUrl'],
    [{ baseUrl: 'https://claims.example.com', accessToken: '' }, 'accessToken'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', timeoutMs: -1 }, 'timeoutMs'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', maxRetries: 1.5 }, 'maxRetries'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', timeoutMs: 0 }, 'timeoutMs'],
    [
      { baseUrl: 'https://claims.example.com', accessToken: 't', metadataCacheTtlMs: Number.NaN },
      'metadataCacheTtlMs',
    ],
    [{ baseUrl: 'https://claims.example.com', accessToken: 'tok\nen' }, 'accessToken'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', maxResponseBytes: 0 }, 'maxResponseBytes'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', maxResponseBytes: 1.5 }, 'maxResponseBytes'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', headers: { 'x-a': 'b\nc' } }, 'headers.x-a'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', userAgent: 'a\nb' }, 'userAgent'],
  ])('rejects %j naming %s', (options, path) => {
    const error = (() => {
      try {
        new ClaimsClient(options);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual([path]);
    expect((error as Error).message).toMatch(/^Invalid ClaimsClient options: /);
  });

  /** The issues `new ClaimsClient(options)` refuses the options with (none: it was made). */
  function issuesOf(options: Record<string, unknown>): Array<{ path: string; message: string }> {
    try {
      new ClaimsClient({ baseUrl: 'https://claims.example.com', accessToken: 't', ...options } as never);
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(ClaimsValidationError);
      return (error as ClaimsValidationError).issues.map(({ path, message }) => ({ path, message }));
    }
  }

  it.each([
    ['an empty string', ''],
    ['a string with other characters (not shown)', 'tok\nen'],
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an array', ['tok']],
    ['an object', { token: 'tok' }],
  ])('an accessToken that is %s is named so, never shown', (said, accessToken) => {
    expect(issuesOf({ accessToken })).toEqual([
      {
        path: 'accessToken',
        message: `must be a non-empty string of visible ASCII characters, or a function returning one; got ${said}`,
      },
    ]);
  });

  it.each([
    ['a user name', 'https://user@claims.example.com'],
    ['a password alone', 'https://:s3cret@claims.example.com'],
  ])('a baseUrl with %s is refused, without quoting it', (_what, baseUrl) => {
    expect(issuesOf({ baseUrl })).toEqual([
      {
        path: 'baseUrl',
        message:
          'must not hold a user name or password (they would be printed wherever the URL is): give the credential as accessToken or in headers',
      },
    ]);
  });

  it('a baseUrl that is no URL is quoted, or named by its kind', () => {
    const message = (got: string) =>
      `must be an absolute http(s) URL without query or fragment, e.g. https://claims.example.com/api; got ${got}`;
    expect(issuesOf({ baseUrl: 'claims.example.com' })).toEqual([
      { path: 'baseUrl', message: message('"claims.example.com"') },
    ]);
    expect(issuesOf({ baseUrl: ['https://claims.example.com'] })).toEqual([
      { path: 'baseUrl', message: message('an array') },
    ]);
    expect(issuesOf({ baseUrl: { href: 'https://claims.example.com' } })).toEqual([
      { path: 'baseUrl', message: message('an object') },
    ]);
    expect(issuesOf({ baseUrl: 8080 })).toEqual([{ path: 'baseUrl', message: message('8080') }]);
  });

  it('metadataCacheMaxEntries: a whole number of at least 1', () => {
    const refused = [
      { path: 'metadataCacheMaxEntries', message: 'must be a positive whole number of forms' },
    ];
    expect(issuesOf({ metadataCacheMaxEntries: 0 })).toEqual(refused);
    expect(issuesOf({ metadataCacheMaxEntries: 2.5 })).toEqual(refused);
    expect(issuesOf({ metadataCacheMaxEntries: 1 })).toEqual([]);
  });

  it('redactHeaders: an array of names, nothing else', () => {
    const refused = [{ path: 'redactHeaders', message: 'must be an array of header names' }];
    expect(issuesOf({ redactHeaders: 'x-api-key' })).toEqual(refused);
    expect(issuesOf({ redactHeaders: ['x-api-key', 7] })).toEqual(refused);
    expect(issuesOf({ redactHeaders: ['x-api-key', 'x-secret'] })).toEqual([]);
    expect(issuesOf({ redactHeaders: [] })).toEqual([]);
  });

  it('user-agent: the SDK and runtime, then the caller’s own when given', async () => {
    const sent: Array<string | null> = [];
    const fetch = async (_url: string, init: RequestInit): Promise<Response> => {
      sent.push(new Headers(init.headers).get('user-agent'));
      return Response.json([]);
    };
    const own = `claims-notification-sdk/${VERSION} node/${process.versions.node}`;
    await new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 't', fetch }).subscriptions.list(1);
    await new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 't',
      fetch,
      userAgent: 'broker-portal/2.1',
    }).subscriptions.list(1);
    expect(sent).toEqual([own, `${own} broker-portal/2.1`]);
  });

  it('keeps VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });
});

/**
 * The documented defaults of `ClaimsClient` options, taken from what a call does when the
 * option is left out: `timeoutMs` 30 s, `deadlineMs` 10 minutes, `maxRetries` 2,
 * `metadataCacheTtlMs` 10 minutes. Fake timers (and a fake clock) stand for the minutes.
 */
describe('each default, as a call shows it', () => {
  // The schemas are imported on the first call: done here, with real timers, so the fake ones
  // below measure only the call.
  beforeAll(async () => {
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      fetch: async () => Response.json([]),
    });
    await client.subscriptions.list(1);
  });
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A fetch that never answers: it rejects only when the call aborts it. */
  function silentFetch(calls: { n: number }) {
    return (_url: string, init: RequestInit): Promise<Response> => {
      calls.n++;
      return new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    };
  }

  describe('defaults', () => {
    it('timeoutMs: an attempt without progress ends after 30 s', async () => {
      const calls = { n: 0 };
      const client = new ClaimsClient({
        baseUrl: 'http://127.0.0.1:9',
        accessToken: 'tok',
        maxRetries: 0,
        fetch: silentFetch(calls),
      });
      let settled = false;
      const call = client.subscriptions.list(1).catch((e: unknown) => e);
      void call.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(29_900);
      expect(calls.n).toBe(1);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(200);
      const error = await call;
      expect(error).toBeInstanceOf(ClaimsTimeoutError);
      expect((error as Error).message).toContain('no progress for 30000 ms');
    });

    it('deadlineMs: a call ends after 10 minutes, whatever its attempts do', async () => {
      const calls = { n: 0 };
      const client = new ClaimsClient({
        baseUrl: 'http://127.0.0.1:9',
        accessToken: 'tok',
        timeoutMs: 2 ** 31 - 1,
        maxRetries: 0,
        fetch: silentFetch(calls),
      });
      let settled = false;
      const call = client.subscriptions.list(1).catch((e: unknown) => e);
      void call.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(599_000);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(2_000);
      const error = await call;
      expect(error).toBeInstanceOf(ClaimsTimeoutError);
      expect((error as Error).message).toContain(
        'Deadline passed: the call did not finish within deadlineMs (600000 ms)',
      );
    });

    it('maxRetries: a GET whose connection fails is tried 3 times in all', async () => {
      let calls = 0;
      const client = new ClaimsClient({
        baseUrl: 'http://127.0.0.1:9',
        accessToken: 'tok',
        fetch: async () => {
          calls++;
          throw new TypeError('fetch failed');
        },
      });
      const call = client.subscriptions.list(1).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(60_000);
      const error = await call;
      expect(error).toBeInstanceOf(ClaimsConnectionError);
      expect(calls).toBe(3);
    });

    it('metadataCacheTtlMs: the form metadata is asked for again only after 10 minutes', async () => {
      const paths: string[] = [];
      const client = new ClaimsClient({
        baseUrl: 'http://127.0.0.1:9',
        accessToken: 'tok',
        fetch: async (url) => {
          paths.push(new URL(url).pathname);
          return Response.json([]);
        },
      });
      const query = { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'GB' };
      await client.metadata.requiredFields(query);
      vi.advanceTimersByTime(599_000);
      await client.metadata.requiredFields(query);
      expect(paths).toEqual(['/metadata/incidents']);
      vi.advanceTimersByTime(2_000);
      await client.metadata.requiredFields(query);
      expect(paths).toEqual(['/metadata/incidents', '/metadata/incidents']);
    });
  });

  describe('default maxResponseBytes', () => {
    it('is 10 MiB: a JSON answer one byte longer is refused, one of exactly 10 MiB is read', async () => {
      vi.useRealTimers();
      const LIMIT = 10 * 1024 * 1024;
      const bodyOf = (bytes: number) => `{"note":"${'x'.repeat(bytes - '{"note":""}'.length)}"}`;
      let size = LIMIT;
      const client = new ClaimsClient({
        baseUrl: 'http://127.0.0.1:9',
        accessToken: 'tok',
        fetch: async () =>
          new Response(bodyOf(size), { status: 201, headers: { 'content-type': 'application/json' } }),
      });
      const event = { eventType: 'Event Log Entry', category: 'Other', detail: 'd' };
      const read = await client.events.create('i-1', event);
      expect(read?.note).toHaveLength(LIMIT - '{"note":""}'.length);

      size = LIMIT + 1;
      const error = await client.events.create('i-1', event).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsResponseValidationError);
      expect((error as ClaimsResponseValidationError).issues[0]?.message).toBe(
        `the body is larger than maxResponseBytes (${LIMIT} bytes); reading stopped there`,
      );
    });
  });
});

/**
 * `new ClaimsClient(options)`: each option refused with a `ClaimsValidationError` naming it and
 * saying what to give instead, every issue reported at once, and the values at the edge of
 * each check accepted (so a check made stricter by mistake fails too). A JavaScript caller
 * may pass anything, so the checks see non-objects and wrong types as well.
 */
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
      'a baseUrl whose password holds a "/" (so no URL at all), the password not shown',
      { baseUrl: 'https://me:hunt/er2@claims.example.com/api' },
      'baseUrl',
      `${BASE_URL_MESSAGE}; got "https://[REDACTED]:[REDACTED]@claims.example.com/api"`,
    ],
    [
      'a baseUrl whose password holds "?" and "#", the password not shown',
      { baseUrl: 'https://me:h?un#ter2@claims.example.com' },
      'baseUrl',
      `${BASE_URL_MESSAGE}; got "https://[REDACTED]:[REDACTED]@claims.example.com"`,
    ],
    [
      'a baseUrl without its scheme, user name and password not shown',
      { baseUrl: 'me:hunter2@claims.example.com' },
      'baseUrl',
      `${BASE_URL_MESSAGE}; got "[REDACTED]@claims.example.com"`,
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
