/**
 * The fetch wire (a user's `fetch`, and the edge build's only wire): the `init` each request
 * hands to fetch, the progress timer on runtimes whose timers cannot restart in place (Deno,
 * workerd), and a timer restarted once the answer's head arrives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClaimsClient, ClaimsConnectionError, ClaimsTimeoutError } from '../../src/index.js';
import { WireFailure } from '../../src/wire/failure.js';
import { fetchWire } from '../../src/wire/fetch-wire.js';
import { event } from '../helpers/fixtures.js';

const ATTACHMENT = [{ filename: 'a.txt', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' }];

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A fetch that records each `init` and answers `answer()` without any network. */
function recordingFetch(answer: () => Response): {
  fetch: (url: string, init: RequestInit & { duplex?: string }) => Promise<Response>;
  seen: Array<{ url: string; init: RequestInit & { duplex?: string } }>;
} {
  const seen: Array<{ url: string; init: RequestInit & { duplex?: string } }> = [];
  return {
    seen,
    fetch: async (url, init) => {
      seen.push({ url, init });
      if (init.body instanceof ReadableStream) await new Response(init.body).arrayBuffer();
      return answer();
    },
  };
}

describe('the init a user’s fetch is given', () => {
  it('a JSON POST: method, headers, the JSON text, the call’s signal; redirects not followed; no duplex', async () => {
    const { fetch, seen } = recordingFetch(() => Response.json({ eventId: 'E-1' }, { status: 201 }));
    const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9/api', accessToken: 'tok', fetch });
    await client.events.create('I-1', event);
    expect(seen).toHaveLength(1);
    const [{ url, init }] = seen as [(typeof seen)[number]];
    expect(url).toBe('http://127.0.0.1:9/api/incidents/I-1/events');
    expect(Object.keys(init).sort()).toEqual(['body', 'headers', 'method', 'redirect', 'signal']);
    expect(init.method).toBe('POST');
    expect(init.redirect).toBe('manual');
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(JSON.parse(init.body as string)).toEqual(event);
    expect(init.headers).toEqual({
      accept: 'application/json',
      'user-agent': expect.stringMatching(/^claims-notification-sdk\//),
      authorization: 'Bearer tok',
      'content-type': 'application/json',
    });
  });

  it('a GET: no body, redirects not followed', async () => {
    const { fetch, seen } = recordingFetch(() => Response.json([]));
    const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'tok', fetch });
    await client.subscriptions.list(3);
    const init = seen[0]?.init;
    expect(init?.method).toBe('GET');
    expect(init?.body).toBeUndefined();
    expect(init?.redirect).toBe('manual');
    expect(init && 'duplex' in init).toBe(false);
  });

  it("an upload: a web stream sent half-duplex, with redirect 'error'", async () => {
    const { fetch, seen } = recordingFetch(() => Response.json(ATTACHMENT));
    const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'tok', fetch });
    await client.attachments.upload({ data: Buffer.from('hello'), filename: 'a.txt' });
    const init = seen[0]?.init;
    expect(init?.body).toBeInstanceOf(ReadableStream);
    expect(init?.duplex).toBe('half');
    expect(init?.redirect).toBe('error');
  });

  it('a fetch that writes to the headers it is given changes nothing for the next request', async () => {
    const headers: Array<Record<string, string>> = [];
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      fetch: async (_url, init) => {
        const given = init.headers as Record<string, string>;
        headers.push({ ...given });
        given['x-added-by-fetch'] = 'yes';
        given.authorization = 'Bearer changed';
        return Response.json([]);
      },
    });
    await client.subscriptions.list(1);
    await client.subscriptions.list(1);
    expect(headers[1]).toEqual(headers[0]);
    expect(headers[1]?.authorization).toBe('Bearer tok');
  });
});

describe('a fetch of yours that resolves something that is not a Response', () => {
  const TOKEN = 'tok_not_in_any_message_1234';
  const clientOver = (value: unknown, calls: { n: number }) =>
    new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9/api',
      accessToken: TOKEN,
      fetch: async () => {
        calls.n++;
        return value as Response;
      },
    });

  it.each([
    [undefined, 'undefined'],
    [null, 'null'],
    ['ok', 'a string'],
    [201, 'a number'],
    [{}, 'an object without a numeric status'],
    [{ status: '201' }, 'an object without a numeric status'],
    [{ status: 201 }, 'an object whose headers are not a Headers'],
    [{ status: 201, headers: { get: () => null } }, 'an object whose headers are not a Headers'],
    // The shape a hand-made mock often has: before, a TypeError from inside the SDK.
    [{ status: 201, headers: {}, json: async () => ({}) }, 'an object whose headers are not a Headers'],
    [{ status: 201, headers: new Headers(), body: '{}' }, 'an object whose body is not a ReadableStream'],
  ])(
    '%j: a ClaimsConnectionError that says so, outcome unknown, a POST not sent again',
    async (value, what) => {
      const calls = { n: 0 };
      const error = await clientOver(value, calls)
        .incidents.create({
          programmeCode: 'PRG-HOME',
          policyCountry: 'GB',
          policyTypeCode: 'HOME-STD',
          incidentDate: '2026-11-02',
          description: 'x',
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsConnectionError);
      expect((error as Error).message).toBe(
        `POST http://127.0.0.1:9/api/incidents: The fetch given to the client resolved ${what}, not a Response (the request may have been processed)`,
      );
      expect(error).toMatchObject({ outcome: 'unknown', method: 'POST', attempts: 1 });
      expect(calls.n).toBe(1);
      expect(JSON.stringify({ ...(error as object) }) + String(error)).not.toContain(TOKEN);
    },
  );

  it('a GET is not sent again either: the fetch would resolve the same', async () => {
    const calls = { n: 0 };
    const error = await clientOver(undefined, calls)
      .subscriptions.list(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(error).toMatchObject({ outcome: 'unknown', method: 'GET', attempts: 1 });
    expect(calls.n).toBe(1);
  });

  it('any value that is no object: the same typed error, never a TypeError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.integer(),
          fc.boolean(),
          fc.bigInt(),
          fc.constant(undefined),
          fc.constant(null),
        ),
        async (value) => {
          const error = await clientOver(value, { n: 0 })
            .subscriptions.list(1, { maxRetries: 0 })
            .catch((e: unknown) => e);
          expect(error).toBeInstanceOf(ClaimsConnectionError);
          expect((error as Error).message).toMatch(
            /: The fetch given to the client resolved (a \w+|undefined|null), not a Response/,
          );
        },
      ),
      { numRuns: 50 },
    );
  });

  it('a Response by shape (another realm, a polyfill) is read as one', async () => {
    const real = Response.json({ eventId: 'E-1' }, { status: 201 });
    const lookalike = { status: real.status, headers: real.headers, body: real.body };
    const created = await clientOver(lookalike, { n: 0 }).events.create('I-1', event);
    expect(created).toEqual({ eventId: 'E-1' });
    // No body at all (a Response's body is null, a lookalike's may be missing): an empty answer.
    const bodiless = { status: 201, headers: new Headers() };
    await expect(clientOver(bodiless, { n: 0 }).events.create('I-1', event)).resolves.toBeUndefined();
  });
});

describe('a Node stream body on a fetch wire that cannot turn it into a web stream', () => {
  it('is refused (nothing sent) before fetch is called, not taken for a failed connection', async () => {
    const fetch = vi.fn();
    const wire = fetchWire(fetch);
    const { Readable } = await import('node:stream');
    const signal = new AbortController().signal;
    const error = await wire({
      url: 'http://127.0.0.1:9/attachments',
      origin: 'http://127.0.0.1:9',
      path: '/attachments',
      method: 'POST',
      headers: {},
      body: Readable.from(['x']),
      signal,
      timeoutMs: 1_000,
    }).catch((e: unknown) => e);
    // Refused before anything left: a POST may be sent again.
    expect(error).toMatchObject({ kind: 'refused', name: 'ClaimsError', sent: 'not_connected' });
    expect((error as Error).message).toBe('A Node stream body cannot be sent by this build of the SDK');
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('a web stream body on a fetch wire that also takes Node streams', () => {
  it('is sent as the web stream it is, not through nodeBodyToWeb; every chunk reaches fetch', async () => {
    const nodeBodyToWeb = vi.fn(() => {
      throw new Error('a web stream is not a Node stream');
    });
    const received: string[] = [];
    const wire = fetchWire(
      async (_url, init) => {
        received.push(await new Response(init.body as ReadableStream).text());
        return new Response(null, { status: 204 });
      },
      { nodeBodyToWeb },
    );
    const web = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('part one, '));
        controller.enqueue(new TextEncoder().encode('part two'));
        controller.close();
      },
    });
    const answer = await wire({
      url: 'http://127.0.0.1:9/attachments',
      origin: 'http://127.0.0.1:9',
      path: '/attachments',
      method: 'POST',
      headers: {},
      body: { web, destroy: () => undefined },
      signal: new AbortController().signal,
      timeoutMs: 1_000,
    });
    expect(answer.status).toBe(204);
    expect(received).toEqual(['part one, part two']);
    expect(nodeBodyToWeb).not.toHaveBeenCalled();
  });
});

/**
 * Timers as Deno and workerd give them: plain numbers, without `refresh()`. Returns the timers
 * still pending, so a test can check none is left behind.
 */
function numericTimers(): { pending: () => number } {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const live = new Map<number, ReturnType<typeof realSet>>();
  let next = 1;
  vi.stubGlobal('setTimeout', (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const id = next++;
    live.set(
      id,
      realSet(() => {
        live.delete(id);
        fn(...args);
      }, ms),
    );
    return id;
  });
  vi.stubGlobal('clearTimeout', (id: unknown) => {
    if (typeof id !== 'number') return realClear(id as ReturnType<typeof realSet>);
    realClear(live.get(id));
    live.delete(id);
  });
  return { pending: () => live.size };
}

/** An answer whose body comes in `chunks` pieces `everyMs` apart, and errors when `signal` aborts. */
function slowAnswer(
  signal: AbortSignal,
  chunks: string[],
  everyMs: number,
  wait: typeof setTimeout,
): Response {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => wait(resolve, everyMs));
      if (signal.aborted) controller.error(signal.reason ?? new Error('aborted'));
      else if (i < chunks.length) controller.enqueue(new TextEncoder().encode(chunks[i++]));
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

describe('on a runtime whose timers are plain numbers (Deno, workerd)', () => {
  it('a body that keeps coming, each piece within timeoutMs, is read whole; no timer is left', async () => {
    const wait = globalThis.setTimeout;
    const timers = numericTimers();
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      timeoutMs: 300,
      maxRetries: 0,
      fetch: async (_url, init) => slowAnswer(init.signal as AbortSignal, ['[', ' ', ' ', ']'], 120, wait),
    });
    await expect(client.subscriptions.list(1)).resolves.toEqual([]);
    expect(timers.pending()).toBe(0);
  });

  it('a body that stops: ClaimsTimeoutError after timeoutMs without progress', async () => {
    const wait = globalThis.setTimeout;
    numericTimers();
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      timeoutMs: 150,
      maxRetries: 0,
      fetch: async (_url, init) => slowAnswer(init.signal as AbortSignal, ['[', ']'], 400, wait),
    });
    const error = await client.subscriptions.list(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
  });
});

describe('on a runtime whose timers are plain numbers, an answer before the upload ends', () => {
  it('the rest of the upload, read after the call resolved, starts no timer again', async () => {
    const wait = globalThis.setTimeout;
    const timers = numericTimers();
    let rest: Promise<void> = Promise.resolve();
    const client = new ClaimsClient({
      baseUrl: 'http://127.0.0.1:9',
      accessToken: 'tok',
      timeoutMs: 5_000,
      fetch: async (_url, init) => {
        // The server answers after the first chunk and reads the rest afterwards.
        const reader = (init.body as ReadableStream<Uint8Array>).getReader();
        await reader.read();
        rest = (async () => {
          await new Promise((resolve) => wait(resolve, 50));
          while (!(await reader.read()).done) {}
        })();
        return Response.json(ATTACHMENT);
      },
    });
    await client.attachments.upload({ data: Buffer.alloc(512 * 1024, 0x61), filename: 'a.txt' });
    await rest;
    expect(timers.pending()).toBe(0);
  });
});

describe('the progress timer restarts when the answer’s head arrives', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it('a head after 0.4 s and a body 0.4 s later both fit a timeoutMs of 0.6 s', async () => {
    server = createServer((req, res) => {
      req.resume();
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        setTimeout(() => res.end('[]'), 400);
      }, 400);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new ClaimsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      accessToken: 'tok',
      timeoutMs: 600,
      maxRetries: 0,
      fetch: globalThis.fetch,
    });
    await expect(client.subscriptions.list(1)).resolves.toEqual([]);
  });
});

describe('the fetch wire called directly', () => {
  const request = (body: ReadableStream<Uint8Array> | undefined, timeoutMs = 1_000) =>
    ({
      url: 'http://127.0.0.1:9/attachments',
      origin: 'http://127.0.0.1:9',
      path: '/attachments',
      method: 'POST',
      headers: {},
      body: body === undefined ? undefined : { web: body, destroy: () => undefined },
      signal: new AbortController().signal,
      timeoutMs,
    }) as const;

  const streamOf = (chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });

  it('an upload that keeps moving (a chunk every 0.2 s) outlasts a timeoutMs of 0.5 s: each chunk is progress', async () => {
    vi.useFakeTimers();
    try {
      const wire = fetchWire(async (_url, init) => {
        // A fetch reading the upload as a slow network takes it, failing once its signal aborts.
        const reader = (init.body as ReadableStream<Uint8Array>).getReader();
        let text = '';
        for (;;) {
          vi.advanceTimersByTime(200);
          if (init.signal?.aborted) throw new DOMException('aborted', 'AbortError');
          const { done, value } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        }
        return new Response(text);
      });
      const answer = await wire(request(streamOf(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']), 500));
      await expect(answer.text(100)).resolves.toEqual({ text: 'abcdefgh', truncated: false });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a fetch rejecting with undefined still fails as a WireFailure, maybe sent', async () => {
    const wire = fetchWire(() => Promise.reject(undefined));
    const failure = await wire(request(undefined)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WireFailure);
    expect(failure).toMatchObject({
      kind: 'connection',
      sent: 'maybe',
      message: 'Connection failed: undefined',
    });
  });

  it('a fetch resolving no Response fails the head as a WireFailure, never to be sent again', async () => {
    const wire = fetchWire(async () => undefined as unknown as Response);
    const failure = await wire(request(undefined)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WireFailure);
    expect(failure).toMatchObject({
      kind: 'connection',
      name: 'ClaimsConnectionError',
      sent: 'not_a_response',
    });
  });

  it('an answer past the cap: the rest is never read, its stream cancelled', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('0123456789'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const wire = fetchWire(async () => new Response(body));
    const answer = await wire(request(undefined));
    await expect(answer.text(4)).resolves.toEqual({ text: '0123', truncated: true });
    expect(cancelled).toBe(true);
  });

  it('an answer with no body at all (null, as a fetch gives for a bodiless 200): read as empty', async () => {
    const wire = fetchWire(async () => new Response(null, { status: 200 }));
    const answer = await wire(request(undefined));
    await expect(answer.text(100)).resolves.toEqual({ text: '', truncated: false });
  });

  it('an answer with no body at all that announces one (a 204 with content-length): read as empty, nothing to cancel', async () => {
    const wire = fetchWire(
      async () => new Response(null, { status: 204, headers: { 'content-length': '5' } }),
    );
    const answer = await wire(request(undefined));
    await expect(answer.text(100)).resolves.toEqual({ text: '', truncated: false });
  });

  it('an answer with no body whose head has both transfer-encoding and content-length: refused, nothing to cancel', async () => {
    const headers = new Headers({ 'content-length': '5', 'transfer-encoding': 'chunked' });
    const wire = fetchWire(async () => new Response(null, { status: 200, headers }));
    const failure = await wire(request(undefined)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WireFailure);
    expect(failure).toMatchObject({ kind: 'connection', sent: 'bad_answer' });
  });
});
