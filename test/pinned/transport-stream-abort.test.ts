/**
 * A streamed body (an upload) when the call is aborted while its source is being opened, or
 * just after: nothing is sent, the call rejects with the AbortError, and the source is
 * destroyed once it is open (a file handle is not left behind). Driven on the Transport
 * itself, whose `open()` and body watch the test controls.
 */
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { outcomeOf } from '../../src/index.js';
import { type StreamBody, Transport } from '../../src/transport.js';
import type { Wire } from '../../src/wire/types.js';

function transport(wire: Wire, watchBody: (body: Readable) => Readable = (body) => body): Transport {
  return new Transport({
    baseUrl: 'http://127.0.0.1:9',
    accessToken: 'tok',
    timeoutMs: 1_000,
    deadlineMs: 5_000,
    maxRetries: 0,
    headers: {},
    userAgent: 'test',
    maxResponseBytes: 1_000,
    wire,
    watchBody: (body) => watchBody(body as Readable),
  });
}

describe('an upload stopped around the opening of its source', () => {
  it('aborted while open() is pending: AbortError, nothing sent, the source destroyed once open', async () => {
    const wire = vi.fn<Wire>();
    const source = new Readable({ read() {} });
    let open: (value: { stream: Readable; headers: Record<string, string> }) => void = () => undefined;
    const stream: StreamBody = {
      replayable: true,
      open: () => new Promise((resolve) => (open = resolve)),
    };
    const controller = new AbortController();
    const call = transport(wire)
      .request({ method: 'POST', path: '/attachments', stream }, { signal: controller.signal })
      .catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const error = await call;
    expect((error as Error).name).toBe('AbortError');
    expect(outcomeOf(error)).toBe('not_sent');
    expect(source.destroyed).toBe(false);
    open({ stream: source, headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.destroyed).toBe(true);
    expect(wire).not.toHaveBeenCalled();
  });

  it('aborted once the source is open, before sending: AbortError, nothing sent, the body destroyed', async () => {
    const wire = vi.fn<Wire>();
    const source = new Readable({ read() {} });
    const controller = new AbortController();
    const stream: StreamBody = {
      replayable: true,
      open: async () => ({ stream: source, headers: {} }),
    };
    // The abort lands while the opened body is being set up for sending.
    const call = transport(wire, (body) => {
      controller.abort();
      return body;
    })
      .request({ method: 'POST', path: '/attachments', stream }, { signal: controller.signal })
      .catch((e: unknown) => e);
    const error = await call;
    expect((error as Error).name).toBe('AbortError');
    expect(source.destroyed).toBe(true);
    expect(wire).not.toHaveBeenCalled();
  });
});
