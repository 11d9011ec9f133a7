/**
 * How a caller's value is quoted in a validation message (src/internal/quote.ts), read from a
 * real refusal: a webhook id that is not one. Strings are JSON-quoted after cutting (so the
 * closing quote stays), other values JSON-written, bigints with their `n`; anything longer
 * than 200 characters (MAX_QUOTED) is cut to 199 and `…`, never through a surrogate pair.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsValidationError } from '../../src/index.js';
import { MAX_QUOTED } from '../../src/internal/quote.js';
import { useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();

/** The quoted value in the message refusing `id` as a webhook id; nothing is sent. */
async function quotedId(id: unknown): Promise<string> {
  const c = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
  const error = await c.subscriptions.list(id as never).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ClaimsValidationError);
  const issues = (error as ClaimsValidationError).issues;
  expect(issues.map((i) => i.path)).toEqual(['webhookId']);
  const prefix = 'must be a non-negative integer id, got ';
  const message = issues[0]?.message ?? '';
  expect(message.startsWith(prefix)).toBe(true);
  expect(server.requests).toHaveLength(0);
  return message.slice(prefix.length);
}

const circular: Record<string, unknown> = {};
circular.self = circular;

describe('a value quoted in a message', () => {
  it.each<[string, unknown, string]>([
    ['a string, JSON-quoted', 'abc', '"abc"'],
    ['a string with a line break and quotes, escaped', 'a\n"b"', '"a\\n\\"b\\""'],
    ['a bigint, with its n', -12n, '-12n'],
    ['an object, as JSON', { id: 1 }, '{"id":1}'],
    ['an array, as JSON', [1, 'x'], '[1,"x"]'],
    ['a boolean', true, 'true'],
    ['null', null, 'null'],
    ['a symbol (no JSON form), as a string', Symbol('s'), 'Symbol(s)'],
    ['an object JSON cannot write (a cycle)', circular, '[object Object]'],
    ['an object holding a bigint', { id: 1n }, '[object Object]'],
  ])('%s', async (_what, value, shown) => {
    expect(await quotedId(value)).toBe(shown);
  });
});

const M = MAX_QUOTED;

describe('a long value cut to MAX_QUOTED (200) characters', () => {
  it('is 200', () => {
    expect(MAX_QUOTED).toBe(200);
  });

  it('200 characters are quoted whole', async () => {
    expect(await quotedId('x'.repeat(M))).toBe(`"${'x'.repeat(M)}"`);
  });

  it('201 are cut to 199 and an ellipsis, inside the quotes', async () => {
    expect(await quotedId('x'.repeat(M + 1))).toBe(`"${'x'.repeat(M - 1)}…"`);
  });

  it('a long bigint is cut before its n', async () => {
    expect(await quotedId(10n ** 250n)).toBe(`1${'0'.repeat(M - 2)}…n`);
  });

  it('a long object is cut after JSON-writing (no closing quote added)', async () => {
    const value = { text: 'y'.repeat(M + 20) };
    expect(await quotedId(value)).toBe(`${JSON.stringify(value).slice(0, M - 1)}…`);
  });

  it.each<[string, string]>([
    ['U+1F600', '\u{1F600}'],
    ['the first pair, U+10000', '\u{10000}'],
    ['the last pair, U+10FFFF', '\u{10FFFF}'],
  ])('a surrogate pair (%s) across the cut is dropped whole, not split', async (_name, pair) => {
    // Its high half is the 199th character: keeping it would leave a lone surrogate.
    expect(await quotedId(`${'a'.repeat(M - 2)}${pair}${'b'.repeat(10)}`)).toBe(`"${'a'.repeat(M - 2)}…"`);
  });

  it('a pair that ends right at the cut is kept whole', async () => {
    expect(await quotedId(`${'a'.repeat(M - 3)}\u{1F600}${'b'.repeat(10)}`)).toBe(
      `"${'a'.repeat(M - 3)}\u{1F600}…"`,
    );
  });

  it('a pair that starts past the cut is not kept, and the cut stays at 199', async () => {
    expect(await quotedId(`${'a'.repeat(M)}\u{1F600}`)).toBe(`"${'a'.repeat(M - 1)}…"`);
  });
});
