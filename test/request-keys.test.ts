/**
 * The request types are exact (a misspelt field does not compile); these tests are for what
 * plain JavaScript, or a cast, can still send: a top-level key close to a documented one is
 * refused before sending, naming the documented key; one far from every documented key is
 * passed on; `extraBody` is the explicit way to send an undocumented field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsValidationError } from '../src/index.js';
import { nearTypoOf } from '../src/schemas/near-typos.js';
import { event, incident } from './helpers/fixtures.js';
import { json, useRecordingServer } from './helpers/recording-server.js';

const server = useRecordingServer();
const client = () => new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', maxRetries: 0 });
// What an untyped caller sends; the compile-time refusal is in test/types/request-types.test-d.ts.
// biome-ignore lint/suspicious/noExplicitAny: these bodies are wrong on purpose
const untyped = (value: unknown): any => value;

type Call = (c: ClaimsClient, extra: Record<string, unknown>) => Promise<unknown>;
/** [call, misspelt key, documented key it is close to] */
const typos: Array<[string, Call, string, string]> = [
  [
    'incidents.create',
    (c, x) => c.incidents.create(untyped({ ...incident, ...x })),
    'extendedFeilds',
    'extendedFields',
  ],
  [
    'incidents.create',
    (c, x) => c.incidents.create(untyped({ ...incident, ...x })),
    'atachments',
    'attachments',
  ],
  [
    'incidents.create',
    (c, x) => c.incidents.create(untyped({ ...incident, ...x })),
    'PolicyCountry',
    'policyCountry',
  ],
  ['events.create', (c, x) => c.events.create('INC-1', untyped({ ...event, ...x })), 'categroy', 'category'],
  [
    'events.create',
    (c, x) => c.events.create('INC-1', untyped({ ...event, ...x })),
    'eventtype',
    'eventType',
  ],
  ['webhooks.update', (c, x) => c.webhooks.update(1, untyped(x)), 'isActve', 'isActive'],
  ['webhooks.update', (c, x) => c.webhooks.update(1, untyped(x)), 'headerNme', 'headerName'],
  [
    'subscriptions.create',
    (c, x) => c.subscriptions.create(1, untyped({ webhookEvent: 'New Event', ...x })),
    'filter',
    'filters',
  ],
  ['subscriptions.update', (c, x) => c.subscriptions.update(12, 34, untyped(x)), 'isActve', 'isActive'],
  [
    'subscriptions.update',
    (c, x) => c.subscriptions.update(12, 34, untyped(x)),
    'webhookEvnt',
    'webhookEvent',
  ],
];

describe('near-typo keys are refused before sending', () => {
  it.each(typos)('%s with %s → did you mean %s', async (_call, call, typo, meant) => {
    const error = await call(client(), { [typo]: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    const issue = (error as ClaimsValidationError).issues.find((i) => i.path === typo);
    expect(issue?.message).toContain(`did you mean "${meant}"?`);
    expect((error as Error).message).toContain(
      `${typo}: is not a documented field; did you mean "${meant}"?`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('reports a misspelt required field both as missing and as the typo', async () => {
    const { incidentDate, ...rest } = incident;
    const error = (await client()
      .incidents.create(untyped({ ...rest, incidentDat: incidentDate }))
      .catch((e: unknown) => e)) as ClaimsValidationError;
    expect(error.issues.map((i) => i.path)).toEqual(['incidentDate', 'incidentDat']);
    expect(server.requests).toHaveLength(0);
  });

  it('{ isActve: false } on subscriptions.update no longer resolves having changed nothing', async () => {
    const error = await client()
      .subscriptions.update(12, 34, untyped({ isActve: false }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('undocumented keys far from every documented one', () => {
  it('are passed on as sent', async () => {
    server.handle((_r, res) => json(res, 201, { incidentId: 'INC-1' }));
    await client().incidents.create(untyped({ ...incident, brokerReference: 'BR-1182' }));
    expect(server.requests[0]?.json).toEqual({ ...incident, brokerReference: 'BR-1182' });
  });
});

describe('extraBody: the explicit way to send undocumented fields', () => {
  it('merges its fields into the top level of every body-sending call', async () => {
    server.handle((_r, res) => json(res, 201, { incidentId: 'INC-1', subscriptionId: 5 }));
    const c = client();
    // Near a documented key, yet sent: extraBody says it is meant.
    const extraBody = { isActivated: true, channel: 'broker-portal' };
    await c.incidents.create(incident, { extraBody });
    await c.events.create('INC-1', event, { extraBody });
    await c.webhooks.update(1, { isActive: true }, { extraBody });
    await c.subscriptions.create(1, { webhookEvent: 'New Event' }, { extraBody });
    await c.subscriptions.update(1, 5, { name: 'n' }, { extraBody });
    expect(server.requests.map((r) => r.json)).toEqual([
      { ...incident, ...extraBody },
      { ...event, ...extraBody },
      { isActive: true, ...extraBody },
      { webhookEvent: 'New Event', ...extraBody },
      { name: 'n', ...extraBody },
    ]);
  });

  it('refuses a documented key (it belongs in the body, where it is checked) and sends nothing', async () => {
    const error = (await client()
      .incidents.create(incident, { extraBody: { description: 'other', note: 'x' } })
      .catch((e: unknown) => e)) as ClaimsValidationError;
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(error.issues).toEqual([
      {
        path: 'extraBody.description',
        message: 'is a documented field: give it in the body, where it is checked, not in extraBody',
      },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an extraBody that is not a plain object', async () => {
    const error = (await client()
      .webhooks.update(1, { isActive: true }, { extraBody: untyped(['x']) })
      .catch((e: unknown) => e)) as ClaimsValidationError;
    expect(error.issues[0]?.path).toBe('extraBody');
    expect(server.requests).toHaveLength(0);
  });
});

describe('nearTypoOf', () => {
  const documented = ['programmeCode', 'policyCountry', 'extendedFields', 'url', 'isActive'];

  it('finds the documented key within a third of its length, case ignored', () => {
    expect(nearTypoOf('extendedFeilds', documented)).toBe('extendedFields');
    expect(nearTypoOf('ISACTIVE', documented)).toBe('isActive');
    expect(nearTypoOf('uri', documented)).toBe('url');
    expect(nearTypoOf('isActive', documented)).toBeUndefined();
    expect(nearTypoOf('brokerReference', documented)).toBeUndefined();
    expect(nearTypoOf('id', documented)).toBeUndefined();
  });

  it('refuses every single-edit misspelling of a documented key of 3 or more letters', () => {
    const key = fc.constantFrom(...documented);
    const edit = fc.tuple(
      key,
      fc.nat(),
      fc.constantFrom('delete', 'insert', 'replace', 'swap'),
      fc.constantFrom('q', 'z', 'x'),
    );
    fc.assert(
      fc.property(edit, ([k, at, kind, letter]) => {
        const i = at % k.length;
        const typo =
          kind === 'delete'
            ? k.slice(0, i) + k.slice(i + 1)
            : kind === 'insert'
              ? k.slice(0, i) + letter + k.slice(i)
              : kind === 'replace'
                ? k.slice(0, i) + letter + k.slice(i + 1)
                : i + 1 < k.length
                  ? k.slice(0, i) + (k[i + 1] ?? '') + (k[i] ?? '') + k.slice(i + 2)
                  : `${k}${letter}`;
        if (typo === k) return;
        expect(nearTypoOf(typo, documented)).toBe(k);
      }),
      { numRuns: 300 },
    );
  });
});
