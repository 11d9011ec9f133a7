/**
 * The token never leaves the SDK, in whatever spelling a server echoes it: raw, JSON-escaped
 * (`\u002B`, `\/`, any mix), URL-encoded (either hex case, form encoding), in a 4xx or a 2xx
 * body, in a header of any name; nor in any log line. Tried as a property on a real server,
 * on both wires.
 */
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsConnectionError, type Logger } from '../../src/index.js';
import { REDACTED, Redactor, redactorFor } from '../../src/internal/redact.js';
import { type FaultServer, httpFaultServer, WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

/** Visible ASCII, with the characters escapers treat specially drawn more often. */
const tokenChar = fc.oneof(
  fc.constantFrom('+', '/', '=', '"', '\\', '%', '&', '<', "'"),
  fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
);
/** A token as an API gives one: 12 to 48 visible ASCII characters. */
const tokenArb = fc.string({ unit: tokenChar, minLength: 12, maxLength: 48 });

const hex = (code: number, width: number, upper: boolean): string => {
  const text = code.toString(16).padStart(width, '0');
  return upper ? text.toUpperCase() : text;
};

/** Ways a server may spell the token inside a JSON string literal (already escaped as JSON needs). */
type JsonSpelling = 'json' | 'json-slash' | 'json-u-random' | 'json-u-all';
/** Ways a server may spell the token in text or a header. */
type TextSpelling = 'raw' | 'uri' | 'uri-lower' | 'form';

function spellInJson(token: string, how: JsonSpelling, coin: boolean[]): string {
  const plain = JSON.stringify(token).slice(1, -1);
  if (how === 'json') return plain;
  if (how === 'json-slash') return plain.replaceAll('/', '\\/');
  return Array.from(token, (char, i) => {
    const asUnicode = how === 'json-u-all' || coin[i % coin.length];
    if (asUnicode) return `\\u${hex(char.charCodeAt(0), 4, coin[(i + 1) % coin.length] ?? false)}`;
    return JSON.stringify(char).slice(1, -1).replace('/', '\\/');
  }).join('');
}

function spellInText(token: string, how: TextSpelling): string {
  if (how === 'raw') return token;
  if (how === 'uri') return encodeURIComponent(token);
  if (how === 'uri-lower') return encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  return new URLSearchParams({ t: token }).toString().slice(2);
}

const echoArb = fc.record({
  token: tokenArb,
  status: fc.constantFrom(201, 400, 401, 403, 404, 409, 422, 500, 503),
  jsonHow: fc.constantFrom<JsonSpelling>('json', 'json-slash', 'json-u-random', 'json-u-all'),
  textHow: fc.constantFrom<TextSpelling>('raw', 'uri', 'uri-lower', 'form'),
  /** JSON body, or plain text (a proxy's page). */
  bodyIsJson: fc.boolean(),
  /** Where in a JSON body: a message field, a nested array, or a key. */
  place: fc.constantFrom('message', 'nested', 'key'),
  headerName: fc.stringMatching(/^x-[a-z]{1,12}$/),
  coin: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
});
type Echo = typeof echoArb extends fc.Arbitrary<infer T> ? T : never;

function answerBody(echo: Echo): { body: string; type: string } {
  if (!echo.bodyIsJson) {
    return { body: `<html>invalid token ${spellInText(echo.token, echo.textHow)}</html>`, type: 'text/html' };
  }
  const spelled = spellInJson(echo.token, echo.jsonHow, echo.coin);
  const body =
    echo.place === 'message'
      ? `{"message":"invalid token ${spelled}"}`
      : echo.place === 'nested'
        ? `{"errors":[{"detail":["bad","${spelled}"]}],"n":1}`
        : `{"${spelled}":"was the token"}`;
  return { body, type: 'application/json' };
}

/** A logger keeping each call's message and details as `util.inspect` shows them. */
function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string, ...details: unknown[]): void => {
    lines.push(inspect([message, ...details], { depth: 20 }));
  };
  return { lines, debug: keep, info: keep, warn: keep, error: keep };
}

/** Every representation of an error a user may print or store. */
function representations(error: unknown): string[] {
  const e = error as Error & { body?: unknown; headers?: unknown; issues?: unknown };
  return [
    e.message,
    String(e),
    e.stack ?? '',
    JSON.stringify(e.body) ?? '',
    JSON.stringify(e.headers) ?? '',
    JSON.stringify(e.issues) ?? '',
    JSON.stringify(e),
    inspect(e, { depth: 20 }),
    inspect(e.cause, { depth: 20 }),
  ];
}

describe('Redactor', () => {
  const token = 'ab+c/d=e"f\\g';
  const redactor = new Redactor(token);

  it('redacts the raw, URL-encoded and JSON-escaped spellings, mixed per character', () => {
    const spellings = [
      token,
      encodeURIComponent(token),
      encodeURIComponent(token).toLowerCase(),
      'ab%2Bc%2fd%3De"f\\g',
      JSON.stringify(token).slice(1, -1),
      'ab\\u002Bc\\/d\\u003de\\"f\\\\g',
      '\\u0061\\u0062\\u002b\\u0063\\u002F\\u0064\\u003D\\u0065\\u0022\\u0066\\u005C\\u0067',
    ];
    for (const spelled of spellings) {
      expect(redactor.text(`before ${spelled} after`), spelled).toBe(`before ${REDACTED} after`);
    }
  });

  it('redacts strings, keys and numbers of a parsed value, and leaves the rest alone', () => {
    const numeric = new Redactor('123456789012');
    expect(numeric.value({ a: 123456789012, b: [1, 'x:123456789012'], '123456789012': true })).toEqual({
      a: REDACTED,
      b: [1, `x:${REDACTED}`],
      [REDACTED]: true,
    });
    expect(redactor.value({ a: 'fine', b: null, c: [true, 2] })).toEqual({
      a: 'fine',
      b: null,
      c: [true, 2],
    });
  });

  it('redacts an error and its cause chain in message and stack, keeping the objects', () => {
    const cause = new Error(`socket said ${encodeURIComponent(token)}`);
    const error = new Error(`failed: ${token}`, { cause });
    expect(redactor.error(error)).toBe(error);
    expect(error.message).toBe(`failed: ${REDACTED}`);
    expect(error.stack).not.toContain(token);
    expect(cause.message).toBe(`socket said ${REDACTED}`);
    expect(cause.stack).not.toContain(encodeURIComponent(token));
  });

  it('leaves text without the token unchanged, and an empty token redacts nothing', () => {
    expect(redactor.text('ab+c/d=e"f\\')).toBe('ab+c/d=e"f\\');
    expect(new Redactor('').text('anything')).toBe('anything');
  });
});

describe.each(WIRES)(
  '$name: the token echoed by the server, in any spelling, never leaves the SDK',
  (wire) => {
    let server: FaultServer;
    let echo: Echo;

    beforeAll(async () => {
      server = await httpFaultServer((_hit, _req, res) => {
        const { body, type } = answerBody(echo);
        const location = `https://idp.example/cb?access_token=${spellInText(echo.token, echo.textHow)}`;
        res.writeHead(echo.status, {
          'content-type': type,
          location,
          [echo.headerName]: spellInText(echo.token, echo.textHow),
          'x-echo-raw': echo.token,
        });
        res.end(body);
      });
    });
    afterAll(() => server.close());

    it('in no error field, message, stack, cause, inspect output or log line', async () => {
      await fc.assert(
        fc.asyncProperty(echoArb, async (generated) => {
          echo = generated;
          const logger = captureLogger();
          const client = new ClaimsClient({
            baseUrl: server.url,
            accessToken: echo.token,
            maxRetries: 0,
            logger,
            logLevel: 'debug',
            ...wire.options,
          });
          let error: unknown;
          try {
            // The token also rides in a header of the caller's naming: the debug line must not show it.
            await client.incidents.create(incident, { headers: { [`${echo.headerName}-out`]: echo.token } });
          } catch (caught) {
            error = caught;
          }
          // A 2xx that echoes the token lacks incidentId, so every answer here is an error.
          expect(error).toBeInstanceOf(Error);
          // The token as it was echoed, and in every other spelling the server might have used.
          const spellings = new Set([
            echo.token,
            spellInJson(echo.token, echo.jsonHow, echo.coin),
            ...(['raw', 'uri', 'uri-lower', 'form'] as const).map((how) => spellInText(echo.token, how)),
          ]);
          for (const text of [...representations(error), ...logger.lines]) {
            for (const spelled of spellings)
              expect(text.includes(spelled), `${spelled} in ${text}`).toBe(false);
          }
          expect(logger.lines.length).toBeGreaterThan(0);
        }),
        { numRuns: 60 },
      );
    });
  },
);

/**
 * The redactor's promises that a mutation of src/internal/redact.ts once got past: every
 * occurrence is redacted, a non-ASCII token is found URL-encoded, no other character's JSON
 * escape is taken for the token, a deep value and an error's body and headers are redacted,
 * a rewritten field keeps its attributes, and the per-token cache stays bounded.
 */
describe('Redactor.text', () => {
  it('redacts every occurrence, not only the first', () => {
    expect(new Redactor('s3cret').text('a s3cret, b s3cret')).toBe(`a ${REDACTED}, b ${REDACTED}`);
  });

  it('finds a non-ASCII token URL-encoded as UTF-8 bytes, in either case', () => {
    const redactor = new Redactor('pässwörd');
    expect(redactor.text(`t=${encodeURIComponent('pässwörd')}`)).toBe(`t=${REDACTED}`);
    expect(redactor.text(`t=${encodeURIComponent('pässwörd').toLowerCase()}`)).toBe(`t=${REDACTED}`);
    // The code point as one %XX is no encoding of it.
    expect(redactor.text('t=p%E4ssw%F6rd')).toBe('t=p%E4ssw%F6rd');
  });

  it('needs no Buffer (the edge build redacts on runtimes without one)', () => {
    const buffer = globalThis.Buffer;
    // @ts-expect-error: removed for this test, as on workerd or in a browser
    delete globalThis.Buffer;
    try {
      expect(new Redactor('pässwörd').text(`t=${encodeURIComponent('pässwörd')}&u=pässwörd`)).toBe(
        `t=${REDACTED}&u=${REDACTED}`,
      );
    } finally {
      globalThis.Buffer = buffer;
    }
  });

  it('takes the JSON escapes of `/`, `"` and `\\` for those characters only', () => {
    const redactor = new Redactor('ab');
    for (const text of ['\\/\\/', '\\"\\"', '\\\\\\\\', 'a\\/', '\\"b'])
      expect(redactor.text(text)).toBe(text);
    expect(new Redactor('a/"\\b').text('a\\/\\"\\\\b')).toBe(REDACTED);
  });
});

describe('Redactor.value', () => {
  it('redacts a bigint that spells the token', () => {
    const redactor = new Redactor('123456789012345678901');
    expect(redactor.value(123456789012345678901n)).toBe(REDACTED);
    expect(redactor.value([7n])).toEqual([7n]);
  });

  it('replaces what lies 32 levels down or deeper, in arrays and objects alike', () => {
    const redactor = new Redactor('s3cret');
    const nest = (depth: number, leaf: unknown, inObject: boolean): unknown => {
      let value = leaf;
      for (let i = 0; i < depth; i++) value = inObject ? { k: value } : [value];
      return value;
    };
    const unwrap = (value: unknown, depth: number): unknown => {
      let out = value;
      for (let i = 0; i < depth; i++) out = Array.isArray(out) ? out[0] : (out as { k: unknown }).k;
      return out;
    };
    for (const inObject of [false, true]) {
      // The leaf at depth 31 is kept; at depth 32 (a whole branch past the limit) it is replaced.
      expect(unwrap(redactor.value(nest(31, { ok: 1 }, inObject)), 31)).toEqual({ ok: 1 });
      expect(unwrap(redactor.value(nest(32, { ok: 1 }, inObject)), 32)).toBe(REDACTED);
    }
  });
});

describe('Redactor.error', () => {
  const token = 's3cret';

  it('redacts the token from an error’s own body and headers, keeping them enumerable', () => {
    const error = Object.assign(new Error('failed'), {
      body: { echo: `Bearer ${token}` },
      headers: { 'x-echo': token, 'content-type': 'application/json' },
    });
    new Redactor(token).error(error);
    expect(error.body).toEqual({ echo: `Bearer ${REDACTED}` });
    expect(error.headers).toEqual({ 'x-echo': REDACTED, 'content-type': 'application/json' });
    expect(Object.keys(error)).toEqual(['body', 'headers']);
    expect(JSON.stringify(error)).not.toContain(token);
  });

  it('keeps a rewritten field’s attributes: message stays hidden, writable and configurable', () => {
    const error = new Error(`failed: ${token}`);
    new Redactor(token).error(error);
    expect(Object.getOwnPropertyDescriptor(error, 'message')).toEqual({
      value: `failed: ${REDACTED}`,
      writable: true,
      enumerable: false,
      configurable: true,
    });
  });

  it('gives an inherited message an own redacted one, writable and hidden', () => {
    class Echoed extends Error {}
    Object.defineProperty(Echoed.prototype, 'message', { value: `echoed ${token}`, writable: true });
    const error = new Echoed();
    new Redactor(token).error(error);
    expect(error.message).toBe(`echoed ${REDACTED}`);
    expect(Object.getOwnPropertyDescriptor(error, 'message')).toMatchObject({
      writable: true,
      enumerable: false,
    });
  });
});

describe('Redactor.error: what it leaves', () => {
  const token = 's3cret';

  it('leaves an error that holds no token as it was: no field added, copied or replaced', () => {
    class Inherited extends Error {}
    Object.defineProperty(Inherited.prototype, 'message', { value: 'inherited words', writable: true });
    const cause = Object.assign(new Inherited(), { url: Symbol('no string') });
    const body = { echo: 'no secret' };
    const headers = { 'x-a': '1' };
    const error = Object.assign(new Error('failed', { cause }), { body, headers });
    Object.defineProperty(error, 'url', { get: () => 'https://h/x', enumerable: true });
    const plain = new Error('plain');
    const before = [error, cause, plain].map((e) => Object.getOwnPropertyDescriptors(e));
    expect(new Redactor(token).error(error)).toBe(error);
    new Redactor(token).error(plain);
    expect([error, cause, plain].map((e) => Object.getOwnPropertyDescriptors(e))).toEqual(before);
    expect(error.body).toBe(body);
    expect(error.headers).toBe(headers);
    expect(Object.hasOwn(cause, 'message')).toBe(false);
    expect(Object.hasOwn(plain, 'body') || Object.hasOwn(plain, 'headers')).toBe(false);
  });

  it('leaves a body or headers JSON cannot write (a cycle, a BigInt) that holds no token', () => {
    const cyclic: Record<string, unknown> = { echo: 'no secret' };
    cyclic.self = cyclic;
    const bigints = { n: 1n };
    const error = Object.assign(new Error('failed'), { body: cyclic, headers: bigints });
    expect(new Redactor(token).error(error)).toBe(error);
    expect(error.body).toBe(cyclic);
    expect(error.headers).toBe(bigints);
  });

  it("a user's fetch failing with such an error still fails the call with a connection error", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const client = new ClaimsClient({
      baseUrl: 'https://api.example',
      accessToken: 'a-token-of-some-length',
      maxRetries: 0,
      fetch: async () => {
        throw Object.assign(new TypeError('fetch failed'), { body: cyclic });
      },
    });
    const error = await client.subscriptions.list(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect((error as ClaimsConnectionError).outcome).toBe('unknown');
    expect(((error as Error).cause as { body: unknown }).body).toBe(cyclic);
  });
});

/**
 * What a user's `fetch` (or a wrapper of it: ky, ofetch, an axios adapter) or a token provider
 * rejects with is kept as the cause: the token must not show in it however it is held.
 */
describe('Redactor.error: a cause of someone else’s making', () => {
  const token = 'tok_0f9e8d7c6b5a4938';
  const redactor = new Redactor(token);
  const init = () => ({
    method: 'GET',
    headers: { accept: 'application/json', authorization: `Bearer ${token}` },
  });
  const deep = (value: unknown) => inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true });

  it('a field holding the request (ky, ofetch): a Request, a Headers, the init, an axios config', () => {
    const error = Object.assign(new TypeError('fetch failed'), {
      request: new Request('https://claims.example.com/x', init()),
      sent: new Headers(init().headers),
      options: init(),
      config: { url: '/x', headers: init().headers, timeout: 0 },
      [Symbol('state')]: new Map([['authorization', `Bearer ${token}`]]),
      hidden: undefined as unknown,
    });
    Object.defineProperty(error, 'hidden', { value: new Set([token]), enumerable: false });
    expect(redactor.error(error)).toBe(error);
    expect(error).toBeInstanceOf(TypeError);
    // What the platform keeps out of reach is replaced whole; a plain copy is redacted in place.
    expect(error.request).toBe(REDACTED);
    expect(error.sent).toBe(REDACTED);
    expect(error.options).toEqual({
      method: 'GET',
      headers: { accept: 'application/json', authorization: `Bearer ${REDACTED}` },
    });
    expect(error.config.headers.authorization).toBe(`Bearer ${REDACTED}`);
    expect(error.config.timeout).toBe(0);
    expect(Object.getOwnPropertyDescriptor(error, 'hidden')?.enumerable).toBe(false);
    expect(deep(error)).not.toContain(token);
    expect(JSON.stringify(error)).not.toContain(token);
  });

  it('an AggregateError’s errors, each redacted and kept, and what is no error among them', () => {
    const first = new Error(`sent ${token}`);
    const clean = new Error('refused');
    const error = new AggregateError([first, clean, `also ${token}`, 7], 'all attempts failed');
    redactor.error(error);
    expect(error.errors[0]).toBe(first);
    expect(error.errors[1]).toBe(clean);
    expect(first.message).toBe(`sent ${REDACTED}`);
    expect(error.errors.slice(2)).toEqual([`also ${REDACTED}`, 7]);
    expect(deep(error)).not.toContain(token);
  });

  it('a cause chain longer than the first eight links, and one past the last link followed: cut where it holds the token', () => {
    const chain = (length: number) => {
      let error = new Error(`deepest ${token}`);
      for (let i = 0; i < length; i++) error = new Error(`wrap ${i}`, { cause: error });
      return error;
    };
    const ten = chain(10);
    redactor.error(ten);
    expect(deep(ten)).not.toContain(token);
    expect(deep(ten)).toContain('deepest [REDACTED]');
    const hundred = chain(100);
    redactor.error(hundred);
    expect(deep(hundred)).not.toContain(token);
  });

  it('a cycle of causes ends the walk', () => {
    const a = new Error(`a ${token}`);
    const b = new Error('b', { cause: a });
    a.cause = b;
    redactor.error(a);
    expect(a.message).toBe(`a ${REDACTED}`);
    expect(a.cause).toBe(b);
  });

  it('a thrown string or plain object comes back redacted; one without the token as it was', () => {
    expect(redactor.error(`failed with Bearer ${token}`)).toBe(`failed with Bearer ${REDACTED}`);
    expect(redactor.error({ message: 'x', headers: init().headers })).toEqual({
      message: 'x',
      headers: { accept: 'application/json', authorization: `Bearer ${REDACTED}` },
    });
    const plain = { message: 'fine' };
    expect(redactor.error(plain)).toBe(plain);
    expect(redactor.error('fine')).toBe('fine');
    expect(redactor.error(undefined)).toBe(undefined);
  });

  it('a cause that throws when looked into (a Proxy, a throwing getter) is replaced whole', () => {
    const hostile = new Proxy(new Error(`sent ${token}`), {
      ownKeys: () => {
        throw new Error('no');
      },
    });
    expect(redactor.error(hostile)).toBe(REDACTED);
    const getter = Object.defineProperty(new Error('x'), 'stack', {
      get: () => {
        throw new Error('no');
      },
    });
    expect(redactor.error(getter)).toBe(REDACTED);
  });

  it('leaves an error that holds no token as it was, bytes included (they print as numbers)', () => {
    const body = new TextEncoder().encode(token);
    const error = Object.assign(new Error('failed'), {
      code: 'ECONNRESET',
      body,
      request: new Request('https://claims.example.com/x'),
    });
    const request = error.request;
    redactor.error(error);
    expect(error).toMatchObject({ code: 'ECONNRESET', message: 'failed' });
    expect(error.body).toBe(body);
    expect(error.request).toBe(request);
  });
});

describe('redactorFor', () => {
  it('keeps the redactor of each of the last 8 tokens, and drops the first kept past that', () => {
    const kept = Array.from({ length: 8 }, (_, i) => redactorFor(`token-${i}`));
    for (const [i, redactor] of kept.entries()) expect(redactorFor(`token-${i}`)).toBe(redactor);
    redactorFor('token-8');
    expect(redactorFor('token-1')).toBe(kept[1]);
    expect(redactorFor('token-0')).not.toBe(kept[0]);
  });
});

describe('Redactor.error: the walk’s limits and what it looks into', () => {
  const token = 'tok_0f9e8d7c6b5a4938';
  const redactor = new Redactor(token);
  const deep = (value: unknown) => inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true });
  /** A plain object `levels` deep: `{ a: { a: … {} } }`. */
  const nest = (levels: number, leaf: object = {}): object => {
    let value: object = leaf;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };

  it('follows 32 linked errors; the 33rd is cut where it holds the token, kept where it does not', () => {
    const errors = Array.from({ length: 34 }, (_, i) => new Error(i === 32 ? `hop ${token}` : `hop ${i}`));
    for (let i = 0; i < 33; i++) errors[i]!.cause = errors[i + 1];
    redactor.error(errors[0]);
    expect(errors[30]!.cause).toBe(errors[31]);
    expect(errors[31]!.cause).toBe(REDACTED);
    expect(deep(errors[0])).not.toContain(token);
    const clean = Array.from({ length: 34 }, (_, i) => new Error(`hop ${i}`));
    for (let i = 0; i < 33; i++) clean[i]!.cause = clean[i + 1];
    redactor.error(clean[0]);
    expect(clean[31]!.cause).toBe(clean[32]);
  });

  it('keeps an AggregateError’s errors array itself when no item changed', () => {
    const error = new AggregateError([new Error('a'), 'b', 3], 'all failed');
    const errors = error.errors;
    redactor.error(error);
    expect(error.errors).toBe(errors);
    const leaky = new AggregateError([`a ${token}`], 'all failed');
    redactor.error(leaky);
    expect(leaky.errors).toEqual([`a ${REDACTED}`]);
  });

  it('looks 32 levels into a field: what lies deeper is taken as holding the token', () => {
    const shallow = nest(31);
    const deeper = nest(32);
    const error = Object.assign(new Error('failed'), { shallow, deeper });
    redactor.error(error);
    expect(error.shallow).toBe(shallow);
    expect(error.deeper).not.toBe(deeper);
    expect(deep(error.deeper)).toContain(REDACTED);
  });

  it('looks at 10,000 objects in a field: a wider one is taken as holding the token', () => {
    // The field, its array and the items: 10,000 objects with 9,998 items.
    const narrow = { items: Array.from({ length: 9_998 }, () => ({})) };
    const wide = { items: Array.from({ length: 9_999 }, () => ({})) };
    const error = Object.assign(new Error('failed'), { narrow, wide });
    redactor.error(error);
    expect(error.narrow).toBe(narrow);
    expect(error.wide).not.toBe(wide);
    expect(error.wide).toEqual(wide);
  });

  it('finds the token in a number, a bigint, a key and a symbol’s description; and a null field is no error', () => {
    const numeric = new Redactor('4242');
    const error = Object.assign(new Error('failed 4242'), {
      response: null,
      code: 4242.5,
      id: -4242n,
      nested: { count: 4242, total: 4242n, other: 1 },
      keyed: { [`${token}`]: 1 },
    });
    expect(numeric.error(error)).toBe(error);
    expect(error.message).toBe(`failed ${REDACTED}`);
    expect(error.response).toBe(null);
    expect(error.code).toBe(`${REDACTED}.5`);
    expect(error.id).toBe(`-${REDACTED}`);
    expect(error.nested).toEqual({ count: REDACTED, total: REDACTED, other: 1 });
    redactor.error(error);
    expect(error.keyed).toEqual({ [REDACTED]: 1 });
    const symbol = { [Symbol(token)]: 1 };
    const described = Object.assign(new Error('failed'), { symbol });
    redactor.error(described);
    expect(described.symbol).not.toBe(symbol);
    expect(deep(described)).not.toContain(token);
    expect(numeric.error(4242.5)).toBe(`${REDACTED}.5`);
    // A message that is a number (a library's status code) is redacted as a field, not given up.
    const coded = new Error('x');
    (coded as { message: unknown }).message = 4242.5;
    expect(numeric.error(coded)).toBe(coded);
    expect(coded.message).toBe(`${REDACTED}.5`);
  });

  it('redacts a header set in names and values, leaving the others as they were', () => {
    expect(redactor.headers({ 'x-echo': `Bearer ${token}`, [`x-${token}`]: 'v', accept: 'a' })).toEqual({
      'x-echo': `Bearer ${REDACTED}`,
      [`x-${REDACTED}`]: 'v',
      accept: 'a',
    });
  });

  it('a token of 16 characters or more is redacted inside a word too; a shorter one only standing alone', () => {
    expect(new Redactor('abcdefghijklmnop').text('xabcdefghijklmnopx')).toBe(`x${REDACTED}x`);
    expect(new Redactor('abcdefghijklmno').text('xabcdefghijklmnox')).toBe('xabcdefghijklmnox');
    expect(new Redactor('abcdefghijklmno').text('x abcdefghijklmno x')).toBe(`x ${REDACTED} x`);
    // A word character on one side alone is enough to leave it.
    expect(new Redactor('abcdefghijklmno').text('xabcdefghijklmno x')).toBe('xabcdefghijklmno x');
    expect(new Redactor('abcdefghijklmno').text('x abcdefghijklmnox')).toBe('x abcdefghijklmnox');
  });

  it('a null-prototype object holding the token is given back as a redacted plain copy', () => {
    const headers = Object.assign(Object.create(null) as Record<string, string>, {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    });
    const error = Object.assign(new Error('failed'), { headers });
    redactor.error(error);
    expect(error.headers).toEqual({ authorization: `Bearer ${REDACTED}`, accept: 'application/json' });
  });

  it('a URL holding the token is replaced whole; a message that is no string is looked into', () => {
    const error = Object.assign(new Error('failed'), {
      url: new URL(`https://claims.example.com/x?access_token=${token}`),
    });
    (error as { message: unknown }).message = { detail: `Bearer ${token}` };
    redactor.error(error);
    expect(error.url).toBe(REDACTED);
    expect(error.message).toEqual({ detail: `Bearer ${REDACTED}` });
    expect(deep(error)).not.toContain(token);
  });

  it('an error inside a field whose message is inherited (no stack left) is still looked into', () => {
    class Echo extends Error {}
    Echo.prototype.message = `sent ${token}`;
    const inner = new Echo();
    delete (inner as { stack?: string }).stack;
    const error = Object.assign(new Error('failed'), { detail: { inner } });
    redactor.error(error);
    expect(deep(error)).not.toContain(token);
  });

  it('leaves what inspect and JSON do not show: a prototype’s fields, an accessor, an error’s inherited message', () => {
    const proto = { message: token, href: token, url: token, headers: { authorization: token } };
    const inherited = Object.create(proto) as object;
    const shortWord = new Redactor('here');
    const plain = { a: 1 };
    class Quiet extends Error {}
    const quiet = new Quiet();
    const before = Object.getOwnPropertyNames(quiet);
    const error = Object.defineProperty(
      Object.assign(new Error('failed'), { inherited, plain, quiet }),
      'detail',
      {
        get: () => 'computed',
        enumerable: true,
        configurable: true,
      },
    );
    redactor.error(error);
    shortWord.error(error);
    expect(error.inherited).toBe(inherited);
    expect(error.plain).toBe(plain);
    expect(Object.getOwnPropertyNames(quiet)).toEqual(before);
    const detail = Object.getOwnPropertyDescriptor(error, 'detail');
    expect(detail?.get).toBeTypeOf('function');
    expect(detail?.set).toBe(undefined);
  });

  it('a Proxy that lists a key it has no descriptor for is walked, not replaced', () => {
    const ghostly = <T extends object>(target: T) =>
      new Proxy(target, { ownKeys: (t) => [...Reflect.ownKeys(t), 'ghost'] });
    const error = ghostly(new Error(`sent ${token}`));
    expect(redactor.error(error)).toBe(error);
    const field = ghostly({ a: 1 });
    const outer = Object.assign(new Error('failed'), { field });
    expect(redactor.error(outer)).toBe(outer);
    expect(outer.field).toBe(field);
  });

  it('works where the runtime has no Headers, Request or Response (node --no-experimental-fetch)', () => {
    const globals = globalThis as Record<string, unknown>;
    const saved = { Headers: globals.Headers, Request: globals.Request, Response: globals.Response };
    try {
      for (const name of Object.keys(saved)) delete globals[name];
      const error = Object.assign(new Error(`sent ${token}`), {
        options: { authorization: token },
        code: 'E',
      });
      expect(redactor.error(error)).toBe(error);
      expect(error.options).toEqual({ authorization: REDACTED });
    } finally {
      Object.assign(globals, saved);
    }
  });
});
