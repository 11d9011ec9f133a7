import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientCredentials, TokenRequestError } from '../../src/auth/index.js';
import { MAX_TOKEN_RESPONSE_BYTES } from '../../src/auth/token-request.js';

// The token request and the reading of its answer, through the provider's `fetch` option (in
// process: what goes out is captured, what comes back is made here).
const URL_ = 'https://auth.example.com/oauth2/token';
const SECRET = 'the secret+/ value';

type Answer = Response | (() => Promise<Response>) | Error;
function provider(answer: Answer, extra: Record<string, unknown> = {}) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    if (answer instanceof Error) throw answer;
    return typeof answer === 'function' ? answer() : answer.clone();
  };
  const get = clientCredentials({
    tokenUrl: URL_,
    clientId: 'portal',
    clientSecret: SECRET,
    fetch,
    ...extra,
  });
  return { get, calls };
}
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
async function failure(answer: Answer, extra?: Record<string, unknown>): Promise<TokenRequestError> {
  const error = await provider(answer, extra)
    .get()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TokenRequestError);
  expect(JSON.stringify({ ...(error as object) }) + String(error)).not.toContain(SECRET);
  return error as TokenRequestError;
}

afterEach(() => vi.useRealTimers());

describe('the request', () => {
  it('POSTs the form with JSON asked for, never following a redirect, under a timeout signal', async () => {
    const { get, calls } = provider(json(200, { access_token: 't', token_type: 'Bearer' }));
    await expect(get()).resolves.toBe('t');
    expect(calls).toHaveLength(1);
    const [{ url, init }] = calls as [{ url: string; init: RequestInit }];
    expect(url).toBe(URL_);
    expect(init.method).toBe('POST');
    expect(init.redirect).toBe('manual');
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(init.headers).toEqual({
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('portal:the+secret%2B%2F+value').toString('base64')}`,
    });
    expect(init.body).toBe('grant_type=client_credentials');
  });

  it('sends extra parameters, and scope and audience over them; an empty scope is not sent', async () => {
    const { get, calls } = provider(json(200, { access_token: 't' }), {
      extraParams: { resource: 'https://claims.example.com', scope: 'overridden' },
      scope: 'claims:write',
      audience: 'api',
    });
    await get();
    expect(Object.fromEntries(new URLSearchParams(String(calls[0]?.init.body)))).toEqual({
      grant_type: 'client_credentials',
      resource: 'https://claims.example.com',
      scope: 'claims:write',
      audience: 'api',
    });
    const empty = provider(json(200, { access_token: 't' }), { scope: [], audience: '' });
    await empty.get();
    expect(empty.calls[0]?.init.body).toBe('grant_type=client_credentials');
  });
});

describe('error answers', () => {
  it('say the status, the error and its description in one line', async () => {
    const error = await failure(
      json(400, { error: 'invalid_scope', error_description: 'scope\n\t not  allowed ' }),
    );
    expect(error.message).toBe(`Token endpoint ${URL_} answered 400: invalid_scope (scope not allowed)`);
    expect(error).toMatchObject({
      failure: 'error_response',
      tokenUrl: URL_,
      status: 400,
      error: 'invalid_scope',
      errorDescription: 'scope not allowed',
    });
    expect(error.cause).toBeUndefined();
  });

  it('an error with no description, a description with no error, neither', async () => {
    expect((await failure(json(401, { error: 'invalid_client' }))).message).toBe(
      `Token endpoint ${URL_} answered 401: invalid_client`,
    );
    const described = await failure(json(401, { error_description: 'who are you' }));
    expect(described.message).toBe(`Token endpoint ${URL_} answered 401`);
    expect(described).toMatchObject({ error: undefined, errorDescription: 'who are you' });
    const empty = await failure(json(400, { error: '', error_description: '' }));
    expect(empty.message).toBe(`Token endpoint ${URL_} answered 400`);
    const numbers = await failure(json(400, { error: 42, error_description: ['x'] }));
    expect(numbers).toMatchObject({ error: undefined, errorDescription: undefined });
  });

  it('cuts a long error or description at 300 characters, marked', async () => {
    const long = 'x'.repeat(301);
    const error = await failure(json(400, { error: long, error_description: 'y'.repeat(300) }));
    expect(error.error).toBe(`${'x'.repeat(300)}…`);
    expect(error.errorDescription).toBe('y'.repeat(300));
  });

  it('a status under 200 or a 3xx is an error answer too; 299 is not', async () => {
    expect(await failure(new Response(null, { status: 304 }))).toMatchObject({
      failure: 'error_response',
      status: 304,
    });
    const ok = provider(json(299, { access_token: 't' }));
    await expect(ok.get()).resolves.toBe('t');
  });
});

describe('client_secret_post', () => {
  it('an error answer echoing the secret: redacted, as with Basic', async () => {
    const error = await failure(
      json(400, { error: 'invalid_client', error_description: `bad secret ${SECRET}` }),
      {
        clientAuthentication: 'client_secret_post',
      },
    );
    expect(error.errorDescription).toBe('bad secret [REDACTED]');
  });
});

describe('2xx answers that are not a usable token', () => {
  it('not a JSON object: text, an array, null, no body', async () => {
    for (const body of ['access_token=t', '["t"]', 'null', '"a string"', '5', '']) {
      const error = await failure(new Response(body, { status: 200 }));
      expect(error.message).toBe(`Token endpoint ${URL_} answered 200 but the body is not a JSON object`);
      expect(error).toMatchObject({ failure: 'invalid_response', status: 200, tokenUrl: URL_ });
    }
    const none = await failure(new Response(null, { status: 200 }));
    expect(none.message).toBe(`Token endpoint ${URL_} answered 200 but the body is not a JSON object`);
  });

  it('no access_token, an empty one, one that is no string', async () => {
    for (const access_token of [undefined, '', 42]) {
      expect((await failure(json(201, { access_token }))).message).toBe(
        `Token endpoint ${URL_} answered 201 but without an access_token`,
      );
    }
  });

  it('a token type other than Bearer (in any case) is refused, quoted', async () => {
    expect((await failure(json(200, { access_token: 't', token_type: 'mac' }))).message).toBe(
      `Token endpoint ${URL_} answered 200 but with token_type "mac" (only Bearer can be used)`,
    );
    for (const token_type of ['bearer', 'BEARER', 'Bearer']) {
      await expect(provider(json(200, { access_token: 't', token_type })).get()).resolves.toBe('t');
    }
  });
});

describe('expires_in', () => {
  async function requestsOver(expires_in: unknown, afterMs: number): Promise<number> {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(0);
    const { get, calls } = provider(json(200, { access_token: 't', expires_in }), {
      refreshAheadMs: 0,
      refreshJitterMs: 0,
    });
    await get();
    vi.setSystemTime(afterMs);
    await get();
    return calls.length;
  }

  it('in seconds, as a number or a string of digits', async () => {
    expect(await requestsOver(60, 59_999)).toBe(1);
    expect(await requestsOver(60, 60_000)).toBe(2);
    expect(await requestsOver('60', 59_999)).toBe(1);
    expect(await requestsOver('60', 60_000)).toBe(2);
    expect(await requestsOver('1.5', 1_499)).toBe(1);
    expect(await requestsOver('1.5', 1_500)).toBe(2);
    expect(await requestsOver('1.25', 1_249)).toBe(1);
    expect(await requestsOver('1.25', 1_250)).toBe(2);
  });

  it('0 or less, as a number or a string: good for this call only', async () => {
    for (const value of [0, -30, '0', '-30']) expect(await requestsOver(value, 0), String(value)).toBe(2);
  });

  it('anything else is no lifetime: used until refused', async () => {
    for (const value of ['60s', '1e3', ' 60', '', true, null, { s: 60 }, [60]]) {
      expect(await requestsOver(value, 10 * 365 * 86_400_000), String(value)).toBe(1);
    }
  });
});

describe('no answer', () => {
  it('a fetch that fails: its name and message, and its cause, with the secret taken out', async () => {
    const failed = Object.assign(new TypeError('fetch failed'), {
      cause: new Error(`connect ECONNREFUSED (sent ${SECRET})`),
    });
    const error = await failure(failed);
    expect(error.message).toBe(
      `Token request to ${URL_} failed: TypeError: fetch failed (connect ECONNREFUSED (sent [REDACTED]))`,
    );
    expect(error).toMatchObject({ failure: 'connection', tokenUrl: URL_, status: undefined });
    expect(error.cause).toBeUndefined();
    const plain = await failure(new Error('socket hang up'));
    expect(plain.message).toBe(`Token request to ${URL_} failed: Error: socket hang up`);
    const causeNoError = await failure(Object.assign(new Error('reset'), { cause: 'ECONNRESET' }));
    expect(causeNoError.message).toBe(`Token request to ${URL_} failed: Error: reset`);
  });

  it('a fetch that throws what is no Error', async () => {
    const thrower = clientCredentials({
      tokenUrl: URL_,
      clientId: 'portal',
      clientSecret: SECRET,
      fetch: () => Promise.reject('nope'),
    });
    const error = (await thrower().catch((e: unknown) => e)) as TokenRequestError;
    expect(error.message).toBe(`Token request to ${URL_} failed: unknown error`);
  });

  it.each([
    [undefined, 'undefined'],
    ['ok', 'a string'],
    [{ status: 200, json: async () => ({ access_token: 'x' }) }, 'an object whose headers are not a Headers'],
  ])(
    'a fetch of yours that resolves %j: invalid_response, saying so (no TypeError from inside)',
    async (value, what) => {
      const error = await failure(() => Promise.resolve(value as unknown as Response));
      expect(error.message).toBe(
        `Token request to ${URL_} failed: the fetch given resolved ${what}, not a Response`,
      );
      expect(error).toMatchObject({ failure: 'invalid_response', status: undefined });
    },
  );

  it('a Response by shape, with no ok of its own: read by its status', async () => {
    const real = json(200, { access_token: 'from-a-lookalike', token_type: 'Bearer', expires_in: 60 });
    const lookalike = { status: real.status, headers: real.headers, body: real.body };
    const { get } = provider(() => Promise.resolve(lookalike as unknown as Response));
    await expect(get()).resolves.toBe('from-a-lookalike');
    const refused = await failure(() => {
      const answer = json(299, { error: 'x' });
      return Promise.resolve({
        status: 300,
        headers: answer.headers,
        body: answer.body,
      } as unknown as Response);
    });
    expect(refused).toMatchObject({ failure: 'error_response', status: 300 });
    // Status 0 (Response.error(), a network error some fetches resolve with) is no 2xx either.
    expect(await failure(() => Promise.resolve(Response.error()))).toMatchObject({
      failure: 'error_response',
      status: 0,
    });
    const first = json(200, { access_token: 'edge', token_type: 'Bearer' });
    await expect(
      provider(() =>
        Promise.resolve({ status: 299, headers: first.headers, body: first.body } as unknown as Response),
      ).get(),
    ).resolves.toBe('edge');
  });

  it('an answer that does not come within timeoutMs: timeout, in ms', async () => {
    const error = await failure(() => new Promise<Response>(() => undefined), {
      timeoutMs: 1,
      fetch: (_url: string, init: RequestInit) =>
        new Promise<Response>((_, reject) =>
          init.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    });
    expect(error.message).toBe(`Token request to ${URL_} timed out after 1 ms`);
    expect(error).toMatchObject({ failure: 'timeout', status: undefined });
  });
});

describe('the size cap', () => {
  it('a declared length over the cap with no body at all: refused as too large', async () => {
    const error = await failure(() =>
      Promise.resolve(new Response(null, { status: 400, headers: { 'content-length': '999999999' } })),
    );
    expect(error.message).toBe(
      `Token endpoint ${URL_} answered 400 with more than ${MAX_TOKEN_RESPONSE_BYTES} bytes; not read`,
    );
    expect(error).toMatchObject({ failure: 'error_response', status: 400 });
  });

  it('a declared length over the cap is refused unread; at the cap it is read', async () => {
    let cancelled = false;
    const stream = () =>
      new ReadableStream({
        pull(controller) {
          controller.enqueue(new TextEncoder().encode('{"access_token":"t"}'));
          controller.close();
        },
        cancel() {
          cancelled = true;
        },
      });
    const over = await failure(() =>
      Promise.resolve(
        new Response(stream(), {
          status: 200,
          headers: { 'content-length': String(MAX_TOKEN_RESPONSE_BYTES + 1) },
        }),
      ),
    );
    expect(over.message).toBe(
      `Token endpoint ${URL_} answered 200 with more than ${MAX_TOKEN_RESPONSE_BYTES} bytes; not read`,
    );
    expect(over).toMatchObject({ failure: 'invalid_response', status: 200 });
    expect(cancelled).toBe(true);
    const at = provider(() =>
      Promise.resolve(
        new Response(stream(), {
          status: 200,
          headers: { 'content-length': String(MAX_TOKEN_RESPONSE_BYTES) },
        }),
      ),
    );
    await expect(at.get()).resolves.toBe('t');
  });

  it('an answer that grows past the cap is cut off there: exactly the cap is read', async () => {
    const answer = (extra: number) => () => {
      const body = `{"access_token":"t"}`;
      const padding = ' '.repeat(MAX_TOKEN_RESPONSE_BYTES - body.length + extra);
      let sent = 0;
      const chunks = [body, padding.slice(0, 1000), padding.slice(1000)];
      return Promise.resolve(
        new Response(
          new ReadableStream({
            pull(controller) {
              const chunk = chunks[sent++];
              if (chunk === undefined) controller.close();
              else controller.enqueue(new TextEncoder().encode(chunk));
            },
          }),
          { status: 200 },
        ),
      );
    };
    await expect(provider(answer(0)).get()).resolves.toBe('t');
    expect(await failure(answer(1))).toMatchObject({ failure: 'invalid_response', status: 200 });
  });

  it('a multi-byte character split across chunks is read whole', async () => {
    const bytes = new TextEncoder().encode('{"access_token":"tö€"}');
    const split = bytes.indexOf(0xe2) + 1;
    const { get } = provider(() =>
      Promise.resolve(
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(bytes.slice(0, split));
              controller.enqueue(bytes.slice(split));
              controller.close();
            },
          }),
          { status: 200 },
        ),
      ),
    );
    await expect(get()).resolves.toBe('tö€');
  });
});

describe('TokenRequestError', () => {
  it('keeps a cause when given one, and has none otherwise', () => {
    const cause = new Error('socket closed');
    const withCause = new TokenRequestError('m', { failure: 'connection', tokenUrl: URL_, cause });
    expect(withCause.cause).toBe(cause);
    const without = new TokenRequestError('m', { failure: 'connection', tokenUrl: URL_ });
    expect(Object.hasOwn(without, 'cause')).toBe(false);
  });
});
