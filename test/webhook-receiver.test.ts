import { createServer, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import {
  ClaimsError,
  ClaimsValidationError,
  receiveWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '../src/index.js';

const options = { headerName: 'X-Hook-Secret', headerValue: 'correct horse battery staple' };
const body = JSON.stringify({ webhookEvent: 'New Event', data: { incidentId: 'i-1' } });

function failure(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toBeInstanceOf(ClaimsError);
    return error as WebhookVerificationError;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('verifyWebhook', () => {
  it('accepts the right header in any case, from a record or Headers, raw or parsed body', () => {
    const expected = { webhookEvent: 'New Event', data: { incidentId: 'i-1' } };
    expect(verifyWebhook({ 'x-hook-secret': options.headerValue }, body, options)).toEqual(expected);
    expect(verifyWebhook({ 'X-Hook-Secret': options.headerValue }, Buffer.from(body), options)).toEqual(
      expected,
    );
    expect(verifyWebhook(new Headers({ 'x-hook-secret': options.headerValue }), body, options)).toEqual(
      expected,
    );
    // An Express body parser already turned it into an object.
    expect(verifyWebhook({ 'x-hook-secret': options.headerValue }, expected, options)).toEqual(expected);
  });

  it('types and checks the body with a schema', () => {
    const schema = z.object({
      webhookEvent: z.literal('New Event'),
      data: z.object({ incidentId: z.string() }),
    });
    const payload = verifyWebhook({ 'x-hook-secret': options.headerValue }, body, { ...options, schema });
    expect(payload.data.incidentId).toBe('i-1');
    const error = failure(() =>
      verifyWebhook({ 'x-hook-secret': options.headerValue }, '{"webhookEvent":"Other"}', {
        ...options,
        schema,
      }),
    );
    expect(error.reason).toBe('invalid_body');
    expect(error.message).toBe('Webhook body does not have the expected shape');
    expect(error.issues.map((i) => i.path)).toEqual(['webhookEvent', 'data']);
  });

  it('takes a zod/mini schema too, worded by the application’s zod configuration', () => {
    const schema = zm.looseObject({ data: zm.object({ incidentId: zm.string() }) });
    const payload = verifyWebhook({ 'x-hook-secret': options.headerValue }, body, { ...options, schema });
    expectTypeOf(payload.data.incidentId).toEqualTypeOf<string>();
    expect(payload.data.incidentId).toBe('i-1');
    const error = failure(() =>
      verifyWebhook({ 'x-hook-secret': options.headerValue }, '{"data":{"incidentId":7}}', {
        ...options,
        schema,
      }),
    );
    expect(error.issues).toEqual([
      // This file loads zod (classic), which configures English for the whole process.
      { path: 'data.incidentId', message: 'Invalid input: expected string, received number' },
    ]);
  });

  it('refuses a wrong header, whatever its length, without echoing either value', () => {
    for (const wrong of ['x', 'correct horse battery stapler', 'correct horse battery staplf', '']) {
      const error = failure(() => verifyWebhook({ 'x-hook-secret': wrong }, body, options));
      expect(error.reason).toBe('invalid_header');
      expect(error.message).toBe('Webhook header X-Hook-Secret has the wrong value');
    }
    // Repeated copies that differ are ambiguous, hence wrong.
    expect(
      failure(() => verifyWebhook({ 'x-hook-secret': [options.headerValue, 'other'] }, body, options)).reason,
    ).toBe('invalid_header');
    expect(
      verifyWebhook({ 'x-hook-secret': [options.headerValue, options.headerValue] }, body, options),
    ).toBeTruthy();
  });

  it('refuses a missing header', () => {
    expect(failure(() => verifyWebhook({}, body, options)).reason).toBe('missing_header');
    expect(failure(() => verifyWebhook(new Headers(), body, options)).reason).toBe('missing_header');
  });

  it('refuses bad JSON and an empty body', () => {
    const headers = { 'x-hook-secret': options.headerValue };
    const error = failure(() => verifyWebhook(headers, '{"webhookEvent":', options));
    expect(error.reason).toBe('invalid_body');
    expect(error.message).toBe('Webhook body is not valid JSON');
    expect(error.issues).toEqual([{ path: '', message: 'not valid JSON' }]);
    const blank = failure(() => verifyWebhook(headers, '', options));
    expect([blank.reason, blank.message]).toEqual(['invalid_body', 'Webhook body is not valid JSON']);
    const none = failure(() => verifyWebhook(headers, undefined, options));
    expect([none.reason, none.message]).toEqual(['invalid_body', 'Webhook body is empty']);
  });
});

describe('receiveWebhook over node:http', () => {
  async function send(headers: Record<string, string>, payload: string, maxBodyBytes?: number) {
    const server = createServer(async (req, res) => {
      try {
        const parsed = await receiveWebhook(req, { ...options, maxBodyBytes });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(parsed));
      } catch (error) {
        const reason = error instanceof WebhookVerificationError ? error.reason : 'other';
        res.writeHead(reason === 'invalid_body' ? 400 : 401).end(reason);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      return await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
          );
        });
        req.on('error', reject);
        req.end(payload);
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  it('reads and verifies a delivery', async () => {
    const ok = await send({ 'x-hook-secret': options.headerValue }, body);
    expect(ok).toEqual({ status: 200, text: body });
  });

  it('refuses a wrong header, bad JSON and a body over the limit', async () => {
    expect(await send({ 'x-hook-secret': 'nope' }, body)).toEqual({ status: 401, text: 'invalid_header' });
    expect(await send({}, body)).toEqual({ status: 401, text: 'missing_header' });
    expect(await send({ 'x-hook-secret': options.headerValue }, 'not json')).toEqual({
      status: 400,
      text: 'invalid_body',
    });
    expect(await send({ 'x-hook-secret': options.headerValue }, body, 10)).toEqual({
      status: 400,
      text: 'invalid_body',
    });
  });
});

describe('fails closed on options that cannot verify anything', () => {
  const headers = { 'x-hook-secret': '' };
  it.each([
    ['an empty secret', { headerName: 'X-Hook-Secret', headerValue: '' }, 'headerValue'],
    ['a blank secret', { headerName: 'X-Hook-Secret', headerValue: ' \t ' }, 'headerValue'],
    ['no secret', { headerName: 'X-Hook-Secret' }, 'headerValue'],
    ['a non-string secret', { headerName: 'X-Hook-Secret', headerValue: 42 }, 'headerValue'],
    ['an empty header name', { headerName: '', headerValue: 's3cret' }, 'headerName'],
    ['a header name with a space', { headerName: 'X Hook', headerValue: 's3cret' }, 'headerName'],
  ])('%s: ClaimsValidationError from verifyWebhook and receiveWebhook', async (_label, bad, path) => {
    const verify = (() => {
      try {
        verifyWebhook({ ...headers, 'x-hook': 's3cret' }, body, bad as never);
      } catch (error) {
        return error;
      }
      return 'accepted';
    })();
    expect(verify).toBeInstanceOf(ClaimsValidationError);
    expect((verify as ClaimsValidationError).issues.map((i) => i.path)).toContain(path);
    const fakeReq = { headers: { ...headers }, [Symbol.asyncIterator]: () => undefined } as never;
    await expect(receiveWebhook(fakeReq, bad as never)).rejects.toBeInstanceOf(ClaimsValidationError);
  });

  it('a whitespace secret matching a whitespace header is still refused (never accept everything)', () => {
    expect(() =>
      verifyWebhook({ 'x-hook-secret': ' ' }, body, { headerName: 'X-Hook-Secret', headerValue: ' ' }),
    ).toThrow(ClaimsValidationError);
  });

  it('a bad maxBodyBytes and missing options are refused too', async () => {
    const req = { headers: {} } as never;
    await expect(receiveWebhook(req, { ...options, maxBodyBytes: 0 })).rejects.toBeInstanceOf(
      ClaimsValidationError,
    );
    await expect(receiveWebhook(req, { ...options, maxBodyBytes: Number.NaN })).rejects.toBeInstanceOf(
      ClaimsValidationError,
    );
    expect(() => verifyWebhook({}, body, undefined as never)).toThrow(ClaimsValidationError);
  });
});

describe('receiveWebhook with the handler of docs/receiving-webhooks.md: a cut or oversized body is a 400, never a crash', () => {
  /** The guide's handler, recording what it answered and what it caught. */
  async function startReceiver(maxBodyBytes?: number) {
    const answered: Array<{ status: number; error: unknown }> = [];
    const server = createServer(async (req, res) => {
      try {
        await receiveWebhook(req, { ...options, maxBodyBytes });
        res.writeHead(204).end();
        answered.push({ status: 204, error: undefined });
      } catch (error) {
        if (error instanceof WebhookVerificationError) {
          res.writeHead(error.reason === 'invalid_body' ? 400 : 401).end();
          answered.push({ status: res.statusCode, error });
        } else {
          res.writeHead(500).end();
          answered.push({ status: 500, error });
        }
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      port,
      answered,
      /** Resolves once the handler has answered one more request (bounded wait). */
      async answer(): Promise<void> {
        const before = answered.length;
        for (let i = 0; i < 500 && answered.length === before; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      },
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  it('a sender that drops the connection mid-body: WebhookVerificationError invalid_body, answered 400, no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const receiver = await startReceiver();
    try {
      const handled = receiver.answer();
      const socket = connect(receiver.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /hook HTTP/1.1\r\nHost: x\r\nX-Hook-Secret: ${options.headerValue}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"webhookEvent":',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await handled;
      await new Promise((resolve) => setImmediate(resolve));
      expect(receiver.answered).toHaveLength(1);
      const { status, error } = receiver.answered[0] as { status: number; error: unknown };
      expect(status).toBe(400);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).reason).toBe('invalid_body');
      expect((error as Error).message).toMatch(/cut off/);
      expect((error as Error).cause).toBeInstanceOf(Error);
      expect((error as WebhookVerificationError).issues).toEqual([{ path: '', message: 'body cut off' }]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await receiver.close();
    }
  });

  it('a body over maxBodyBytes, streamed without Content-Length: the sender gets the 400', async () => {
    const receiver = await startReceiver(1024);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: receiver.port,
            method: 'POST',
            headers: { 'x-hook-secret': options.headerValue, 'transfer-encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        // 64 KiB at a time until the answer comes (bounded: at most 4 MiB).
        let written = 0;
        const pump = () => {
          while (written < 4 * 1024 * 1024) {
            written += 64 * 1024;
            if (!req.write(Buffer.alloc(64 * 1024, 0x20))) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
      expect(status).toBe(400);
      expect(receiver.answered.map((a) => (a.error as Error).message)).toEqual([
        'Webhook body is larger than 1024 bytes',
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('a declared Content-Length over the cap is refused before reading', async () => {
    const receiver = await startReceiver(10);
    try {
      const handled = receiver.answer();
      const socket = connect(receiver.port, '127.0.0.1');
      const reply: Buffer[] = [];
      socket.on('data', (c: Buffer) => reply.push(c));
      socket.write(
        `POST /hook HTTP/1.1\r\nHost: x\r\nX-Hook-Secret: ${options.headerValue}\r\nContent-Length: 100000\r\n\r\n{}`,
      );
      await handled;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(Buffer.concat(reply).toString('latin1')).toMatch(/^HTTP\/1\.1 400 /);
      expect(receiver.answered[0]?.status).toBe(400);
      socket.destroy();
    } finally {
      await receiver.close();
    }
  });
});

describe('headerValue as a list (rotation), in verifyWebhook and receiveWebhook', () => {
  const rotating = { headerName: 'X-Hook-Secret', headerValue: ['current-value', 'next-value'] };

  it('accepts any listed value, refuses the rest without echoing any', () => {
    for (const value of rotating.headerValue) {
      expect(verifyWebhook({ 'x-hook-secret': value }, body, rotating)).toEqual(JSON.parse(body));
    }
    const error = failure(() => verifyWebhook({ 'x-hook-secret': 'other' }, body, rotating));
    expect(error.reason).toBe('invalid_header');
    expect(error.message).not.toMatch(/current|next/);
  });

  it('an empty list, or a blank value in it, fails closed', () => {
    for (const [headerValue, path] of [
      [[], 'headerValue'],
      [['ok', ''], 'headerValue[1]'],
      [[' ', 'ok'], 'headerValue[0]'],
      [['ok', 7], 'headerValue[1]'],
    ] as const) {
      let error: unknown;
      try {
        verifyWebhook({ 'x-hook-secret': 'ok' }, body, {
          headerName: 'X-Hook-Secret',
          headerValue: headerValue as never,
        });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual([path]);
    }
  });
});

describe('verifyWebhook and receiveWebhook: the exact words and bounds', () => {
  const headers = { 'x-hook-secret': options.headerValue };

  it('headers that are not headers, or no request at all: ClaimsValidationError naming headers', async () => {
    for (const bad of [null, 'x-hook-secret: v', 7]) {
      let error: unknown;
      try {
        verifyWebhook(bad as never, body, options);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect((error as ClaimsValidationError).issues).toEqual([
        { path: 'headers', message: "must be the request's headers (a record or Headers)" },
      ]);
    }
    await expect(receiveWebhook(undefined as never, options)).rejects.toMatchObject({
      issues: [{ path: 'headers', message: "must be the request's headers (a record or Headers)" }],
    });
  });

  it('the missing-header message names the header', () => {
    expect(failure(() => verifyWebhook({}, body, options)).message).toBe(
      'Webhook header X-Hook-Secret is missing',
    );
  });

  it('a body of exactly maxBodyBytes is read, with or without a Content-Length; one byte more is not', async () => {
    const exact = `${body}${' '.repeat(10)}`;
    const max = Buffer.byteLength(exact);
    const server = createServer(async (req, res) => {
      try {
        await receiveWebhook(req, { ...options, maxBodyBytes: max });
        res.writeHead(200).end();
      } catch (error) {
        res.writeHead(400).end(JSON.stringify((error as WebhookVerificationError).issues));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const post = (payload: string, chunked: boolean) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            headers: { ...headers, ...(chunked ? { 'transfer-encoding': 'chunked' } : {}) },
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => {
              text += c.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    try {
      for (const chunked of [false, true]) {
        expect((await post(exact, chunked)).status).toBe(200);
        const over = await post(`${exact} `, chunked);
        expect(over.status).toBe(400);
        expect(JSON.parse(over.text)).toEqual([{ path: '', message: `larger than ${max} bytes` }]);
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
