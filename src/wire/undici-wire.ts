import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import {
  type AttemptState,
  type BodySource,
  CONNECT_TIMEOUT_CODE,
  failureOf,
  NODE_WORDING,
  WireAnswer,
  type Wording,
} from './attempt.js';
import { OwnDispatcher } from './dispatcher.js';
import { decodeNodeBody } from './node-decode.js';
import type { Wire, WireRequest } from './types.js';
import { loadUndiciAgents, type UndiciAgents } from './undici-agents.js';
import { WriteWatch } from './write-watch.js';

const TIMEOUT_CODES: ReadonlySet<unknown> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const WORDING: Wording = {
  ...NODE_WORDING,
  // Connecting is bounded by the dispatcher's connect timeout (undici's default: 10 s), not timeoutMs.
  connectTimeout: `the dispatcher's connect timeout passed (${CONNECT_TIMEOUT_CODE})`,
};

// undici is loaded on the first request, not on import (see undici-agents.ts).
let undici: UndiciAgents | undefined;

/**
 * The default wire once a client is busy (see cold-start-wire.ts), and for uploads: undici's
 * `Dispatcher.request`, on the client's own dispatcher (see {@link OwnDispatcher}) or on one the
 * user gave. It is asked with origin and path already split: `undici.request(url)` would parse
 * the URL string again on every call, a measurable share of a small request's cost. Timeouts are
 * undici's own `headersTimeout`/`bodyTimeout`, which restart on every chunk written or read: no
 * timer or AbortController of ours per attempt. What it does unlike the other wires: the write
 * watch that proves a request unwritten (see {@link WriteWatch}), on its own dispatcher only.
 */
export function undiciWire(dispatcher: OwnDispatcher | Dispatcher): Wire {
  const own = dispatcher instanceof OwnDispatcher ? dispatcher : undefined;
  // A proxy agent (ours, or any dispatcher a user gives) may write to the headers object.
  const copyHeaders = own?.writesHeaders ?? true;
  return async (req) => {
    // A user's dispatcher comes from their undici, loaded already: none of ours is needed.
    if (own) undici ??= await loadUndiciAgents();
    // Whether a failed request was written is known only on our own dispatcher: a user's may
    // create several undici requests for one (a retrying one), later, out of our sight.
    const watch = own ? new WriteWatch(typeof req.body !== 'object') : undefined;
    const attempt = new UndiciAttempt(req, watch);
    let target = dispatcher as Dispatcher;
    try {
      // Refused (nothing sent) once the client is closed.
      if (own) target = own.take(undici as UndiciAgents, performance.now());
      const options: Dispatcher.RequestOptions = {
        origin: req.origin,
        path: req.path,
        method: req.method as Dispatcher.HttpMethod,
        headers: copyHeaders ? { ...req.headers } : req.headers,
        // Only the Node entry uses this wire, and its uploads are Node streams, never web ones.
        body: req.body as string | Readable | undefined,
        // undici takes any object with addEventListener (it checks for it, not for AbortSignal).
        signal: req.signal as unknown as AbortSignal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      };
      const res = await (watch ? watch.dispatch(() => target.request(options)) : target.request(options));
      own?.touch(performance.now(), res.headers['keep-alive']);
      attempt.body = res.body;
      return new WireAnswer(res.statusCode, res.headers, attempt, attempt, WORDING, decodeNodeBody);
    } catch (error) {
      // Stryker disable next-line StringLiteral: failureOf tells only 'body' apart; any other phase is the head's
      const failure = failureOf(attempt, WORDING, error, 'head');
      // Its other connections, as old, are likely dead too: the repeat gets a fresh dispatcher.
      // (A dead connection is proven by the write watch, on our own dispatcher only.)
      if (failure.sent === 'dead_connection') (own as OwnDispatcher).retire(target);
      throw failure;
    }
  };
}

/**
 * An attempt on undici, and its answer's body once it came (one object per call): its timers
 * are undici's own, its proof of an unwritten request the watch's.
 */
class UndiciAttempt implements AttemptState, BodySource {
  readonly signal: WireRequest['signal'];
  readonly timeoutMs: number;
  body: Readable | undefined = undefined;

  constructor(
    req: WireRequest,
    private readonly watch: WriteWatch | undefined,
  ) {
    this.signal = req.signal;
    this.timeoutMs = req.timeoutMs;
  }

  timedOut(error: unknown): 'connect' | 'progress' | undefined {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect';
    return TIMEOUT_CODES.has(code) ? 'progress' : undefined;
  }

  progress(): void {}

  done(): void {}

  neverWritten(): boolean {
    return this.watch?.neverWritten === true;
  }

  chunks(): Readable {
    return this.body as Readable;
  }

  cancel(): void {
    const body = this.body as Readable;
    // undici's body emits an AbortError when destroyed unread: no one waits for it any more.
    body.on('error', ignore);
    body.destroy();
  }
}

function ignore(): void {}
