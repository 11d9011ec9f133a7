import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, type ClaimsClientOptions, ClaimsValidationError } from '../src/index.js';
import { event, incident, uuid } from './helpers/fixtures.js';
import {
  type RecordingServer,
  startRecordingServer,
  useRecordingServer,
} from './helpers/recording-server.js';

let server: RecordingServer;
let client: ClaimsClient;
beforeAll(async () => {
  server = await startRecordingServer();
  client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
});
afterAll(() => server.close());

type Call = (c: ClaimsClient) => Promise<unknown>;
// Deliberately malformed input, as untyped JavaScript callers could send it.
// biome-ignore lint/suspicious/noExplicitAny: the table feeds invalid shapes on purpose
const bad = (value: unknown): any => value;

/** [what, call, path named by an issue, words of its message] */
const cases: Array<[string, Call, string, RegExp]> = [
  [
    'incident without programmeCode',
    (c) => c.incidents.create(bad({ ...incident, programmeCode: undefined })),
    'programmeCode',
    /expected string/i,
  ],
  [
    'empty programmeCode',
    (c) => c.incidents.create({ ...incident, programmeCode: '' }),
    'programmeCode',
    /must not be empty/,
  ],
  [
    'policyCountry of 3 letters',
    (c) => c.incidents.create({ ...incident, policyCountry: 'GBR' }),
    'policyCountry',
    /2-letter country code/,
  ],
  [
    'policyCountry with a digit',
    (c) => c.incidents.create({ ...incident, policyCountry: 'G1' }),
    'policyCountry',
    /2-letter/,
  ],
  [
    'missing policyTypeCode',
    (c) => c.incidents.create(bad({ ...incident, policyTypeCode: undefined })),
    'policyTypeCode',
    /expected string/i,
  ],
  [
    'incidentDate with a time',
    (c) => c.incidents.create({ ...incident, incidentDate: '2026-01-31T10:00:00Z' }),
    'incidentDate',
    /YYYY-MM-DD/,
  ],
  [
    'incidentDate in day-first form',
    (c) => c.incidents.create({ ...incident, incidentDate: '31/01/2026' }),
    'incidentDate',
    /YYYY-MM-DD/,
  ],
  [
    'incidentDate that does not exist',
    (c) => c.incidents.create({ ...incident, incidentDate: '2026-02-30' }),
    'incidentDate',
    /^is not a real date: February 2026 has 28 days, got day 30$/,
  ],
  [
    'incidentDate with month 13',
    (c) => c.incidents.create({ ...incident, incidentDate: '2026-13-01' }),
    'incidentDate',
    /^is not a real date: there is no month 13$/,
  ],
  [
    'description a number',
    (c) => c.incidents.create(bad({ ...incident, description: 42 })),
    'description',
    /expected string/i,
  ],
  [
    'extendedFields not an array',
    (c) => c.incidents.create(bad({ ...incident, extendedFields: { a: 'b' } })),
    'extendedFields',
    /expected array/i,
  ],
  [
    'extended field without identifier',
    (c) => c.incidents.create(bad({ ...incident, extendedFields: [{ value: 'x' }] })),
    'extendedFields[0].identifier',
    /expected string/i,
  ],
  [
    'extended field value a number',
    (c) => c.incidents.create(bad({ ...incident, extendedFields: [{ identifier: 'f:A', value: 3 }] })),
    'extendedFields[0].value',
    /expected string/i,
  ],
  [
    'attachment with both attachmentId and url',
    (c) =>
      c.incidents.create({
        ...incident,
        attachments: [bad({ attachmentId: uuid, url: 'https://x.example/a.pdf' })],
      }),
    'attachments[0]',
    /exactly one of attachmentId, url or file, not attachmentId and url/,
  ],
  [
    'attachment with neither',
    (c) => c.incidents.create({ ...incident, attachments: [bad({ description: 'photo' })] }),
    'attachments[0]',
    /needs one of attachmentId, url or file/,
  ],
  [
    'attachmentId not a UUID',
    (c) => c.incidents.create({ ...incident, attachments: [{ attachmentId: 'file-1' }] }),
    'attachments[0].attachmentId',
    /must be a UUID/,
  ],
  [
    'relative attachment url',
    (c) => c.incidents.create({ ...incident, attachments: [{ url: '/files/a.pdf' }] }),
    'attachments[0].url',
    /absolute http\(s\) URL/,
  ],
  [
    'ftp attachment url',
    (c) => c.incidents.create({ ...incident, attachments: [{ url: 'ftp://files.example/a.pdf' }] }),
    'attachments[0].url',
    /http or https/,
  ],
  [
    'attachment url with credentials',
    (c) => c.incidents.create({ ...incident, attachments: [{ url: 'https://u:p@files.example/a.pdf' }] }),
    'attachments[0].url',
    /credentials/,
  ],
  [
    'attachment description a number',
    (c) =>
      c.incidents.create({ ...incident, attachments: [bad({ url: 'https://x.example/a', description: 1 })] }),
    'attachments[0].description',
    /expected string/i,
  ],
  ['incident body not an object', (c) => c.incidents.create(bad('incident')), '', /expected object/i],
  [
    'event without eventType',
    (c) => c.events.create('I-1', bad({ ...event, eventType: undefined })),
    'eventType',
    /expected string/i,
  ],
  [
    'event with empty category',
    (c) => c.events.create('I-1', { ...event, category: '' }),
    'category',
    /must not be empty/,
  ],
  ['event with empty incidentId', (c) => c.events.create('', event), 'incidentId', /must not be empty/],
  [
    'event attachment with a bad url',
    (c) => c.events.create('I-1', { ...event, attachments: [{ url: 'not a url' }] }),
    'attachments[0].url',
    /absolute http\(s\) URL/,
  ],
  [
    'non-numeric webhook id on update',
    (c) => c.webhooks.update(bad('abc'), { isActive: true }),
    'webhookId',
    /non-negative integer id/,
  ],
  [
    'negative webhook id',
    (c) => c.webhooks.update(-1, { isActive: true }),
    'webhookId',
    /non-negative integer id/,
  ],
  ['fractional webhook id', (c) => c.subscriptions.list(1.5), 'webhookId', /non-negative integer id/],
  ['empty webhook patch', (c) => c.webhooks.update(1, {}), '', /is empty/],
  [
    'webhook url not http(s)',
    (c) => c.webhooks.update(1, { url: 'mailto:ops@example.com' }),
    'url',
    /http or https/,
  ],
  [
    'webhook headerName with a space',
    (c) => c.webhooks.update(1, { headerName: 'X Secret' }),
    'headerName',
    /valid HTTP header name/,
  ],
  [
    'webhook isActive a string',
    (c) => c.webhooks.update(1, bad({ isActive: 'false' })),
    'isActive',
    /expected boolean/i,
  ],
  [
    'subscription without webhookEvent',
    (c) => c.subscriptions.create(1, bad({ name: 'n' })),
    'webhookEvent',
    /expected string/i,
  ],
  [
    'subscription filters without fields',
    (c) => c.subscriptions.create(1, bad({ webhookEvent: 'New Event', filters: {} })),
    'filters.fields',
    /expected array/i,
  ],
  [
    'subscription filter without operator',
    (c) =>
      c.subscriptions.create(
        1,
        bad({ webhookEvent: 'New Event', filters: { fields: [{ name: 'category', value: 'Other' }] } }),
      ),
    'filters.fields[0].operator',
    /expected string/i,
  ],
  [
    'non-numeric subscription id',
    (c) => c.subscriptions.update(1, bad('x1'), { isActive: false }),
    'subscriptionId',
    /non-negative integer id/,
  ],
  ['empty subscription patch', (c) => c.subscriptions.update(1, 2, {}), '', /is empty/],
  [
    'metadata query without countryCode',
    (c) => c.metadata.incidentFields(bad({ programmeCode: 'P', policyTypeCode: 'T' })),
    'query.countryCode',
    /expected string/i,
  ],
  ['upload of an empty list', (c) => c.attachments.upload([]), 'files', /at least one file/],
  [
    'upload item of the wrong shape',
    (c) => c.attachments.upload(bad([{ bytes: 'x' }])),
    'files[0]',
    /file path/,
  ],
];

describe('bad input is rejected before anything is sent', () => {
  it('has at least 25 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  it.each(cases)('%s', async (_what, call, path, words) => {
    const error = await call(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    const issues = (error as ClaimsValidationError).issues;
    const issue = issues.find((i) => i.path === path);
    expect(issue, `issues: ${JSON.stringify(issues)}`).toBeDefined();
    expect(issue?.message).toMatch(words);
    expect((error as Error).message).toContain(issue?.message);
    expect(server.requests).toHaveLength(0);
  });

  it('lists every issue at once', async () => {
    const error = (await client.incidents
      .create(bad({ programmeCode: '', policyCountry: 'GBR', incidentDate: 'soon', description: 'x' }))
      .catch((e: unknown) => e)) as ClaimsValidationError;
    expect(error.issues.map((i) => i.path)).toEqual([
      'programmeCode',
      'policyCountry',
      'policyTypeCode',
      'incidentDate',
    ]);
    expect(server.requests).toHaveLength(0);
  });
});

/**
 * Options and inputs that are refused before anything is sent: a ClaimsValidationError naming
 * the option (its issue path), and no request on the wire. The accepted limits are checked too,
 * so that a check made stricter by mistake fails as well.
 */
describe('options and inputs refused before anything is sent', () => {
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
});
