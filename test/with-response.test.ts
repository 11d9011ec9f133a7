/**
 * `.withResponse()` on every call's promise: the value plus the answer's status, headers
 * (lower-case, token redacted) and request id, on both wires; typed for every method.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { claimsPromise } from '../src/claims-promise.js';
import { ClaimsError } from '../src/errors.js';
import type {
  ClaimsPromise,
  EventCreated,
  IncidentCreated,
  IncidentFieldDescriptor,
  Subscription,
  SubscriptionCreated,
  UploadedAttachment,
  WithResponse,
} from '../src/index.js';
import { httpFaultServer, makeClient, scenario, TOKEN, WIRES } from './faults/fault-server.js';
import { incident } from './helpers/fixtures.js';

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

describe('types', () => {
  it('every call returns a ClaimsPromise whose withResponse() is typed', () => {
    const client = makeClient('http://127.0.0.1:9');
    // Types only: no call is made.
    type Create = ReturnType<typeof client.incidents.create>;
    expectTypeOf<Create>().toEqualTypeOf<ClaimsPromise<IncidentCreated>>();
    expectTypeOf<Create['withResponse']>().returns.toEqualTypeOf<Promise<WithResponse<IncidentCreated>>>();
    type Meta = Awaited<ReturnType<Create['withResponse']>>;
    expectTypeOf<Meta['data']>().toEqualTypeOf<IncidentCreated>();
    expectTypeOf<Meta['requestId']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Meta['headers']>().toEqualTypeOf<Record<string, string>>();
    // Still a promise of the value for `await` and `.then`.
    expectTypeOf<Awaited<Create>>().toEqualTypeOf<IncidentCreated>();
    expectTypeOf(client.subscriptions.list).returns.toEqualTypeOf<ClaimsPromise<Subscription[]>>();
    expectTypeOf(client.subscriptions.create).returns.toEqualTypeOf<ClaimsPromise<SubscriptionCreated>>();
    expectTypeOf(client.subscriptions.update).returns.toEqualTypeOf<ClaimsPromise<void>>();
    expectTypeOf(client.webhooks.update).returns.toEqualTypeOf<ClaimsPromise<void>>();
    expectTypeOf(client.events.create).returns.toEqualTypeOf<ClaimsPromise<EventCreated>>();
    expectTypeOf(client.attachments.upload).returns.toEqualTypeOf<ClaimsPromise<UploadedAttachment[]>>();
    expectTypeOf(client.metadata.incidentFields).returns.toEqualTypeOf<
      ClaimsPromise<IncidentFieldDescriptor[]>
    >();
    expectTypeOf(client.metadata.programmes).returns.toEqualTypeOf<ClaimsPromise<unknown>>();
  });
});

describe.each(WIRES)('$name', ({ options: wire }) => {
  it('gives data, status, lower-case headers, the request id, and redacts the token', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) =>
        send(res, 201, '{"incidentId":"I-1"}', {
          'X-Request-Id': 'req-42',
          'X-Echo': `Bearer ${TOKEN}`,
        }),
      ),
      async (server) => {
        const client = makeClient(server.url, wire);
        const result = await client.incidents.create(incident).withResponse();
        expect(result.data).toEqual({ incidentId: 'I-1' });
        expect(result.status).toBe(201);
        expect(result.requestId).toBe('req-42');
        expect(result.headers['x-request-id']).toBe('req-42');
        expect(result.headers['content-type']).toBe('application/json');
        expect(JSON.stringify(result)).not.toContain(TOKEN);
        expect(result.headers['x-echo']).toBe('Bearer [REDACTED]');
      },
    );
  });

  it('the promise still resolves to the value alone, and a void call gives its status', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => send(res, 204, '')),
      async (server) => {
        const client = makeClient(server.url, wire);
        await expect(client.webhooks.update(1, { isActive: false })).resolves.toBeUndefined();
        const { data, status, requestId } = await client.webhooks
          .update(1, { isActive: true })
          .withResponse();
        expect(data).toBeUndefined();
        expect(status).toBe(204);
        expect(requestId).toBeUndefined();
      },
    );
  });

  it('incidents.create after a metadata look-up gives the POST’s answer, not the look-up’s', async () => {
    await scenario(
      httpFaultServer((hit, _req, res) => {
        if (hit.method === 'GET') send(res, 200, '[]', { 'x-request-id': 'lookup' });
        else send(res, 201, '{"incidentId":"I-9"}', { 'x-request-id': 'post' });
      }),
      async (server) => {
        const client = makeClient(server.url, wire);
        const result = await client.incidents.create({ ...incident, extendedFields: [] }).withResponse();
        expect(server.hits.map((h) => h.method)).toEqual(['GET', 'POST']);
        expect(result.requestId).toBe('post');
        expect(result.data.incidentId).toBe('I-9');
      },
    );
  });

  it('an upload gives its answer too', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) =>
        send(res, 200, '[{"filename":"a.txt","attachmentId":"6f1c1f0e-9d1b-4d4e-8f59-2f0a3c2b1a00"}]', {
          'request-id': 'up-1',
        }),
      ),
      async (server) => {
        const client = makeClient(server.url, wire);
        const { data, status, requestId } = await client.attachments
          .upload({ data: Buffer.from('a'), filename: 'a.txt' })
          .withResponse();
        expect(data).toHaveLength(1);
        expect(status).toBe(200);
        expect(requestId).toBe('up-1');
      },
    );
  });

  it('a failing call rejects withResponse() with the same error', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => send(res, 422, '{"message":"no"}')),
      async (server) => {
        const client = makeClient(server.url, wire);
        const call = client.incidents.create(incident);
        const [plain, meta] = await Promise.allSettled([call, call.withResponse()]);
        expect(plain.status).toBe('rejected');
        expect(meta.status).toBe('rejected');
        expect((meta as PromiseRejectedResult).reason).toBe((plain as PromiseRejectedResult).reason);
        expect(server.hits).toHaveLength(1);
      },
    );
  });
});

describe('a promise whose call resolved without an HTTP answer (no resource makes one)', () => {
  it('withResponse() refuses to make up a status and headers', async () => {
    const promise = claimsPromise(async () => 'value');
    await expect(promise).resolves.toBe('value');
    const error = await promise.withResponse().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect((error as Error).message).toBe('the call resolved without an HTTP answer to describe');
  });
});
