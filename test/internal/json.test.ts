/**
 * Ids past 2^53 stay exact: in answers (parsed losslessly, on both wires) and as path
 * parameters (digit strings sent as given, rounded numbers refused before anything is sent).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsValidationError } from '../../src/index.js';
import { parseJsonLossless, quoteInexactNumbers } from '../../src/internal/json.js';
import { type FaultServer, httpFaultServer, TOKEN, WIRES } from '../faults/fault-server.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Integers around and far past 2^53, either sign. */
const bigIntegerArb = fc.oneof(
  fc.bigInt({ min: -(MAX_SAFE + 1000n), max: MAX_SAFE + 1000n }),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
);

describe('parseJsonLossless', () => {
  it('keeps every integer exact: a safe one as a number, any other as the string of its digits', () => {
    fc.assert(
      fc.property(fc.array(bigIntegerArb, { maxLength: 6 }), fc.string(), (ids, text) => {
        const json = `{"ids":[${ids.join(',')}],"text":${JSON.stringify(text)},"n":${ids[0] ?? 0}}`;
        const parsed = parseJsonLossless(json) as { ids: unknown[]; text: string };
        expect(parsed.ids).toEqual(
          ids.map((id) => (id >= -MAX_SAFE && id <= MAX_SAFE ? Number(id) : String(id))),
        );
        expect(parsed.text).toBe(text);
      }),
    );
  });

  it('parses exactly as JSON.parse when no integer is unsafe (strings of digits and floats included)', () => {
    fc.assert(
      fc.property(fc.json(), (json) => {
        const hasUnsafe = /(?<![\d.eE"])-?\d{16,}(?![\d.eE])/.test(json);
        fc.pre(!hasUnsafe);
        expect(parseJsonLossless(json)).toEqual(JSON.parse(json));
      }),
    );
    const digits = '{"s":"12345678901234567890","f":1.2345678901234567e+25,"g":12345678901234567890.5}';
    expect(parseJsonLossless(digits)).toEqual(JSON.parse(digits));
  });

  it('leaves text that is not JSON not JSON', () => {
    for (const text of ['{"a":0012345678901234567}', '{"a":1234567890123456789', 'x12345678901234567890']) {
      expect(() => parseJsonLossless(text)).toThrow(SyntaxError);
    }
    expect(quoteInexactNumbers('{"a":"\\"9007199254740993"}')).toBe('{"a":"\\"9007199254740993"}');
  });
});

describe.each(WIRES)('$name: ids past 2^53', (wire) => {
  let server: FaultServer;
  let answer = '';

  beforeAll(async () => {
    server = await httpFaultServer((_hit, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
  afterAll(() => server.close());

  const client = (): ClaimsClient =>
    new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0, ...wire.options });

  it('resolve exactly in subscriptions.create, subscriptions.list and incidents.create', async () => {
    answer = '{"subscriptionId": 9007199254740993}';
    await expect(client().subscriptions.create(1, { webhookEvent: 'New Event' })).resolves.toEqual({
      subscriptionId: '9007199254740993',
    });
    answer =
      '[{"webhookSubscriptionId":18446744073709551617,"webhookId":9007199254740995,"webhookEvent":"New Event","isActive":true},' +
      '{"webhookSubscriptionId":7,"webhookId":9007199254740991,"webhookEvent":"New Event","isActive":false}]';
    const list = await client().subscriptions.list('9007199254740995');
    expect(list.map((s) => [s.webhookSubscriptionId, s.webhookId])).toEqual([
      ['18446744073709551617', '9007199254740995'],
      [7, 9007199254740991],
    ]);
    answer = '{"incidentId": 12345678901234567891}';
    const { incidentId } = await client().incidents.create({
      programmeCode: 'P',
      policyCountry: 'GB',
      policyTypeCode: 'T',
      incidentDate: '2026-01-02',
      description: 'd',
    });
    expect(incidentId).toBe('12345678901234567891');
  });

  it('as path parameters: any digit string is sent exactly, as the answer gave it', async () => {
    answer = '';
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^\d{1,40}$/), fc.stringMatching(/^\d{1,40}$/), async (w, s) => {
        server.hits.length = 0;
        await client().subscriptions.update(w, s, { isActive: true });
        expect(server.hits.map((h) => h.path)).toEqual([`/webhooks/${w}/subscriptions/${s}`]);
      }),
      { numRuns: 40 },
    );
  });

  it('as path parameters: a number past 2^53 is refused and nothing is sent', async () => {
    server.hits.length = 0;
    // What `JSON.parse` makes of the id 9007199254740993: it was already rounded.
    const rounded = Number(9007199254740993n);
    const error = await client()
      .webhooks.update(rounded, { isActive: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues[0]).toMatchObject({ path: 'webhookId' });
    expect((error as Error).message).toMatch(/beyond Number\.MAX_SAFE_INTEGER.*as a string of digits/);
    await expect(client().subscriptions.list(2 ** 60)).rejects.toBeInstanceOf(ClaimsValidationError);
    expect(server.hits).toHaveLength(0);
  });
});

/**
 * The lossless JSON scan leaves every float alone, however many digits its fraction or
 * exponent has: a mutation of the scan's float skipping (src/internal/json.ts) once got past.
 */
const FLOATS = [
  '1.5e+10000000000000000',
  '1.5E-10000000000000000',
  '1e-10000000000000000',
  '2E+10000000000000000',
  '-1.25e+10000000000000000',
  '12345678901234567.5',
  '0.12345678901234567890',
  '-0.5e-12345678901234567',
];

describe('quoteInexactNumbers', () => {
  it.each(FLOATS)('leaves the float %s as it is, and parses it as JSON.parse does', (float) => {
    const text = `{"f":${float},"g":[${float}]}`;
    expect(quoteInexactNumbers(text)).toBe(text);
    expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
  });

  it('still quotes an unsafe integer after a float', () => {
    expect(quoteInexactNumbers('[1.5e+10000000000000000,9007199254740993]')).toBe(
      '[1.5e+10000000000000000,"9007199254740993"]',
    );
  });
});

describe('parseJsonLossless: where a number stands', () => {
  it('a number where a key belongs stays no JSON, whatever stands between it and its colon', () => {
    for (const text of [
      '{12345678901234567890:1}',
      '{"a":1,-12345678901234567890 \t\r\n:2}',
      '{"id":1.0,12345678901234567890:2}',
    ]) {
      expect(() => parseJsonLossless(text), text).toThrow(SyntaxError);
    }
    // Before any other character, a number is a value: quoted as ever.
    expect(parseJsonLossless('[12345678901234567890 \n,1]')).toEqual(['12345678901234567890', 1]);
    expect(parseJsonLossless('{"n":12345678901234567890 }')).toEqual({ n: '12345678901234567890' });
  });

  it('a number that is the whole text is no id: a float parses as JSON.parse gives it', () => {
    for (const text of ['12345678901234567.5', ' 0.12345678901234567890', '-1.5e+10000000000000000']) {
      expect(parseJsonLossless(text), text).toBe(JSON.parse(text));
    }
    expect(parseJsonLossless('12345678901234567890')).toBe('12345678901234567890');
  });

  it('an id-like string that is a value makes no id of the number after it', () => {
    // The id float after it makes the scan run.
    expect(parseJsonLossless('{"ids":["incidentId",1.0,"x_id" , 2.50],"id":1.5e300}')).toEqual({
      ids: ['incidentId', 1, 'x_id', 2.5],
      id: '1.5e300',
    });
  });
});

describe('parseJsonLossless: ids', () => {
  it('an id-like key ends with Id, ID, or is id after a separator: no other key is read as one', () => {
    // The unsafe integer at the end makes the scan run.
    const text =
      '{"ids":1.0,"IDs":1.0,"userIds":1.50,"idle":2.0,"Identity":1e2,"id_x":-0,"n":12345678901234567890}';
    expect(parseJsonLossless(text)).toEqual({ ...JSON.parse(text), n: '12345678901234567890' });
  });

  it('an unsafe integer under an id key is its digits too, even one JavaScript writes as sent', () => {
    // 2^53: String(Number(literal)) gives it back, yet it is not safe (2^53 + 1 parses to it).
    expect(parseJsonLossless('{"id":9007199254740992,"incidentId":10000000000000000}')).toEqual({
      id: '9007199254740992',
      incidentId: '10000000000000000',
    });
    expect(parseJsonLossless('{"id":9007199254740991}')).toEqual({ id: 9007199254740991 });
  });

  it('an id key spelled with escapes is an id key, as JSON.parse reads it', () => {
    expect(parseJsonLossless('{"i\\u0064":1.50}')).toEqual({ id: '1.50' });
    expect(parseJsonLossless('{"\\u0069\\u0064":-0}')).toEqual({ id: '-0' });
    expect(parseJsonLossless('{"incident\\u0049\\u0044": 1e2}')).toEqual({ incidentID: '1e2' });
    expect(parseJsonLossless('{"incidentI\\u0064":1.0,"n":12345678901234567890}')).toEqual({
      incidentId: '1.0',
      n: '12345678901234567890',
    });
    // An escape early in a long key, and one that is no id: read as before.
    expect(parseJsonLossless('{"\\u0061 long key ending in incidentId":1.0}')).toEqual({
      'a long key ending in incidentId': '1.0',
    });
    expect(parseJsonLossless('{"i\\u0065":1.50,"n":12345678901234567890}')).toEqual({
      ie: 1.5,
      n: '12345678901234567890',
    });
    // An escape cut short: no JSON, with JSON.parse's own words (the unsafe integer makes the
    // scan read the key).
    const cut = '{"i\\u00":1.0,"n":12345678901234567890}';
    const said = (() => {
      try {
        JSON.parse(cut);
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(() => parseJsonLossless(cut)).toThrow(new SyntaxError(said));
  });

  it('an id that is no JSON number stays no JSON', () => {
    for (const literal of ['00.5', '01.5', '-01', '1.0.0', '1.', '1e+', '1e5e5', '-', '--1']) {
      const text = `{"id":${literal}}`;
      expect(() => parseJsonLossless(text), text).toThrow(SyntaxError);
    }
  });
});
