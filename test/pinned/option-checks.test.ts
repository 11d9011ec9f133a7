/**
 * Options and inputs that are refused before anything is sent: a ClaimsValidationError naming
 * the option (its issue path), and no request on the wire. The accepted limits are checked too,
 * so that a check made stricter by mistake fails as well.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsClient, type ClaimsClientOptions, ClaimsValidationError } from '../../src/index.js';
import { useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How each refusal is worded, by option: the message tells the caller what to give instead. */
const MESSAGES: Record<string, RegExp> = {
  timeoutMs: /^must be a whole number of milliseconds from 1 to 2147483647$/,
  deadlineMs: /^must be a whole number of milliseconds from 1 to 2147483647$/,
  maxRetries: /^must be a non-negative integer$/,
  metadataCacheTtlMs: /^must be a non-negative integer$/,
  // What it got, never the text of a string given (it may be a real token with a typo).
  accessToken:
    /^must be a non-empty string of visible ASCII characters, or a function returning one; got (a number|an empty string|a string with other characters \(not shown\))$/,
  headers:
    /^(must be an object of header names to string values|is not a valid HTTP header name|must be a string without line breaks or characters beyond U\+00FF)$/,
};

function refused(run: () => unknown): ClaimsValidationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ClaimsValidationError);
    return error as ClaimsValidationError;
  }
  throw new Error('expected a ClaimsValidationError');
}

describe('client options refused', () => {
  it.each([
    ['timeoutMs above 2^31-1', { timeoutMs: MAX_TIMER_MS + 1 }, 'timeoutMs'],
    ['timeoutMs 0', { timeoutMs: 0 }, 'timeoutMs'],
    ['timeoutMs 1.5', { timeoutMs: 1.5 }, 'timeoutMs'],
    ['maxRetries -1', { maxRetries: -1 }, 'maxRetries'],
    ['maxRetries 1.5', { maxRetries: 1.5 }, 'maxRetries'],
    ['metadataCacheTtlMs -1', { metadataCacheTtlMs: -1 }, 'metadataCacheTtlMs'],
    ['a numeric token', { accessToken: 42 }, 'accessToken'],
    ['an empty token', { accessToken: '' }, 'accessToken'],
    ['a token with a line break', { accessToken: 'a\nb' }, 'accessToken'],
    ['null headers', { headers: null }, 'headers'],
    ['string headers', { headers: 'x-a: 1' }, 'headers'],
    ['a numeric header value', { headers: { 'x-a': 1 } }, 'headers.x-a'],
    ['a header value with a line break', { headers: { 'x-a': 'a\r\nb' } }, 'headers.x-a'],
    ['a header name with a space', { headers: { 'x a': 'v' } }, 'headers.x a'],
  ])('%s', (_name, bad, path) => {
    const error = refused(
      () =>
        new ClaimsClient({
          baseUrl: server.url,
          accessToken: 'tok',
          ...(bad as Partial<ClaimsClientOptions>),
        }),
    );
    expect(error.issues.map((i) => i.path)).toEqual([path]);
    // One wording for every list of issues: `<what>: path: message`.
    expect(error.message).toBe(`Invalid ClaimsClient options: ${path}: ${error.issues[0]?.message}`);
    expect(error.issues[0]?.message).toMatch(MESSAGES[path.split('.')[0] as string] as RegExp);
  });

  it('the limits themselves are accepted', () => {
    expect(
      () =>
        new ClaimsClient({
          baseUrl: server.url,
          accessToken: async () => 'x',
          timeoutMs: MAX_TIMER_MS,
          maxRetries: 0,
          metadataCacheTtlMs: 0,
          headers: {},
        }),
    ).not.toThrow();
    expect(() => new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', timeoutMs: 1 })).not.toThrow();
  });
});

describe('per-call options refused, nothing sent', () => {
  it.each([
    ['timeoutMs above 2^31-1', { timeoutMs: MAX_TIMER_MS + 1 }, 'options.timeoutMs'],
    ['deadlineMs 0', { deadlineMs: 0 }, 'options.deadlineMs'],
    ['maxRetries -1', { maxRetries: -1 }, 'options.maxRetries'],
    ['null headers', { headers: null }, 'options.headers'],
    ['string headers', { headers: 'x' }, 'options.headers'],
    ['a numeric header value', { headers: { 'x-a': 2 } }, 'options.headers.x-a'],
  ])('%s', async (_name, bad, path) => {
    const c = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    const error = await c.subscriptions.list(1, bad as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual([path]);
    expect((error as ClaimsValidationError).issues[0]?.message).toMatch(
      MESSAGES[path.split('.')[1] as string] as RegExp,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('the limits themselves are accepted', async () => {
    const c = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    await c.webhooks.update(1, { isActive: true }, { timeoutMs: MAX_TIMER_MS, maxRetries: 0, headers: {} });
    expect(server.requests).toHaveLength(1);
  });
});

describe('upload items refused, nothing sent', () => {
  it.each([
    ['an empty filename', { data: Buffer.from('x'), filename: '' }, /filename must be a non-empty string/],
    ['a numeric filename', { data: Buffer.from('x'), filename: 7 }, /filename must be a non-empty string/],
    ['an empty path', { path: '' }, /path must be a non-empty string/],
    ['a numeric path', { path: 5 }, /path must be a non-empty string/],
    ['an empty path string', '', /empty string/],
  ])('%s', async (_name, item, message) => {
    const c = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    const error = await c.attachments.upload(item as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    const issues = (error as ClaimsValidationError).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('files');
    expect(issues[0]?.message).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('in a list, the issue names the item', async () => {
    const c = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    const error = await c.attachments
      .upload([{ data: Buffer.from('x'), filename: 'ok.txt' }, { path: '' }] as never)
      .catch((e: unknown) => e);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual(['files[1]']);
    expect(server.requests).toHaveLength(0);
  });
});

describe('reserved headers refused, with why', () => {
  /** The whole message a caller reads for each header the SDK or the wire owns. */
  const WHY: Array<[string, string]> = [
    ['Host', 'is set from baseUrl'],
    ['Connection', 'is managed by the connection pool'],
    ['Keep-Alive', 'is managed by the connection pool'],
    ['Proxy-Connection', 'is managed by the connection pool'],
    ['Transfer-Encoding', 'is set by the SDK from the body'],
    ['Content-Length', 'is set by the SDK from the body'],
    ['TE', 'is a hop-by-hop header the SDK does not support'],
    ['Trailer', 'is a hop-by-hop header the SDK does not support'],
    ['Upgrade', 'is a hop-by-hop header the SDK does not support'],
    ['Expect', 'is not supported (the SDK does not wait for 100-continue)'],
    ['HTTP2-Settings', 'is a hop-by-hop header the SDK does not support'],
    [
      'Authorization',
      'is set by the SDK from accessToken (give a function there to choose the token per request)',
    ],
    [
      'Content-Type',
      'is set by the SDK from the body (application/json, or multipart/form-data for uploads)',
    ],
    ['Proxy-Authorization', 'is for proxies and set by the dispatcher'],
  ];

  it.each(WHY)('%s on the client', (name, why) => {
    const error = refused(
      () => new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', headers: { [name]: 'v' } }),
    );
    expect(error.issues).toEqual([
      { path: `headers.${name}`, message: `cannot be set: it ${why}`, code: 'reserved_header' },
    ]);
  });

  it.each(WHY)('%s on a call, nothing sent', async (name, why) => {
    const c = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    const error = await c.subscriptions.list(1, { headers: { [name]: 'v' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues).toEqual([
      { path: `options.headers.${name}`, message: `cannot be set: it ${why}`, code: 'reserved_header' },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('a header of the caller that only looks alike is sent as given', async () => {
    const c = new ClaimsClient({
      baseUrl: server.url,
      accessToken: 'tok',
      headers: { 'X-Proxy-Connection': 'a b\tc', 'Hosted-By': 'é' },
    });
    await c.subscriptions.list(1).catch(() => undefined);
    expect(server.requests[0]?.headers['x-proxy-connection']).toBe('a b\tc');
    expect(server.requests[0]?.headers['hosted-by']).toBe('é');
  });
});
