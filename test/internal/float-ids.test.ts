/**
 * An id the server wrote as a float (`1.5e300`, `7.0`, `-0`) is kept exactly as it was written
 * (#19.4), on the hand-written fast parse and through zod alike, on every wire; any other
 * number parses as `JSON.parse` gives it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIncidentCreated } from '../../src/checks/incident-created.js';
import { ClaimsClient } from '../../src/index.js';
import { parseJsonLossless } from '../../src/internal/json.js';
import { ReturnedNumericId } from '../../src/schemas/common.js';
import { IncidentCreatedSchema } from '../../src/schemas/incidents.js';
import { type FaultServer, httpFaultServer, TOKEN, WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

/** JSON number literals JavaScript writes differently (and some it writes the same). */
const numberLiteral = fc.oneof(
  fc.constantFrom('1.5e300', '1.5E300', '1.50', '7.0', '-0', '1e3', '0.1', '1.5', '12', '-7', '1e-7', '1E+2'),
  fc
    .tuple(
      fc.integer({ min: -999, max: 999 }),
      fc.option(fc.stringMatching(/^\d{1,4}$/), { nil: undefined }),
      fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 })),
        {
          nil: undefined,
        },
      ),
    )
    .map(
      ([int, fraction, exponent]) =>
        `${int}${fraction === undefined ? '' : `.${fraction}`}${exponent ? exponent.join('') : ''}`,
    ),
);
const idKey = fc.constantFrom(
  'id',
  'ID',
  'Id',
  'incidentId',
  'eventId',
  'webhookID',
  'incident_id',
  'subscriptionId',
);
const otherKey = fc.constantFrom('amount', 'paid', 'valid', 'maxLength', 'ids', 'idle', 'Identity', 'x');

describe('parseJsonLossless', () => {
  it("keeps an id's number as the server wrote it when JavaScript would write it otherwise", () => {
    fc.assert(
      fc.property(idKey, numberLiteral, (key, literal) => {
        const parsed = parseJsonLossless(`{"other":1,"${key}" : ${literal},"z":[${literal}]}`) as Record<
          string,
          unknown
        >;
        const value = Number(literal);
        expect(parsed[key]).toEqual(String(value) === literal ? value : literal);
        // The same literal elsewhere is a number, as JSON.parse gives it.
        expect(parsed.z).toEqual([JSON.parse(literal)]);
      }),
      { numRuns: 1_000 },
    );
  });

  it('leaves every other key as JSON.parse does', () => {
    fc.assert(
      fc.property(otherKey, numberLiteral, (key, literal) => {
        const text = `{"${key}":${literal}}`;
        expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('reads the key only: an id in a string, or a key inside a value, changes nothing', () => {
    expect(parseJsonLossless('{"a":"incidentId","b":1.0}')).toEqual({ a: 'incidentId', b: 1 });
    expect(parseJsonLossless('{"note":"x\\"id\\": 1.0","n":1.50}')).toEqual({ note: 'x"id": 1.0', n: 1.5 });
    expect(parseJsonLossless('[{"incidentId":[1.0]}]')).toEqual([{ incidentId: [1] }]);
    expect(parseJsonLossless('{"incidentId":1.0e0,"eventId":-0,"id":1.5e300}')).toEqual({
      incidentId: '1.0e0',
      eventId: '-0',
      id: '1.5e300',
    });
  });
});

describe('an incident id answered as a float', () => {
  it('the fast parse and the zod schema give the same string', () => {
    for (const literal of ['1.5e300', '7.0', '12']) {
      const parsed = parseJsonLossless(`{"incidentId":${literal},"extra":true}`);
      const expected = { incidentId: literal, extra: true };
      expect(parseIncidentCreated(parsed)).toEqual(expected);
      expect(IncidentCreatedSchema.safeParse(parsed)).toEqual({ success: true, data: expected });
    }
  });

  it('a numeric id answered as a float is accepted, kept as sent', () => {
    expect(ReturnedNumericId.safeParse('1.5e300')).toEqual({ success: true, data: '1.5e300' });
    expect(ReturnedNumericId.safeParse('1.5x')).toMatchObject({ success: false });
  });
});

describe.each(WIRES)('$name: ids as the server wrote them', (wire) => {
  let server: FaultServer;
  let answer = '';
  beforeAll(async () => {
    server = await httpFaultServer((_hit, _req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
  afterAll(() => server.close());
  const client = () =>
    new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0, ...wire.options });

  it('incidents.create and subscriptions.create', async () => {
    answer = '{"incidentId": 1.5e300}';
    await expect(client().incidents.create(incident, { checkExtendedFields: false })).resolves.toEqual({
      incidentId: '1.5e300',
    });
    answer = '{"subscriptionId": 1.5e300, "amount": 1.50}';
    await expect(client().subscriptions.create(1, { webhookEvent: 'New Event' })).resolves.toEqual({
      subscriptionId: '1.5e300',
      amount: 1.5,
    });
  });
});
