import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsValidationError } from '../src/index.js';
import { event, incident, uuid } from './helpers/fixtures.js';
import { type RecordingServer, startRecordingServer } from './helpers/recording-server.js';

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
