import { createServer } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../../src/webhooks/index.js';
import { closeServer, listen, send } from './http-send.js';
import { delivery, HEADER, receiverContract, SECRET } from './receiver-contract.js';

receiverContract('node:http', async (options, onDelivery) => {
  const server = createServer(createNodeMiddleware(options, onDelivery));
  const port = await listen(server);
  return { send: (r) => send(port, '/hooks', r), close: () => closeServer(server) };
});

receiverContract(
  'Express',
  async (options, onDelivery) => {
    const app = express();
    app.post('/hooks/claims', createNodeMiddleware(options, onDelivery));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    return { send: (r) => send(port, '/hooks/claims', r), close: () => closeServer(server) };
  },
  { routed: true },
);

describe('createNodeMiddleware behind body parsers (Express)', () => {
  const options = { headerName: HEADER, headerValue: SECRET };
  const request = { headers: { [HEADER]: SECRET, 'content-type': 'application/json' }, body: delivery() };

  async function withApp(mount: (app: express.Express) => void, run: (port: number) => Promise<void>) {
    const app = express();
    mount(app);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      await run((server.address() as { port: number }).port);
    } finally {
      await closeServer(server);
    }
  }

  it('after express.json(): 500, saying the body was already parsed, the handler not called', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const hook = createNodeMiddleware(
      { ...options, onError: (e) => void errors.push(e) },
      () => void calls++,
    );
    await withApp(
      (app) => app.post('/hooks', express.json(), hook),
      async (port) => {
        const res = await send(port, '/hooks', request);
        expect(res.status).toBe(500);
        expect(JSON.parse(res.body).error).toMatch(
          /^the request body was already read \(req\.body is already set, to a object\).*mount the webhook receiver before any JSON body parser/,
        );
      },
    );
    expect(calls).toBe(0);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/already read/);
  });

  it('after a middleware that drained the stream without setting req.body: 500 too', async () => {
    const hook = createNodeMiddleware({ ...options, onError: () => {} }, () => {});
    await withApp(
      (app) =>
        app.post(
          '/hooks',
          (req, _res, next) => {
            req.on('end', () => next()).resume();
          },
          hook,
        ),
      async (port) => {
        const res = await send(port, '/hooks', request);
        expect(res.status).toBe(500);
        expect(JSON.parse(res.body).error).toMatch(/the request stream was already read/);
      },
    );
  });

  it('after express.raw() or express.text(): the raw body is used, and still capped', async () => {
    const seen: unknown[] = [];
    const hook = createNodeMiddleware({ ...options, maxBodyBytes: 200 }, (p) => void seen.push(p));
    await withApp(
      (app) => {
        app.post('/raw', express.raw({ type: '*/*' }), hook);
        app.post('/text', express.text({ type: '*/*' }), hook);
      },
      async (port) => {
        expect((await send(port, '/raw', request)).status).toBe(200);
        expect((await send(port, '/text', request)).status).toBe(200);
        const big = { ...request, body: delivery('d', { pad: 'x'.repeat(300) }), chunked: true };
        expect((await send(port, '/raw', big)).status).toBe(413);
        expect((await send(port, '/text', big)).status).toBe(413);
      },
    );
    expect(seen).toEqual([JSON.parse(delivery()), JSON.parse(delivery())]);
  });

  it('with next: a request other than POST goes on to the next handler; without: 405', async () => {
    const hook = createNodeMiddleware(options, () => {});
    await withApp(
      (app) => {
        app.use('/hooks', hook);
        app.get('/hooks', (_req, res) => void res.send('next'));
      },
      async (port) => {
        const res = await send(port, '/hooks', { ...request, method: 'GET', body: '' });
        expect(res).toMatchObject({ status: 200, body: 'next' });
      },
    );
    const server = createServer(hook);
    const port = await listen(server);
    try {
      const res = await send(port, '/', { ...request, method: 'PUT' });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
    } finally {
      await closeServer(server);
    }
  });

  it('a sender that drops the connection mid-body: no answer needed, no crash, the handler not called', async () => {
    const { connect } = await import('node:net');
    let calls = 0;
    const server = createServer(createNodeMiddleware(options, () => void calls++));
    const port = await listen(server);
    try {
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /hook HTTP/1.1\r\nHost: x\r\n${HEADER}: ${SECRET}\r\nContent-Length: 1000\r\n\r\n{"webhookEvent":`,
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).toBe(0);
      // The server still answers the next sender.
      expect((await send(port, '/', request)).status).toBe(200);
    } finally {
      await closeServer(server);
    }
  });
});

describe('createNodeMiddleware with requests and answers it did not make', () => {
  const options = { headerName: HEADER, headerValue: SECRET, onError: () => {} };
  /** A request as node:http would hand it over, its body given as chunks. */
  function fakeRequest(chunks: unknown[], extra: Record<string, unknown> = {}) {
    return {
      method: 'POST',
      headers: { [HEADER.toLowerCase()]: SECRET },
      async *[Symbol.asyncIterator]() {
        yield* chunks;
      },
      ...extra,
    };
  }
  /** An answer that records what was written; resolves `written` once it ends. */
  function fakeResponse(headersSent = false) {
    let done!: (value: { status: number; body: string }) => void;
    const written = new Promise<{ status: number; body: string }>((resolve) => {
      done = resolve;
    });
    let status = 0;
    return {
      written,
      res: {
        headersSent,
        writeHead: (s: number) => {
          status = s;
        },
        end: (body: string) => done({ status, body }),
      },
    };
  }

  it('with next, a request without a method is passed on', () => {
    let passed = 0;
    createNodeMiddleware(options, () => {})(
      { headers: {}, async *[Symbol.asyncIterator]() {} },
      fakeResponse().res,
      () => {
        passed++;
      },
    );
    expect(passed).toBe(1);
  });

  it('an answer someone already sent is not written again', async () => {
    let onDelivery!: () => void;
    const handled = new Promise<void>((resolve) => {
      onDelivery = resolve;
    });
    let writes = 0;
    const res = { headersSent: true, writeHead: () => void writes++, end: () => void writes++ };
    createNodeMiddleware(options, onDelivery)(fakeRequest([delivery()]), res);
    await handled;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writes).toBe(0);
  });

  it('a stream something began to read, or that ended, is refused: 500', async () => {
    for (const extra of [
      { readableDidRead: true, readableEnded: false },
      { readableDidRead: false, readableEnded: true },
    ]) {
      const { res, written } = fakeResponse();
      createNodeMiddleware(options, () => {})(fakeRequest([delivery()], extra), res);
      const answer = await written;
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body).error).toMatch(/the request stream was already read/);
    }
  });

  it('text chunks (a stream set to utf8) are read as the bytes they stand for; a plain iterable works', async () => {
    const seen: unknown[] = [];
    const text = delivery('d', { detail: 'Gebäude 東京 🏠' });
    const { res, written } = fakeResponse();
    createNodeMiddleware({ ...options, maxBodyBytes: Buffer.byteLength(text) }, (p) => void seen.push(p))(
      fakeRequest([text.slice(0, 20), text.slice(20)]),
      res,
    );
    expect((await written).status).toBe(200);
    expect(seen).toEqual([JSON.parse(text)]);
    // One byte less than the text's bytes (not its characters): 413.
    const over = fakeResponse();
    createNodeMiddleware({ ...options, maxBodyBytes: Buffer.byteLength(text) - 1 }, () => {})(
      fakeRequest([text]),
      over.res,
    );
    expect((await over.written).status).toBe(413);
  });

  it('express.text() of non-ASCII text: the cap counts bytes, not characters', async () => {
    const text = delivery('d', { detail: '東京'.repeat(20) });
    const app = express();
    app.post(
      '/hooks',
      express.text({ type: '*/*' }),
      createNodeMiddleware({ ...options, maxBodyBytes: Buffer.byteLength(text) - 1 }, () => {}),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      expect(text.length).toBeLessThan(Buffer.byteLength(text) - 1);
      const headers = { [HEADER]: SECRET, 'content-type': 'text/plain; charset=utf-8' };
      const res = await send(port, '/hooks', { headers, body: text, chunked: true });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error).toBe(`the body is larger than ${Buffer.byteLength(text) - 1} bytes`);
    } finally {
      await closeServer(server);
    }
  });
});
