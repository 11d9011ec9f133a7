/**
 * Upload sources that can be read only once (a Node `Readable`, a web `ReadableStream`, or a list
 * holding one) are never sent a second time, even after a 429; and an upload still being sent
 * when an error answer comes is stopped (its stream destroyed), not left open.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsApiError, ClaimsClient } from '../../src/index.js';
import { WIRES } from '../faults/fault-server.js';

let server: Server;
let url = '';
let hits = 0;
/** What the server does with each request; `readFirst` reads the whole body before answering. */
let answer: { status: number; readFirst: boolean } = { status: 429, readFirst: true };

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    const reply = () => {
      if (res.headersSent) return;
      const ok = answer.status < 300;
      res.writeHead(answer.status, { 'content-type': 'application/json', 'retry-after-ms': '1' });
      res.end(ok ? JSON.stringify([{ filename: 'a.txt', attachmentId: 'a1' }]) : '{"message":"slow down"}');
    };
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    if (answer.readFirst) {
      req.resume();
      req.on('end', reply);
    } else reply();
  });
  server.on('connection', (s) => s.on('error', () => undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  hits = 0;
  answer = { status: 429, readFirst: true };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const webStream = () =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('web bytes'));
      controller.close();
    },
  });

describe.each(WIRES)('one-shot upload sources, $name', ({ options }) => {
  const client = () => new ClaimsClient({ baseUrl: url, accessToken: 'tok', maxRetries: 2, ...options });

  it('a Buffer-only upload is re-sent after a 429 (the control: replayable sources repeat)', async () => {
    await expect(
      client().attachments.upload([
        { data: Buffer.from('a'), filename: 'a.txt' },
        { data: Buffer.from('b'), filename: 'b.txt' },
      ]),
    ).rejects.toBeInstanceOf(ClaimsApiError);
    expect(hits).toBe(3);
  });

  it('a web ReadableStream source is sent once, even after a 429', async () => {
    const error = await client()
      .attachments.upload({ data: webStream(), filename: 'w.txt' })
      .catch((e: unknown) => e);
    expect((error as ClaimsApiError).status).toBe(429);
    expect(hits).toBe(1);
  });

  it('a list mixing a Buffer with a Readable is sent once, even after a 429', async () => {
    const error = await client()
      .attachments.upload([
        { data: Buffer.from('a'), filename: 'a.txt' },
        { data: Readable.from([Buffer.from('node bytes')]), filename: 'r.txt' },
      ])
      .catch((e: unknown) => e);
    expect((error as ClaimsApiError).status).toBe(429);
    expect(hits).toBe(1);
  });

  it('a list mixing a Buffer with a web stream is sent once, even after a 429', async () => {
    const error = await client()
      .attachments.upload([
        { data: webStream(), filename: 'w.txt' },
        { data: Buffer.from('a'), filename: 'a.txt' },
      ])
      .catch((e: unknown) => e);
    expect((error as ClaimsApiError).status).toBe(429);
    expect(hits).toBe(1);
  });

  it('an upload still being sent when an error answer comes is destroyed', async () => {
    answer = { status: 413, readFirst: false };
    // One chunk, then nothing: without the SDK stopping it, this stream would stay open forever.
    let pushed = false;
    const endless = new Readable({
      read() {
        if (!pushed) {
          pushed = true;
          this.push(Buffer.alloc(64 * 1024, 1));
        }
      },
    });
    const error = await client()
      .attachments.upload({ data: endless, filename: 'big.bin' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsApiError);
    expect((error as ClaimsApiError).status).toBe(413);
    expect(hits).toBe(1);
    await expect.poll(() => endless.destroyed, { timeout: 2_000 }).toBe(true);
  });
});
