import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ClaimsError, receiveWebhook, verifyWebhook, WebhookVerificationError } from '../src/index.js';

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
    expect(error.issues.map((i) => i.path)).toEqual(['webhookEvent', 'data']);
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
    expect(failure(() => verifyWebhook(headers, '', options)).reason).toBe('invalid_body');
    expect(failure(() => verifyWebhook(headers, undefined, options)).reason).toBe('invalid_body');
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
