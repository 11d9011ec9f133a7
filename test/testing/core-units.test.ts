/**
 * The sandbox core's small parts, each on its own, without a server: limits and usage, the
 * upload slots, the call log, change listeners, waits, how a fault changes an answer, and how
 * secrets are kept out of what the sandbox shows.
 */
import { describe, expect, it, vi } from 'vitest';
import { CallLog, type SandboxCall } from '../../src/testing/core/calls.js';
import { Changes } from '../../src/testing/core/changes.js';
import { applyFault } from '../../src/testing/core/faults/apply-fault.js';
import { SandboxHttpError } from '../../src/testing/core/http.js';
import { DEFAULT_LIMITS, readLimits, sandboxFull, Usage } from '../../src/testing/core/limits.js';
import { pause } from '../../src/testing/core/pause.js';
import { MAX_VIEW_CHARS, namesCredential, SandboxSecrets } from '../../src/testing/core/secrets.js';
import { MAX_WAITING, Slots } from '../../src/testing/core/slots.js';
import type { SandboxResponse } from '../../src/testing/core/types.js';

describe('limits', () => {
  it('reads limits over the defaults, refusing unknown names and non-positive or fractional values', () => {
    expect(readLimits()).toEqual(DEFAULT_LIMITS);
    expect(readLimits({ maxIncidents: 5, maxCalls: undefined })).toEqual({
      ...DEFAULT_LIMITS,
      maxIncidents: 5,
    });
    expect(readLimits({ maxIncidents: 1 })).toMatchObject({ maxIncidents: 1 });
    expect(readLimits({ maxIncidents: 0 })).toBe('limits.maxIncidents must be a positive integer');
    expect(readLimits({ maxIncidents: -3 })).toBe('limits.maxIncidents must be a positive integer');
    expect(readLimits({ maxIncidents: 2.5 })).toBe('limits.maxIncidents must be a positive integer');
    expect(readLimits({ maxIncidents: 2 ** 53 })).toBe('limits.maxIncidents must be a positive integer');
    expect(readLimits({ maxIncidents: '3' as never })).toBe('limits.maxIncidents must be a positive integer');
    expect(readLimits({ maxNothing: 3 } as never)).toBe(
      `limits.maxNothing is not a limit (use one of ${Object.keys(DEFAULT_LIMITS).join(', ')})`,
    );
    expect(readLimits({ toString: 3 } as never)).toMatch(/^limits\.toString is not a limit/);
  });

  it('answers a full sandbox with 403 sandbox_full, naming the limit and the way out', () => {
    const error = sandboxFull('incidents', 'maxIncidents', 7);
    expect(error).toBeInstanceOf(SandboxHttpError);
    expect([error.status, error.code, error.message]).toEqual([
      403,
      'sandbox_full',
      'The sandbox is full: it holds 7 incidents (limits.maxIncidents); nothing was stored. Empty it with sandbox.reset() or POST /_sandbox/reset',
    ]);
  });

  it('takes room for a call whole, or none of it', () => {
    const usage = new Usage({
      ...DEFAULT_LIMITS,
      maxIncidents: 2,
      maxEvents: 2,
      maxAttachments: 3,
      maxStoredBytes: 100,
    });
    usage.reserve({ incidents: 1, events: 1, attachments: 2 }, 40);
    expect(usage).toMatchObject({ incidents: 1, events: 1, attachments: 2, storedBytes: 40 });
    const refused = (counts: Parameters<Usage['reserve']>[0], bytes: number) => {
      try {
        usage.reserve(counts, bytes);
      } catch (error) {
        return (error as Error).message;
      }
      return 'taken';
    };
    expect(refused({ incidents: 1, attachments: 2 }, 1)).toContain('3 attachments (limits.maxAttachments)');
    expect(refused({ events: 2 }, 1)).toContain('2 events (limits.maxEvents)');
    expect(refused({ incidents: 1 }, 61)).toContain('100 bytes (limits.maxStoredBytes)');
    expect(usage).toMatchObject({ incidents: 1, events: 1, attachments: 2, storedBytes: 40 });
    expect(refused({ incidents: 1, events: 1, attachments: 1 }, 60)).toBe('taken');
    expect(usage).toMatchObject({ incidents: 2, events: 2, attachments: 3, storedBytes: 100 });
    expect(refused({ incidents: 1 }, 0)).toContain('2 incidents (limits.maxIncidents)');
    expect(refused({}, 1)).toContain('(limits.maxStoredBytes)');
    usage.release(30);
    expect(usage.storedBytes).toBe(70);
    usage.release(500);
    expect(usage.storedBytes).toBe(0);
    usage.reserveBytes(100);
    expect(usage.storedBytes).toBe(100);
  });
});

describe('Slots', () => {
  it('a slot given back twice counts once', async () => {
    const slots = new Slots(1);
    const release = await slots.acquire();
    release();
    release();
    await slots.acquire();
    let second = false;
    void slots.acquire().then(() => {
      second = true;
    });
    await pause(10);
    expect(second).toBe(false);
  });

  it('a woken caller leaves no listener on its signal', async () => {
    const { getEventListeners } = (await import('node:events')).EventEmitter;
    const slots = new Slots(1);
    const held = await slots.acquire();
    const signal = new AbortController().signal;
    const waiting = slots.acquire(signal);
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    held();
    await waiting;
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('lends `size` slots at once; the next caller waits for one to come back', async () => {
    const slots = new Slots(2);
    const a = await slots.acquire();
    const b = await slots.acquire();
    let third: (() => void) | undefined;
    const waiting = slots.acquire().then((release) => {
      third = release;
    });
    await pause(10);
    expect(third).toBeUndefined();
    a();
    a(); // twice is once
    await waiting;
    expect(third).toBeTypeOf('function');
    const fourth = slots.acquire();
    b();
    await fourth;
    third?.();
  });

  it(`answers 429 when ${MAX_WAITING} callers wait already`, async () => {
    const slots = new Slots(1);
    const held = await slots.acquire();
    const waiting = Array.from({ length: MAX_WAITING }, () => slots.acquire());
    const error = await slots.acquire().catch((e: SandboxHttpError) => e);
    expect(error).toBeInstanceOf(SandboxHttpError);
    expect([
      (error as SandboxHttpError).status,
      (error as SandboxHttpError).code,
      (error as SandboxHttpError).headers,
    ]).toEqual([429, 'too_many_uploads', { 'retry-after': '1' }]);
    expect((error as Error).message).toBe(`${MAX_WAITING} uploads wait already: try again shortly`);
    held();
    for (const w of waiting) (await w)();
  });

  it('a caller that goes away stops waiting, and leaves its place to the next', async () => {
    const slots = new Slots(1);
    const held = await slots.acquire();
    const gone = new AbortController();
    const leaving = slots.acquire(gone.signal).catch((e: SandboxHttpError) => [e.status, e.message]);
    const staying = slots.acquire();
    gone.abort();
    expect(await leaving).toEqual([400, 'The caller went away while its upload waited']);
    await expect(slots.acquire(AbortSignal.abort())).rejects.toMatchObject({ code: 'bad_request' });
    held();
    (await staying)();
    const already = AbortSignal.abort();
    const blocker = await slots.acquire();
    await expect(slots.acquire(already)).rejects.toMatchObject({ status: 400 });
    blocker();
    // The slot went back: a new caller gets it at once.
    (await slots.acquire())();
  });
});

describe('CallLog', () => {
  const call = (id: number) => ({ id }) as SandboxCall;

  it('numbers calls, keeps the newest `max`, counts the dropped ones, and clears', () => {
    const log = new CallLog(2);
    expect([log.nextId(), log.nextId(), log.nextId()]).toEqual([1, 2, 3]);
    for (const id of [1, 2, 3]) log.add(call(id));
    expect(log.list().map((c) => c.id)).toEqual([2, 3]);
    expect([log.get(1), log.get(3)?.id, log.dropped]).toEqual([undefined, 3, 1]);
    log.clear();
    expect([log.list(), log.dropped, log.nextId()]).toEqual([[], 0, 4]);
  });
});

describe('Changes', () => {
  it('calls every listener until it stops; one listener’s failure reaches no one', () => {
    const changes = new Changes();
    const seen: string[] = [];
    changes.on(() => {
      throw new Error('a broken view');
    });
    const stop = changes.on((c) => seen.push(c.kind));
    changes.emit({ kind: 'faults' });
    stop();
    changes.emit({ kind: 'reset' });
    expect(seen).toEqual(['faults']);
  });
});

describe('pause', () => {
  it('waits, or resolves true at once when the caller is gone (or goes)', async () => {
    vi.useFakeTimers();
    try {
      const waited = pause(1_000);
      let done = false;
      void waited.then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(999);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await waited).toBe(false);
      expect(await pause(1_000, AbortSignal.abort())).toBe(true);
      const going = new AbortController();
      const cut = pause(1_000, going.signal);
      going.abort();
      expect(await cut).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves no listener on a signal once it is over', async () => {
    const { getEventListeners } = (await import('node:events')).EventEmitter;
    const signal = new AbortController().signal;
    await pause(1, signal);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('an idle wait keeps no process alive', async () => {
    const unref = vi.spyOn(globalThis, 'setTimeout');
    await pause(1, undefined, true);
    const timer = unref.mock.results.at(-1)?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    await pause(1);
    expect((unref.mock.results.at(-1) as { value: NodeJS.Timeout }).value.hasRef()).toBe(true);
    unref.mockRestore();
  });
});

describe('applyFault', () => {
  const created: SandboxResponse = {
    status: 201,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1' },
    body: '{"incidentId":"i1"}',
  };
  const refused: SandboxResponse = { status: 422, headers: {}, body: '{"message":"no"}' };
  const runs = (answer: SandboxResponse) => {
    const run = vi.fn(async () => answer);
    return run;
  };

  it('no fault: the call runs as it is', async () => {
    const run = runs(created);
    expect(await applyFault(undefined, run)).toEqual({ answer: created, ran: true, delayMs: 0 });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('an error status answers instead of the call, which never runs', async () => {
    const run = runs(created);
    const { answer, ran, delayMs } = await applyFault({ status: 503, retryAfter: 2 }, run);
    expect(run).not.toHaveBeenCalled();
    expect([
      ran,
      delayMs,
      answer.status,
      answer.headers['retry-after'],
      JSON.parse(answer.body ?? ''),
    ]).toEqual([
      false,
      0,
      503,
      '2',
      { message: 'Injected fault: 503 (sandbox.faults)', code: 'injected_fault' },
    ]);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const noRetry = await applyFault({ status: 400 }, run);
    expect(noRetry.answer.headers).not.toHaveProperty('retry-after');
    expect([noRetry.ran, noRetry.answer.status, run.mock.calls.length]).toEqual([false, 400, 0]);
    const text = await applyFault({ status: 502, body: 'Bad gateway' }, run);
    expect([text.answer.body, text.answer.headers['content-type']]).toEqual([
      'Bad gateway',
      'text/plain; charset=utf-8',
    ]);
    const json = await applyFault({ status: 500, body: { a: 1 } }, run);
    expect([json.answer.body, json.answer.headers['content-type']]).toEqual([
      '{"a":1}',
      'application/json; charset=utf-8',
    ]);
    const empty = await applyFault({ status: 500, body: '' }, run);
    expect(empty.answer.body).toBe('');
  });

  it('a 2xx status changes a 2xx answer (status, Retry-After, body), and no other', async () => {
    const plain = await applyFault({ status: 200, retryAfter: 'soon' }, runs(created));
    expect(plain).toEqual({
      answer: { ...created, status: 200, headers: { ...created.headers, 'retry-after': 'soon' } },
      ran: true,
      delayMs: 0,
    });
    expect((await applyFault({ status: 299 }, runs(created))).answer.headers).not.toHaveProperty(
      'retry-after',
    );
    const replaced = await applyFault({ status: 202, body: 'not json' }, runs(created));
    expect([replaced.answer.status, replaced.answer.body, replaced.ran]).toEqual([202, 'not json', true]);
    expect(await applyFault({ status: 201, body: 'x' }, runs(refused))).toEqual({
      answer: refused,
      ran: true,
      delayMs: 0,
    });
    const low = { ...created, status: 199 };
    expect((await applyFault({ status: 201 }, runs(low))).answer).toBe(low);
    const ok = { ...created, status: 200 };
    expect((await applyFault({ status: 201 }, runs(ok))).answer.status).toBe(201);
    const edge = { ...created, status: 299 };
    expect((await applyFault({ status: 200 }, runs(edge))).answer.status).toBe(200);
    const high = { ...created, status: 300 };
    expect((await applyFault({ status: 200 }, runs(high))).answer).toBe(high);
  });

  it('reset before: the call never runs, the connection is reset', async () => {
    const run = runs(created);
    expect(await applyFault({ reset: 'before' }, run)).toEqual({
      answer: { status: 0, headers: {}, body: undefined, network: { kind: 'reset' } },
      ran: false,
      delayMs: 0,
    });
    expect(run).not.toHaveBeenCalled();
  });

  it.each([
    [{ reset: 'after' } as const, { kind: 'reset' }],
    [{ timeout: 'after' } as const, { kind: 'hang' }],
    [{ truncate: { afterBytes: 3 } }, { kind: 'truncate', afterBytes: 3 }],
    [{ drip: { bytes: 2, everyMs: 9 } }, { kind: 'drip', bytes: 2, everyMs: 9 }],
  ])('%j: the call runs, then the connection is told %j', async (fault, network) => {
    const run = runs(created);
    expect(await applyFault(fault, run)).toEqual({ answer: { ...created, network }, ran: true, delayMs: 0 });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('a delay: the call runs, and the wait is the caller’s', async () => {
    expect(await applyFault({ delayMs: 250 }, runs(created))).toEqual({
      answer: created,
      ran: true,
      delayMs: 250,
    });
  });
});

describe('SandboxSecrets', () => {
  const secrets = new SandboxSecrets('tok+en/1', () => ['webhook-value', 'abc', 'four', 'long-secret']);

  it('names credentials by pattern, but not names that only say what kind or which one', () => {
    for (const name of [
      'authorization',
      'x-api-key',
      'apiKey',
      'client_secret',
      'access_token',
      'password',
      'passwd',
      'X-Signature',
      'sig',
      'cookie',
      'session',
      'x-credential',
      'headerValue',
      'Ocp-Apim-Subscription-Key',
    ]) {
      expect(namesCredential(name), name).toBe(true);
    }
    for (const name of [
      'token_type',
      'tokenType',
      'keyId',
      'key_name',
      'headerName',
      'signature_type',
      'design',
      'content-type',
      'description',
      'monkey-id',
    ]) {
      expect(namesCredential(name), name).toBe(false);
    }
  });

  it('redacts the token in every spelling, issued tokens, and secret values of 4 characters or more', () => {
    expect(secrets.text('a tok+en/1 b tok%2Ben%2F1 c tok\\u002Ben\\/1')).toBe(
      'a [REDACTED] b [REDACTED] c [REDACTED]',
    );
    expect(secrets.text('bearer sbx_oauth_AbC-12_x, next')).toBe('bearer [REDACTED], next');
    expect(secrets.text('webhook-value and long-secret twice: long-secret; abc stays')).toBe(
      '[REDACTED] and [REDACTED] twice: [REDACTED]; abc stays',
    );
    expect(new SandboxSecrets('', () => []).text('nothing to hide')).toBe('nothing to hide');
    expect(secrets.text('four abc')).toBe('[REDACTED] abc');
  });

  it('shows headers with credentials blanked, Authorization keeping its scheme', () => {
    expect(
      secrets.headers(
        {
          authorization: 'Bearer anything',
          'Proxy-Authorization': 'Basic abc=',
          Authorization: 'garbage',
          'x-partner': 'carries webhook-value',
          'x-custom': 'shown',
          'x-api-key': 'k',
        },
        new Set(['x-partner']),
      ),
    ).toEqual({
      authorization: 'Bearer [REDACTED]',
      'Proxy-Authorization': 'Basic [REDACTED]',
      Authorization: '[REDACTED]',
      'x-partner': '[REDACTED]',
      'x-custom': 'shown',
      'x-api-key': '[REDACTED]',
    });
    expect(secrets.headers({ 'x-note': 'tok+en/1' })).toEqual({ 'x-note': '[REDACTED]' });
    expect(
      secrets.headers({ authorization: '!! Bearer x', 'proxy-authorization': 'Bearer   spaced' }),
    ).toEqual({
      authorization: '[REDACTED]',
      'proxy-authorization': 'Bearer [REDACTED]',
    });
  });

  it('shows JSON with credential fields blanked (null kept), strings redacted, deep values cut', () => {
    expect(
      secrets.json({
        headerValue: 'v',
        token: null,
        nested: [{ client_secret: 5, note: 'tok+en/1' }],
        'tok+en/1': 1,
        n: 2,
        b: true,
      }),
    ).toEqual({
      headerValue: '[REDACTED]',
      token: null,
      nested: [{ client_secret: '[REDACTED]', note: '[REDACTED]' }],
      '[REDACTED]': 1,
      n: 2,
      b: true,
    });
    // 32 levels are walked; the 33rd is blanked whole.
    let deep: unknown = 'bottom';
    for (let i = 0; i < 33; i++) deep = { d: deep };
    expect(JSON.stringify(secrets.json(deep))).toBe(`${'{"d":'.repeat(32)}"[REDACTED]"${'}'.repeat(32)}`);
    let shallow: unknown = 'bottom';
    for (let i = 0; i < 32; i++) shallow = { d: shallow };
    expect(JSON.stringify(secrets.json(shallow))).toContain('"bottom"');
    let list: unknown = 'bottom';
    for (let i = 0; i < 33; i++) list = [list];
    expect(JSON.stringify(secrets.json(list))).toBe(`${'['.repeat(32)}"[REDACTED]"${']'.repeat(32)}`);
  });

  it('shows a URL without its password or credential query values; text that is no URL as text', () => {
    expect(secrets.url('https://u:p@h.test/x?api_key=1&page=2#f')).toBe(
      'https://u:REDACTED@h.test/x?api_key=REDACTED&page=2#f',
    );
    expect(secrets.url('https://u@h.test/tok+en/1')).toBe('https://u@h.test/[REDACTED]');
    expect(secrets.url('::not a url webhook-value')).toBe('::not a url [REDACTED]');
  });

  it('shows bodies: empty, forms, JSON, text, binary, multipart, and long ones cut', () => {
    expect(secrets.body(new Uint8Array())).toEqual({ bytes: 0 });
    expect(secrets.body(undefined)).toEqual({ bytes: 0 });
    expect(secrets.body('')).toEqual({ bytes: 0 });
    expect(
      secrets.body('a=1&client_secret=s&note=tok%2Ben%2F1', 'application/x-www-form-urlencoded'),
    ).toEqual({
      bytes: 37,
      text: 'a=1&client_secret=[REDACTED]&note=[REDACTED]',
    });
    expect(secrets.body('{"password":"p"}', 'text/plain')).toEqual({
      bytes: 16,
      text: '{\n  "password": "[REDACTED]"\n}',
    });
    expect(secrets.body('plain tok+en/1', 'text/plain')).toEqual({ bytes: 14, text: 'plain [REDACTED]' });
    expect(secrets.body(Buffer.from([0x68, 0, 0x69]))).toEqual({ bytes: 3 });
    expect(secrets.body(Buffer.from([0x68, 0xff, 0xfe, 0x69, 0x6a, 0x6b, 0x6c]))).toEqual({ bytes: 7 });
    const multipart =
      '--b\r\nContent-Disposition: form-data; name="x"; filename="f.txt"\r\n\r\nhi\r\n--b--\r\n';
    expect(secrets.body(multipart, 'Multipart/Form-Data; boundary=b')).toEqual({
      bytes: multipart.length,
      parts: [{ name: 'x', filename: 'f.txt', contentType: 'application/octet-stream', bytes: 2 }],
    });
    const noName = '--b\r\nContent-Disposition: form-data\r\n\r\nhi\r\n--b--\r\n';
    expect(secrets.body(noName, 'multipart/form-data; boundary=b').parts).toEqual([
      { contentType: 'application/octet-stream', bytes: 2 },
    ]);
    const sliced = new Uint8Array(Buffer.from('xxabcxx')).subarray(2, 5);
    expect(secrets.body(sliced)).toEqual({ bytes: 3, text: 'abc' });
    const exact = 'e'.repeat(MAX_VIEW_CHARS);
    expect(secrets.body(exact)).toEqual({ bytes: MAX_VIEW_CHARS, text: exact });
    const over = 'e'.repeat(MAX_VIEW_CHARS + 1);
    expect(secrets.body(over)).toEqual({ bytes: MAX_VIEW_CHARS + 1, text: exact, truncated: true });
    const parsedBig = JSON.stringify({ a: 'q'.repeat(MAX_VIEW_CHARS) });
    expect(secrets.body(parsedBig, 'application/json')).toMatchObject({ truncated: true });
    const huge = Buffer.alloc(3 * 1024 * 1024, 'h');
    expect(secrets.body(huge)).toEqual({
      bytes: huge.length,
      text: 'h'.repeat(MAX_VIEW_CHARS),
      truncated: true,
    });
    // Past the parsing size, a body is shown as text even if it is JSON, and cut.
    const bigJson = `{"password":"${'p'.repeat(1024 * 1024)}"}`;
    expect(secrets.body(bigJson, 'application/json').text?.startsWith('{"password":"ppp')).toBe(true);
    // A multi-byte character cut at the end of what is read is not taken for binary.
    const wide = '中'.repeat(30_000);
    expect(secrets.body(wide)).toEqual({ bytes: 90_000, text: '中'.repeat(MAX_VIEW_CHARS), truncated: true });
    // ...but a NUL anywhere else in what is read is.
    const nul = Buffer.alloc(100_000, 'a');
    nul[100] = 0;
    expect(secrets.body(nul)).toEqual({ bytes: 100_000 });
    const window = 4 * MAX_VIEW_CHARS;
    const endsInNul = Buffer.alloc(window, 'a');
    endsInNul[window - 1] = 0;
    expect(secrets.body(endsInNul)).toEqual({ bytes: window });
    // A body past what is read is cut, even when redacting made its start short.
    const token = 't'.repeat(128);
    const many = new SandboxSecrets(token, () => []);
    expect(many.body(token.repeat(window / 128))).toEqual({
      bytes: window,
      text: '[REDACTED]'.repeat(window / 128),
    });
    expect(many.body(token.repeat(window / 128 + 1))).toEqual({
      bytes: window + 128,
      text: '[REDACTED]'.repeat(window / 128),
      truncated: true,
    });
    // Exactly 1 MiB is parsed; a byte more is not.
    const mib = 1024 * 1024;
    const atLimit = `{"password":"${'p'.repeat(mib - 15)}"}`;
    expect(atLimit.length).toBe(mib);
    expect(secrets.body(atLimit, 'application/json').text?.startsWith('{\n  "password": "[REDACTED]"')).toBe(
      true,
    );
    const pastLimit = `{"password":"${'p'.repeat(mib - 14)}"}`;
    expect(secrets.body(pastLimit, 'application/json').text?.startsWith('{"password":"ppp')).toBe(true);
    // The media type is read from its start: a parameter naming another is not it.
    expect(secrets.body(multipart, 'text/plain; note=multipart/form-data; boundary=b').parts).toBeUndefined();
    expect(secrets.body('client_secret=s', 'text/plain; x=application/x-www-form-urlencoded').text).toBe(
      'client_secret=s',
    );
  });
});
