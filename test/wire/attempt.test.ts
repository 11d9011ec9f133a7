/**
 * The wire core (src/wire/attempt.ts), driven without sockets: how a failure is classified and
 * worded, how an answer's headers are flattened, and how its body is read (the cap, the
 * statuses without a body, decoding), the same for every wire.
 */
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { Agent, type Dispatcher, errors, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ClaimsClient,
  ClaimsConnectionError,
  ClaimsError,
  ClaimsTimeoutError,
  outcomeOf,
} from '../../src/index.js';
import {
  AttemptClock,
  type AttemptState,
  type BodySource,
  type Decode,
  failureOf,
  flattenHeaders,
  NODE_WORDING,
  sentOf,
  WireAnswer,
  type Wording,
} from '../../src/wire/attempt.js';
import { WireFailure } from '../../src/wire/failure.js';
import { decodeNodeBody } from '../../src/wire/node-decode.js';
import type { RawHeaders } from '../../src/wire/types.js';
import { incident } from '../helpers/fixtures.js';
import { CountingSignal } from '../helpers/wire-kit.js';

const coded = (message: string, code: unknown, extra: object = {}) =>
  Object.assign(new Error(message), { code, ...extra });

function attempt(
  over: Partial<AttemptState> = {},
): AttemptState & { doneCalls: number; progressCalls: number } {
  const state = {
    signal: new CountingSignal(),
    timeoutMs: 250,
    doneCalls: 0,
    progressCalls: 0,
    timedOut: () => undefined,
    neverWritten: () => false,
    progress() {
      state.progressCalls++;
    },
    done() {
      state.doneCalls++;
    },
    ...over,
  };
  return state as AttemptState & { doneCalls: number; progressCalls: number };
}

const NODE: Wording = {
  connectTimeout: 'the connect timeout passed (9 ms)',
  detail: (e) => (e as Error).message,
  codes: true,
};
const FETCH: Wording = {
  connectTimeout: 'the connect timeout passed',
  detail: (e) => String(((e as Error).cause as Error | undefined)?.message ?? (e as Error).message),
  codes: false,
};

describe('sentOf: how far a request got, from the codes down its cause chain', () => {
  it.each([
    ['ECONNREFUSED', 'not_connected'],
    ['ENOTFOUND', 'not_connected'],
    ['EAI_AGAIN', 'not_connected'],
    ['EHOSTUNREACH', 'not_connected'],
    ['ENETUNREACH', 'not_connected'],
    ['UND_ERR_CONNECT_TIMEOUT', 'not_connected'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'refused_tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'refused_tls'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'refused_tls'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'refused_tls'],
    ['CERT_HAS_EXPIRED', 'refused_tls'],
    ['CERT_NOT_YET_VALID', 'refused_tls'],
    ['CERT_REVOKED', 'refused_tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'refused_tls'],
    ['HPE_INVALID_CONSTANT', 'bad_answer'],
    ['HPE_HEADER_OVERFLOW', 'bad_answer'],
    ['UND_ERR_HEADERS_OVERFLOW', 'bad_answer'],
    ['UND_ERR_INFO', 'bad_answer'],
    ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'bad_answer'],
    ['ECONNRESET', 'maybe'],
    ['UND_ERR_SOCKET', 'maybe'],
    ['EPIPE', 'maybe'],
    ['XHPE_NOT_A_PARSE_ERROR', 'maybe'],
  ])('%s: %s', (code, sent) => {
    expect(sentOf(coded('x', code))).toBe(sent);
    expect(sentOf(new TypeError('fetch failed', { cause: coded('x', code) }))).toBe(sent);
  });

  it('undici’s parse error, which has no code: a bad answer, by its name', () => {
    const parse = Object.assign(new Error('Response does not match the HTTP/1.1 protocol'), {
      name: 'HTTPParserError',
    });
    expect(sentOf(parse)).toBe('bad_answer');
    expect(sentOf(new TypeError('fetch failed', { cause: parse }))).toBe('bad_answer');
    // A code wins over the name.
    expect(sentOf(Object.assign(parse, { code: 'ECONNREFUSED' }))).toBe('not_connected');
    expect(sentOf(Object.assign(new Error('x'), { name: 'OtherError' }))).toBe('maybe');
  });

  it('reads at most five errors down the chain, and stops at a cycle or a null cause', () => {
    const chain = (depth: number) => {
      let error: Error = coded('refused', 'ECONNREFUSED');
      for (let i = 0; i < depth; i++) error = new Error('wrapper', { cause: error });
      return error;
    };
    expect(sentOf(chain(4))).toBe('not_connected');
    expect(sentOf(chain(5))).toBe('maybe');
    const cycle = new Error('loop');
    (cycle as { cause?: unknown }).cause = cycle;
    expect(sentOf(cycle)).toBe('maybe');
    expect(sentOf(Object.assign(new Error('x'), { cause: null }))).toBe('maybe');
  });

  it('only undici’s parse error is known by its name: any other name is no code', () => {
    const named = Object.assign(new Error('x'), { name: 'HPE_LOOKALIKE' });
    expect(sentOf(named)).toBe('maybe');
  });

  it('a connection that was never opened wins over anything else in the chain', () => {
    const chain = new Error('outer', {
      cause: coded('tls', 'CERT_HAS_EXPIRED', { cause: coded('r', 'ECONNREFUSED') }),
    });
    expect(sentOf(chain)).toBe('not_connected');
    expect(
      sentOf(new Error('o', { cause: coded('p', 'HPE_X', { cause: coded('t', 'CERT_REVOKED') }) })),
    ).toBe('refused_tls');
  });
});

describe('failureOf, before the head', () => {
  it('a stopped call is stopped, whatever the error, with the signal’s reason; the attempt is over', () => {
    const signal = new CountingSignal();
    const reason = new Error('caller left');
    signal.abort(reason);
    const state = attempt({ signal });
    const failure = failureOf(state, NODE, coded('x', 'ECONNREFUSED'), 'head');
    expect(failure).toMatchObject({ kind: 'stopped', name: 'AbortError', cause: reason });
    expect(state.doneCalls).toBe(1);
  });

  it('a failure the wire made itself is kept as it is', () => {
    const refused = new WireFailure('refused', 'The client is closed', 'not_connected');
    expect(failureOf(attempt(), NODE, refused, 'head')).toBe(refused);
  });

  it('a connect timeout: the wire’s wording, not_connected, the platform’s error as cause', () => {
    const cause = coded('connect timeout', 'UND_ERR_CONNECT_TIMEOUT');
    const failure = failureOf(attempt({ timedOut: () => 'connect' }), NODE, cause, 'head');
    expect(failure).toMatchObject({
      kind: 'timeout',
      sent: 'not_connected',
      name: 'ClaimsTimeoutError',
      cause,
    });
    expect(failure.message).toBe('Connection timed out: the connect timeout passed (9 ms)');
  });

  it('no progress: timeoutMs named, the code added where the wire shows codes', () => {
    const cause = coded('Headers Timeout Error', 'UND_ERR_HEADERS_TIMEOUT');
    const node = failureOf(attempt({ timedOut: () => 'progress' }), NODE, cause, 'head');
    expect(node).toMatchObject({ kind: 'timeout', sent: 'maybe' });
    expect(node.message).toBe('Request timed out: no progress for 250 ms (UND_ERR_HEADERS_TIMEOUT)');
    const fetch = failureOf(attempt({ timedOut: () => 'progress' }), FETCH, cause, 'head');
    expect(fetch.message).toBe('Request timed out: no progress for 250 ms');
  });

  it('a connection failure: the platform’s words and code, how far it got', () => {
    const refused = failureOf(
      attempt(),
      NODE,
      coded('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED'),
      'head',
    );
    expect(refused).toMatchObject({
      kind: 'connection',
      sent: 'not_connected',
      name: 'ClaimsConnectionError',
    });
    expect(refused.message).toBe('Connection failed: connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED)');
    const fetch = new TypeError('fetch failed', { cause: coded('other side closed', 'UND_ERR_SOCKET') });
    const viaFetch = failureOf(attempt(), FETCH, fetch, 'head');
    expect(viaFetch.message).toBe('Connection failed: other side closed');
    expect(viaFetch.cause).toBe(fetch);
    // Only the error's own code is shown, not one down its chain; a code that is not a string is none.
    expect(
      failureOf(attempt(), NODE, new Error('outer', { cause: coded('in', 'EPIPE') }), 'head').message,
    ).toBe('Connection failed: outer');
    expect(failureOf(attempt(), NODE, coded('numbered', 104), 'head').message).toBe(
      'Connection failed: numbered',
    );
  });

  it('a platform that rejects with nothing at all (a user’s fetch rejecting undefined): a connection failure that may have left', () => {
    const failure = failureOf(attempt(), { ...NODE_WORDING, connectTimeout: 'x' }, undefined, 'head');
    expect(failure).toMatchObject({
      kind: 'connection',
      sent: 'maybe',
      message: 'Connection failed: undefined',
    });
  });

  it.each(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET'])(
    'proven unwritten on a connection found closed (%s): a dead connection',
    (code) => {
      const cause = coded(`write ${code}`, code);
      const failure = failureOf(attempt({ neverWritten: () => true }), NODE, cause, 'head');
      expect(failure).toMatchObject({ kind: 'connection', sent: 'dead_connection', cause });
      expect(failure.message).toBe(
        `Connection failed before any byte of the request was written, nothing was sent: write ${code} (${code})`,
      );
    },
  );

  it('proven unwritten for another reason: not written, but no dead connection', () => {
    for (const cause of [coded('write ENOBUFS', 'ENOBUFS'), new Error('socket hang up'), coded('x', 104)]) {
      const failure = failureOf(attempt({ neverWritten: () => true }), NODE, cause, 'head');
      expect(failure.sent).toBe('not_written');
    }
    // The fetch wire never shows codes, so it never says dead.
    const viaFetch = failureOf(
      attempt({ neverWritten: () => true }),
      FETCH,
      coded('x', 'ECONNRESET'),
      'head',
    );
    expect(viaFetch.sent).toBe('not_written');
    // No code at all, even on a wire that shows codes: not written, never dead.
    const codeless = failureOf(attempt({ neverWritten: () => true }), NODE, new Error('hang up'), 'head');
    expect(codeless.sent).toBe('not_written');
  });

  it('the proof is asked only for a failure that may have left: a refused connection stays one', () => {
    const neverWritten = vi.fn(() => true);
    const failure = failureOf(attempt({ neverWritten }), NODE, coded('refused', 'ECONNREFUSED'), 'head');
    expect(failure.sent).toBe('not_connected');
    expect(failureOf(attempt({ neverWritten }), NODE, coded('bad', 'HPE_X'), 'head').sent).toBe('bad_answer');
    expect(neverWritten).not.toHaveBeenCalled();
  });
});

describe('failureOf, while the body was read', () => {
  it('a stall: body_timeout naming timeoutMs', () => {
    const failure = failureOf(
      attempt({ timedOut: () => 'progress' }),
      NODE,
      coded('Body Timeout', 'UND_ERR_BODY_TIMEOUT'),
      'body',
    );
    expect(failure).toMatchObject({ kind: 'body_timeout', name: 'ClaimsTimeoutError', sent: 'maybe' });
    expect(failure.message).toBe('Request timed out: no progress for 250 ms (UND_ERR_BODY_TIMEOUT)');
  });

  it.each(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'ERR__ERROR_FORMAT_PADDING_1', 'ERR_BROTLI_DECOMPRESSION_FAILED'])(
    'a body that cannot be decoded (%s): decode',
    (code) => {
      const failure = failureOf(attempt(), NODE, coded('incorrect header check', code), 'body');
      expect(failure).toMatchObject({ kind: 'decode', name: 'ClaimsResponseValidationError', sent: 'maybe' });
      expect(failure.message).toBe(`the body could not be decoded: incorrect header check (${code})`);
      const viaFetch = failureOf(
        attempt(),
        FETCH,
        new TypeError('terminated', { cause: coded('bad', code) }),
        'body',
      );
      expect(viaFetch.kind).toBe('decode');
    },
  );

  it('anything else: the body broke off, a connection failure', () => {
    const failure = failureOf(attempt(), NODE, coded('other side closed', 'UND_ERR_SOCKET'), 'body');
    expect(failure).toMatchObject({ kind: 'cut', name: 'ClaimsConnectionError', sent: 'maybe' });
    expect(failure.message).toBe('Connection failed: other side closed (UND_ERR_SOCKET)');
  });

  it('a decoder’s code anywhere down the chain makes it a decode failure', () => {
    const wrapped = coded('terminated', 'UND_ERR_SOCKET', { cause: coded('bad', 'Z_DATA_ERROR') });
    expect(failureOf(attempt(), NODE, wrapped, 'body').kind).toBe('decode');
  });

  it('the node wording adds the platform’s code to its message', () => {
    const failure = failureOf(
      attempt(),
      { ...NODE_WORDING, connectTimeout: 'x' },
      coded('read ECONNRESET', 'ECONNRESET'),
      'body',
    );
    expect(failure.message).toBe('Connection failed: read ECONNRESET (ECONNRESET)');
  });
});

describe('flattenHeaders', () => {
  it('joins repeated values with ", ", drops undefined ones, keeps names as given (lower-case)', () => {
    expect(flattenHeaders({ a: '1', 'set-cookie': ['x=1', 'y=2'], gone: undefined })).toEqual({
      a: '1',
      'set-cookie': 'x=1, y=2',
    });
  });

  it('reads a fetch Headers', () => {
    const headers = new Headers([
      ['X-Request-Id', 'r1'],
      ['Vary', 'a'],
      ['Vary', 'b'],
    ]);
    expect(flattenHeaders(headers)).toEqual({ 'x-request-id': 'r1', vary: 'a, b' });
  });
});

/** A body handed over in `chunks`, recording whether it was cancelled. */
function source(chunks: Array<Uint8Array | Error>): BodySource & { cancelled: number } {
  const body = {
    cancelled: 0,
    async *chunks() {
      for (const chunk of chunks) {
        if (chunk instanceof Error) throw chunk;
        yield chunk;
      }
    },
    cancel() {
      body.cancelled++;
    },
  };
  return body;
}

const bytes = (text: string) => new TextEncoder().encode(text);
const answer = (
  status: number,
  headers: RawHeaders,
  body: BodySource,
  state = attempt(),
  decode: Decode | undefined = decodeNodeBody,
) => new WireAnswer(status, headers, body, state, NODE, decode);

describe('WireAnswer: the body of an answer', () => {
  it('reads the chunks as UTF-8, counting each as progress, and ends the attempt', async () => {
    const state = attempt();
    const body = source([bytes('{"a":'), bytes('1}')]);
    await expect(answer(200, {}, body, state).text(100)).resolves.toEqual({
      text: '{"a":1}',
      truncated: false,
    });
    expect(state.progressCalls).toBe(2);
    expect(state.doneCalls).toBe(1);
    expect(body.cancelled).toBe(0);
  });

  it('stops past the cap: the first maxBytes bytes, truncated, the rest never read', async () => {
    const body = source([bytes('12345'), bytes('67890'), new Error('never reached')]);
    await expect(answer(200, {}, body).text(7)).resolves.toEqual({ text: '1234567', truncated: true });
    expect(body.cancelled).toBe(1);
  });

  it.each([204, 205, 304])(
    '%i with a body announced: read as empty, the connection not reused',
    async (status) => {
      for (const headers of [{ 'content-length': '5' }, { 'transfer-encoding': 'chunked' }] as RawHeaders[]) {
        const body = source([bytes('hello')]);
        const state = attempt();
        await expect(answer(status, headers, body, state).text(100)).resolves.toEqual({
          text: '',
          truncated: false,
        });
        expect(body.cancelled).toBe(1);
        expect(state.doneCalls).toBe(1);
      }
    },
  );

  it('204 announcing no body (none, or content-length 0): read as usual, the connection kept', async () => {
    for (const headers of [{}, { 'content-length': '0' }, { 'content-length': ' 0 ' }] as RawHeaders[]) {
      const body = source([]);
      await expect(answer(204, headers, body).text(100)).resolves.toEqual({ text: '', truncated: false });
      expect(body.cancelled).toBe(0);
    }
  });

  it('a 200 with content-length 5 is read: only the no-body statuses skip their body', async () => {
    await expect(answer(200, { 'content-length': '5' }, source([bytes('hello')])).text(100)).resolves.toEqual(
      {
        text: 'hello',
        truncated: false,
      },
    );
  });

  it('a failure while reading: classified as the body’s, the rest never read', async () => {
    const body = source([bytes('{"a'), coded('aborted', 'ECONNRESET')]);
    const state = attempt();
    const error = await answer(200, {}, body, state)
      .text(100)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'cut', message: 'Connection failed: aborted (ECONNRESET)' });
    expect(body.cancelled).toBe(1);
    expect(state.doneCalls).toBe(1);
  });

  it('a head with both transfer-encoding and content-length is refused as a bad answer, its body never read', () => {
    const body = source([bytes('{}')]);
    let thrown: unknown;
    try {
      answer(200, { 'transfer-encoding': 'chunked', 'content-length': '2' }, body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WireFailure);
    expect(thrown).toMatchObject({
      kind: 'connection',
      sent: 'bad_answer',
      message: 'Connection failed: the answer has both transfer-encoding and content-length',
    });
    expect(body.cancelled).toBe(1);
    // The same from a fetch Headers.
    const fetched = new Headers({ 'transfer-encoding': 'chunked', 'content-length': '2' });
    expect(() => answer(200, fetched, source([]))).toThrow(WireFailure);
    for (const one of [{ 'transfer-encoding': 'chunked' }, { 'content-length': '2' }]) {
      expect(() => answer(200, one, source([]))).not.toThrow();
    }
  });

  it('headers() flattens once and gives the same object again', () => {
    const wire = answer(200, { a: ['1', '2'] }, source([]));
    expect(wire.headers()).toEqual({ a: '1, 2' });
    expect(wire.headers()).toBe(wire.headers());
    expect(wire.rawHeaders).toEqual({ a: ['1', '2'] });
  });
});

describe('WireAnswer: a compressed body', () => {
  const json = JSON.stringify({ incidentId: 'INC-42', note: 'x'.repeat(100) });

  it.each([
    ['gzip', gzipSync(json)],
    ['x-gzip', gzipSync(json)],
    ['deflate', deflateSync(json)],
    ['deflate', deflateRawSync(json)],
    ['br', brotliCompressSync(json)],
    ['GZip', gzipSync(json)],
    ['identity, gzip', gzipSync(json)],
    ['gzip, gzip, gzip', gzipSync(gzipSync(gzipSync(json)))],
    // A deflate under another coding is read with zlib's header: its first bytes are not the body's.
    ['deflate, gzip', gzipSync(deflateSync(json))],
  ])('%s: decoded', async (encoding, data) => {
    const half = Math.floor(data.length / 2);
    const body = source([data.subarray(0, half), data.subarray(half)]);
    await expect(answer(201, { 'content-encoding': encoding }, body).text(1_000)).resolves.toEqual({
      text: json,
      truncated: false,
    });
  });

  it('codings applied one over another are undone in reverse order', async () => {
    const data = brotliCompressSync(gzipSync(json));
    await expect(
      answer(201, { 'content-encoding': 'gzip, br' }, source([data])).text(1_000),
    ).resolves.toEqual({ text: json, truncated: false });
  });

  it('codings repeated as separate header lines (node:http gives a list) are read in order', async () => {
    const data = brotliCompressSync(gzipSync(json));
    await expect(
      answer(201, { 'content-encoding': ['gzip', 'br'] }, source([data])).text(1_000),
    ).resolves.toEqual({ text: json, truncated: false });
  });

  it('empty list items are no coding (a trailing comma, a leading one)', async () => {
    for (const header of ['gzip,', ', gzip', 'gzip, , identity']) {
      await expect(
        answer(201, { 'content-encoding': header }, source([gzipSync(json)])).text(1_000),
      ).resolves.toEqual({ text: json, truncated: false });
    }
  });

  it('identity alone is no coding: the body is read as it comes', async () => {
    await expect(
      answer(200, { 'content-encoding': 'identity' }, source([bytes(json)])).text(1_000),
    ).resolves.toEqual({ text: json, truncated: false });
  });

  it('an empty encoded body is empty', async () => {
    await expect(answer(200, { 'content-encoding': 'gzip' }, source([])).text(100)).resolves.toEqual({
      text: '',
      truncated: false,
    });
  });

  it('decoded bytes count against the cap: a small body that inflates stops at maxBytes', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 'a'));
    expect(bomb.length).toBeLessThan(100_000);
    const body = source([bomb]);
    const read = await answer(200, { 'content-encoding': 'gzip' }, body).text(64 * 1024);
    expect(read.truncated).toBe(true);
    expect(read.text).toBe('a'.repeat(64 * 1024));
    expect(body.cancelled).toBeGreaterThanOrEqual(1);
  });

  it('raw bytes have a cap of their own (twice maxBytes and 64 KiB): truncated past it', async () => {
    // Valid gzip members that inflate to nothing, again and again.
    const empty = gzipSync(Buffer.alloc(0));
    const chunks = Array.from({ length: 10_000 }, () => empty);
    const body = source(chunks);
    const read = await answer(200, { 'content-encoding': 'gzip' }, body).text(10);
    expect(read).toEqual({ text: '', truncated: true });
    expect(body.cancelled).toBeGreaterThanOrEqual(1);
  });

  it('the raw cap is exact: up to twice maxBytes and 64 KiB read, one byte more truncated', async () => {
    // Empty gzip members are 20 bytes: 3,277 of them are 65,540 bytes, the cap for maxBytes 2.
    const empty = gzipSync(Buffer.alloc(0));
    expect(empty.byteLength).toBe(20);
    const members = (n: number) => Buffer.concat(Array.from({ length: n }, () => empty));
    const atCap = members(3_277);
    await expect(answer(200, { 'content-encoding': 'gzip' }, source([atCap])).text(2)).resolves.toEqual({
      text: '',
      truncated: false,
    });
    const past = Buffer.concat([atCap, Buffer.from([0x1f])]);
    await expect(answer(200, { 'content-encoding': 'gzip' }, source([past])).text(2)).resolves.toEqual({
      text: '',
      truncated: true,
    });
  });

  it('a large body that compresses poorly is read whole when its decoded size fits maxBytes', async () => {
    // 400,000 base64 characters from a fixed xorshift sequence: gzip keeps about three quarters.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let x = 2_463_534_242;
    const letters = Array.from({ length: 400_000 }, () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return alphabet[(x >>> 0) & 63];
    }).join('');
    const data = gzipSync(letters);
    expect(data.byteLength).toBeGreaterThan(200_000 + 65_536);
    await expect(answer(200, { 'content-encoding': 'gzip' }, source([data])).text(400_000)).resolves.toEqual({
      text: letters,
      truncated: false,
    });
  });

  it('each raw chunk counts as progress', async () => {
    const data = gzipSync(json);
    const state = attempt();
    await answer(
      200,
      { 'content-encoding': 'gzip' },
      source([data.subarray(0, 5), data.subarray(5)]),
      state,
    ).text(1_000);
    expect(state.progressCalls).toBe(2);
  });

  it('a corrupt body: a decode failure, the rest never read', async () => {
    const body = source([bytes('0123456789')]);
    const error = await answer(200, { 'content-encoding': 'gzip' }, body)
      .text(100)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'decode' });
    expect((error as Error).message).toMatch(
      /^the body could not be decoded: incorrect header check \(Z_DATA_ERROR\)$/,
    );
    expect(body.cancelled).toBe(1);
  });

  it('a body cut short of its gzip end: a decode failure (unexpected end)', async () => {
    const data = gzipSync(json);
    const error = await answer(
      200,
      { 'content-encoding': 'gzip' },
      source([data.subarray(0, data.length - 6)]),
    )
      .text(1_000)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'decode' });
  });

  it('a body that breaks off while decoding: cut, not a decode failure', async () => {
    const data = gzipSync(json);
    const error = await answer(
      200,
      { 'content-encoding': 'gzip' },
      source([data.subarray(0, 10), coded('other side closed', 'UND_ERR_SOCKET')]),
    )
      .text(1_000)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'cut' });
  });

  it('a coding the SDK does not know, or too many: a decode failure naming it', async () => {
    const unknown = await answer(200, { 'content-encoding': 'zstd' }, source([bytes('x')]))
      .text(100)
      .catch((e: unknown) => e);
    expect(unknown).toMatchObject({ kind: 'decode', sent: 'maybe' });
    expect((unknown as Error).message).toBe(
      'the body could not be decoded: content-encoding "zstd" is not one the SDK decodes (gzip, deflate, br)',
    );
    const many = await answer(200, { 'content-encoding': 'gzip, gzip, gzip, gzip' }, source([bytes('x')]))
      .text(100)
      .catch((e: unknown) => e);
    expect((many as Error).message).toBe(
      'the body could not be decoded: content-encoding applies 4 codings (at most 3 are decoded)',
    );
  });

  it('on a wire whose platform decodes by itself (fetch), the body is taken as it comes', async () => {
    const wire = new WireAnswer(
      200,
      { 'content-encoding': 'gzip' },
      source([bytes('{"a":1}')]),
      attempt(),
      NODE,
      undefined,
    );
    await expect(wire.text(100)).resolves.toEqual({ text: '{"a":1}', truncated: false });
  });
});

describe('AttemptClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires once without progress, says which phase, and progress starts it again', () => {
    vi.useFakeTimers();
    const stop = vi.fn();
    const clock = new AttemptClock(new CountingSignal(), 100, stop);
    clock.arm('connect', 1_000);
    vi.advanceTimersByTime(999);
    expect(stop).not.toHaveBeenCalled();
    clock.arm('progress');
    vi.advanceTimersByTime(90);
    clock.progress();
    vi.advanceTimersByTime(90);
    expect(stop).not.toHaveBeenCalled();
    expect(clock.timedOut()).toBeUndefined();
    vi.advanceTimersByTime(10);
    expect(stop).toHaveBeenCalledWith('timeout');
    expect(clock.timedOut()).toBe('progress');
  });

  it('where timers restart in place (Node, Bun), progress refreshes the one timer rather than setting another', () => {
    vi.useFakeTimers();
    const set = vi.spyOn(globalThis, 'setTimeout');
    const stop = vi.fn();
    const clock = new AttemptClock(new CountingSignal(), 100, stop);
    clock.arm('progress');
    vi.advanceTimersByTime(60);
    clock.progress();
    clock.progress();
    expect(set).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(99);
    expect(stop).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(stop).toHaveBeenCalledWith('timeout');
    set.mockRestore();
  });

  it('a connect timeout says connect', () => {
    vi.useFakeTimers();
    const clock = new AttemptClock(new CountingSignal(), 100, () => undefined);
    clock.arm('connect', 500);
    vi.advanceTimersByTime(500);
    expect(clock.timedOut()).toBe('connect');
  });

  it('listens to the signal once, stops on its abort, and done() leaves no listener and no timer', () => {
    vi.useFakeTimers();
    const signal = new CountingSignal();
    const stop = vi.fn();
    const clock = new AttemptClock(signal, 100, stop);
    expect(clock.listen()).toBe(true);
    expect(signal.listeners).toBe(1);
    signal.abort(new Error('x'));
    expect(stop).toHaveBeenCalledWith('abort');
    const other = new CountingSignal();
    const second = new AttemptClock(other, 100, stop);
    second.listen();
    second.arm('progress');
    second.done();
    expect(other.listeners).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it('a signal aborted already: not listened to', () => {
    const signal = new CountingSignal();
    signal.abort(undefined);
    expect(new AttemptClock(signal, 100, () => undefined).listen()).toBe(false);
    expect(signal.listeners).toBe(0);
  });

  it('where timers are plain numbers (Deno, workerd), progress sets the timer anew, and not once done', () => {
    const timers = new Map<number, () => void>();
    let next = 1;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      fn: (...args: unknown[]) => void,
      _ms: number,
      ...args: unknown[]
    ) => {
      const id = next++;
      timers.set(id, () => fn(...args));
      return id;
    }) as unknown as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((id: number) => {
      timers.delete(id);
    }) as unknown as typeof clearTimeout);
    try {
      const stop = vi.fn();
      const clock = new AttemptClock(new CountingSignal(), 100, stop);
      clock.arm('progress');
      clock.progress();
      expect([...timers.keys()]).toEqual([2]);
      // The timer set anew is a progress timer: it says so when it fires.
      timers.get(2)?.();
      expect(stop).toHaveBeenCalledWith('timeout');
      expect(clock.timedOut()).toBe('progress');
      clock.done();
      clock.progress();
      expect(timers.size).toBe(0);
      // Progress before any timer was armed arms one.
      const early = new AttemptClock(new CountingSignal(), 100, stop);
      early.progress();
      expect([...timers.keys()]).toEqual([3]);
      early.done();
    } finally {
      vi.restoreAllMocks();
    }
  });
});

/**
 * The connection failures after which a POST may be sent again: those proving no connection was
 * opened (ECONNREFUSED, ENOTFOUND, EAI_AGAIN, EHOSTUNREACH, ENETUNREACH, undici's connect
 * timeout). They are produced here by an undici dispatcher (the client's `dispatcher` option) whose `connect` fails with the code,
 * so no traffic leaves the machine; both wires go through real undici code (the fetch wire
 * through undici's own `fetch`).
 */
const NOT_CONNECTED = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'] as const;
const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT';

function failure(code: string): Error {
  if (code === CONNECT_TIMEOUT) return new errors.ConnectTimeoutError();
  return Object.assign(new Error(`connect ${code} 127.0.0.1:65000`), { code, syscall: 'connect' });
}

/** An agent whose every connection attempt fails with `code`; counts the attempts. */
function failingAgent(code: string): { agent: Agent; connects: () => number } {
  let n = 0;
  const agent = new Agent({
    connect: (_options, callback) => {
      n++;
      queueMicrotask(() => callback(failure(code), null));
    },
  });
  return { agent, connects: () => n };
}

type WireSetup = (agent: Dispatcher) => Partial<ConstructorParameters<typeof ClaimsClient>[0]>;
const WIRE_SETUPS: Array<{ name: string; setup: WireSetup }> = [
  {
    name: 'undici wire',
    setup: (agent) => ({ dispatcher: agent }),
  },
  {
    name: 'fetch wire',
    setup: (agent) => ({
      fetch: (url, init) =>
        undiciFetch(url, {
          ...(init as Parameters<typeof undiciFetch>[1]),
          dispatcher: agent,
        }) as unknown as Promise<Response>,
    }),
  },
];

describe.each(WIRE_SETUPS)('connection never opened, $name', ({ name, setup }) => {
  it.each([...NOT_CONNECTED, CONNECT_TIMEOUT])('a POST failing with %s is sent again', async (code) => {
    const { agent, connects } = failingAgent(code);
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:65000',
      accessToken: 'tok',
      maxRetries: 1,
      ...setup(agent),
    });
    const error = await client.incidents.create(incident).catch((e: unknown) => e);
    await agent.close();
    const expected =
      code === CONNECT_TIMEOUT && name === 'undici wire' ? ClaimsTimeoutError : ClaimsConnectionError;
    expect(error).toBeInstanceOf(expected);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(connects()).toBe(2);
  });

  it('a POST failing with ECONNRESET (maybe sent) is not sent again', async () => {
    const { agent, connects } = failingAgent('ECONNRESET');
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:65000',
      accessToken: 'tok',
      maxRetries: 1,
      ...setup(agent),
    });
    const error = await client.incidents.create(incident).catch((e: unknown) => e);
    await agent.close();
    expect(error).toBeInstanceOf(ClaimsError);
    expect(outcomeOf(error)).toBe('unknown');
    expect(connects()).toBe(1);
  });
});

describe('sentOf: how far a failed request got, from its codes', () => {
  const isNotConnected = (error: unknown) => sentOf(error) === 'not_connected';

  it.each([...NOT_CONNECTED, CONNECT_TIMEOUT])('%s, on the error or down its cause chain', (code) => {
    expect(isNotConnected(failure(code))).toBe(true);
    expect(isNotConnected(new TypeError('fetch failed', { cause: failure(code) }))).toBe(true);
    expect(isNotConnected(new Error('outer', { cause: new Error('middle', { cause: failure(code) }) }))).toBe(
      true,
    );
  });

  it.each(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT'])('not %s', (code) => {
    expect(sentOf(Object.assign(new Error(code), { code }))).toBe('maybe');
  });

  it('not an error without a code, nor a non-string code, nor nothing', () => {
    expect(sentOf(new Error('x'))).toBe('maybe');
    expect(sentOf({ code: 111 })).toBe('maybe');
    expect(sentOf(undefined)).toBe('maybe');
    expect(sentOf(null)).toBe('maybe');
  });

  it('looks at most five levels down the cause chain (a cycle cannot loop)', () => {
    let deep: Error = failure('ECONNREFUSED');
    for (let i = 0; i < 4; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(isNotConnected(deep)).toBe(true);
    expect(isNotConnected(new Error('level 5', { cause: deep }))).toBe(false);
    const cycle: { code?: string; cause?: unknown } = {};
    cycle.cause = cycle;
    expect(sentOf(cycle)).toBe('maybe');
  });
});
