/**
 * A streamed request body watched for stalls (src/internal/progress.ts for Node streams,
 * web-progress.ts for web streams): a body that stops before or between chunks ends the call
 * with a timeout naming the request body; each chunk restarts the wait; once the body is all
 * read the watch ends (the wire's own timeout covers the answer); destroying the watched body
 * destroys the caller's source with the same error.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stoppedError } from '../../src/call-errors.js';
import { CallSignal, TICK_MS } from '../../src/internal/call-signal.js';
import { watchNodeBody } from '../../src/internal/progress.js';
import { watchWebBody } from '../../src/internal/web-progress.js';
import type { WebStreamBody } from '../../src/wire/types.js';

const IDLE_MS = 2 * TICK_MS;
const signals: CallSignal[] = [];
function call(): CallSignal {
  const signal = new CallSignal(60_000, undefined);
  signals.push(signal);
  return signal;
}
/** The message the call rejects with once its signal stopped it. */
const messageOf = (signal: CallSignal) =>
  stoppedError(signal, IDLE_MS, 'unknown', { method: 'POST', url: 'http://x/attachments', attempts: 1 })
    .message;
const STALLED = `POST http://x/attachments: Request timed out: the request body made no progress for ${IDLE_MS} ms (the request may have been processed)`;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
});
afterEach(() => {
  for (const signal of signals.splice(0)) signal.end();
  vi.advanceTimersByTime(TICK_MS);
  vi.useRealTimers();
});

describe('a Node stream body', () => {
  it('that sends nothing stalls, naming the request body', async () => {
    const signal = call();
    watchNodeBody(new PassThrough(), signal, IDLE_MS);
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    expect(signal.stopped).toBe('idle');
    expect(messageOf(signal)).toBe(STALLED);
  });

  it('each chunk restarts the wait; a stall after one is named the same', async () => {
    const signal = call();
    const source = new PassThrough();
    const watched = watchNodeBody(source, signal, IDLE_MS);
    const read: Buffer[] = [];
    watched.on('data', (chunk: Buffer) => read.push(chunk));
    await vi.advanceTimersByTimeAsync(IDLE_MS - TICK_MS);
    source.write('abc');
    await vi.advanceTimersByTimeAsync(IDLE_MS - TICK_MS);
    expect(signal.stopped).toBeUndefined();
    expect(Buffer.concat(read).toString()).toBe('abc');
    await vi.advanceTimersByTimeAsync(TICK_MS);
    expect(signal.stopped).toBe('idle');
    expect(messageOf(signal)).toBe(STALLED);
  });

  it('all read: the watch ends, however long the answer takes', async () => {
    const signal = call();
    const source = new PassThrough();
    const watched = watchNodeBody(source, signal, IDLE_MS);
    watched.resume();
    source.end('abc');
    await new Promise((resolve) => watched.on('end', resolve));
    await vi.advanceTimersByTimeAsync(10 * IDLE_MS);
    expect(signal.stopped).toBeUndefined();
  });

  it('destroying the watched body destroys the source with the same error', () => {
    const source = new PassThrough();
    source.on('error', () => undefined);
    const watched = watchNodeBody(source, call(), IDLE_MS);
    watched.on('error', () => undefined);
    const error = new Error('the call stopped');
    watched.destroy(error);
    expect(source.destroyed).toBe(true);
    expect(source.errored).toBe(error);
  });
});

describe('a web stream body', () => {
  function webBody(): {
    body: WebStreamBody;
    push: (text: string) => void;
    end: () => void;
    destroyed: unknown[];
  } {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const web = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
    });
    const destroyed: unknown[] = [];
    return {
      body: { web, destroy: (error) => destroyed.push(error) },
      push: (text) => controller.enqueue(new TextEncoder().encode(text)),
      end: () => controller.close(),
      destroyed,
    };
  }

  it('that sends nothing stalls, naming the request body', async () => {
    const signal = call();
    watchWebBody(webBody().body, signal, IDLE_MS);
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    expect(signal.stopped).toBe('idle');
    expect(messageOf(signal)).toBe(STALLED);
  });

  it('each chunk restarts the wait, and passes on unchanged; a stall after one is named the same', async () => {
    const signal = call();
    const source = webBody();
    const reader = watchWebBody(source.body, signal, IDLE_MS).web.getReader();
    await vi.advanceTimersByTimeAsync(IDLE_MS - TICK_MS);
    source.push('abc');
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('abc');
    await vi.advanceTimersByTimeAsync(IDLE_MS - TICK_MS);
    expect(signal.stopped).toBeUndefined();
    await vi.advanceTimersByTimeAsync(TICK_MS);
    expect(signal.stopped).toBe('idle');
    expect(messageOf(signal)).toBe(STALLED);
  });

  it('all read: the watch ends, however long the answer takes', async () => {
    const signal = call();
    const source = webBody();
    const reader = watchWebBody(source.body, signal, IDLE_MS).web.getReader();
    source.push('abc');
    source.end();
    while (!(await reader.read()).done) {}
    await vi.advanceTimersByTimeAsync(10 * IDLE_MS);
    expect(signal.stopped).toBeUndefined();
  });

  it('destroying the watched body destroys the source with the same error', () => {
    const source = webBody();
    const watched = watchWebBody(source.body, call(), IDLE_MS);
    const error = new Error('the call stopped');
    watched.destroy(error);
    expect(source.destroyed).toEqual([error]);
    expect(source.destroyed[0]).toBe(error);
  });
});
