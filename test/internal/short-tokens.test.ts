/**
 * A very short token (`t`, `test`) is redacted where it stands alone, not out of ordinary
 * words (`Valida[REDACTED]ion failed`): #19.4. A token of 16 characters or more is redacted
 * wherever it appears, glued to letters or not (no random token that long is part of a word).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsApiError, ClaimsClient } from '../../src/index.js';
import { REDACTED, Redactor, STANDALONE_BELOW } from '../../src/internal/redact.js';
import { type FaultServer, httpFaultServer, WIRES } from '../faults/fault-server.js';

const letters = fc.string({ unit: fc.constantFrom(...'abcXYZé_0123456789'), minLength: 1, maxLength: 4 });
const shortToken = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-._~+/='),
  minLength: 1,
  maxLength: STANDALONE_BELOW - 1,
});
const longToken = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-._~+/='),
  minLength: STANDALONE_BELOW,
  maxLength: 40,
});
/** What may stand right before a token that stands alone: separators and escapes of them. */
const before = fc.constantFrom(
  '',
  ' ',
  '"',
  '=',
  ':',
  '(',
  'Bearer ',
  'Bearer%20',
  'Bearer+',
  '\\u0020',
  '\\n',
  '\t',
  '[',
);
const after = fc.constantFrom('', ' ', '"', '&', ';', ')', '.', ',', '%20', '\\u0022', '\n', ']');

describe('a short token', () => {
  it('is redacted where it stands alone, in every spelling', () => {
    fc.assert(
      fc.property(shortToken, before, after, fc.boolean(), (token, b, a, encoded) => {
        fc.pre(/^[\p{L}\p{N}_]/u.test(token) || b === '' || !/[\p{L}\p{N}_]$/u.test(b));
        // Separators that share no character with the token, so the one occurrence is the token.
        fc.pre(![...token].some((c) => `${b}${a}`.includes(c)));
        const spelled = encoded ? encodeURIComponent(token) : token;
        const text = `« ${b}${spelled}${a} »`;
        expect(new Redactor(token).text(text)).toBe(`« ${b}${REDACTED}${a} »`);
      }),
      { numRuns: 1_000 },
    );
  });

  it('is left in a word it is part of', () => {
    fc.assert(
      fc.property(
        shortToken,
        letters,
        letters,
        fc.constantFrom('left', 'right', 'both'),
        (token, l, r, where) => {
          const glued = `${where === 'right' ? '' : l}${token}${where === 'left' ? '' : r}`;
          // Glued to a word character on a side where the token itself has one at its edge.
          fc.pre(
            (where !== 'right' && /^[\p{L}\p{N}_]/u.test(token)) ||
              (where !== 'left' && /[\p{L}\p{N}_]$/u.test(token)),
          );
          expect(new Redactor(token).text(`say ${glued} please`)).toContain(` ${glued} `);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['t', 'Validation failed for the latest claim', 'Validation failed for the latest claim'],
    ['test', 'testing the latest test-case: test.', 'testing the latest [REDACTED]-case: [REDACTED].'],
    ['t', 'token=t&other=tt', 'token=[REDACTED]&other=tt'],
    [
      'abc',
      '{"message":"abc"} xabc abcx _abc abc_ éabc',
      '{"message":"[REDACTED]"} xabc abcx _abc abc_ éabc',
    ],
  ])('%j in %j', (token, text, expected) => {
    expect(new Redactor(token).text(text)).toBe(expected);
  });
});

describe('a token of 16 characters or more', () => {
  it('is redacted wherever it appears, even glued to letters', () => {
    fc.assert(
      fc.property(longToken, letters, letters, (token, l, r) => {
        expect(new Redactor(token).text(`${l}${token}${r}`)).toBe(`${l}${REDACTED}${r}`);
      }),
      { numRuns: 300 },
    );
  });
});

describe.each(WIRES)('$name: a client with the token "t"', (wire) => {
  let server: FaultServer;
  beforeAll(async () => {
    server = await httpFaultServer((_hit, req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          message: `Validation failed: the latest attempt sent ${String(req.headers.authorization)}`,
        }),
      );
    });
  });
  afterAll(() => server.close());

  it('keeps the words of an error whole, and redacts the token the server echoed', async () => {
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: 't', ...wire.options });
    const error = (await client.subscriptions.list(1).catch((e: unknown) => e)) as ClaimsApiError;
    expect(error).toBeInstanceOf(ClaimsApiError);
    expect(error.message).toMatch(/: Validation failed: the latest attempt sent Bearer \[REDACTED\]$/);
    expect(error.body).toEqual({ message: 'Validation failed: the latest attempt sent Bearer [REDACTED]' });
  });
});
