/**
 * The cases every receiver adapter must pass, run by each adapter's test file against the
 * real framework (hono's `common.case.test.ts` layout): the adapter test says how to start a
 * receiver and how to send it one request; this file says what must come back.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { OnDelivery, WebhookReceiverOptions } from '../../src/webhooks/index.js';

export const SECRET = 'correct horse battery staple';
export const NEXT_SECRET = 'next-secret-0123456789';
export const HEADER = 'X-Hook-Secret';

/** One request as the adapter's test sends it. */
export interface SentRequest {
  method?: string;
  headers: Record<string, string>;
  body?: string;
  /** Send the body in chunks without a Content-Length (where the transport allows). */
  chunked?: boolean;
}

/** What came back. */
export interface Received {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A started receiver: `send` posts one request to it; `close` stops it. */
export interface StartedReceiver {
  send(request: SentRequest): Promise<Received>;
  close(): Promise<void>;
}

export type StartReceiver = (
  options: WebhookReceiverOptions<unknown>,
  onDelivery: OnDelivery<unknown>,
) => Promise<StartedReceiver>;

export function delivery(deliveryId = 'd-1', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ webhookEvent: 'New Event', deliveryId, data: { incidentId: 'i-1' }, ...extra });
}

const good = (body = delivery()): SentRequest => ({
  headers: { [HEADER]: SECRET, 'content-type': 'application/json', 'x-extra': 'kept' },
  body,
});

/** Resolves once `check` holds, polling (bounded: 2 s). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

/**
 * `chunked: false`: the transport cannot send a body without a length (Lambda events).
 * `routed: true`: the framework routes only POST to the receiver (its own 404 for the rest).
 */
export function receiverContract(
  name: string,
  start: StartReceiver,
  opts: { chunked?: boolean; routed?: boolean } = {},
): void {
  describe(`${name}: the receiver contract`, () => {
    const base = { headerName: HEADER, headerValue: SECRET };

    /**
     * Runs `body` against a started receiver. Unless the test gives its own `onError`, nothing
     * may reach it: only a 500 is reported, and these tests expect none.
     */
    async function withReceiver(
      options: Partial<WebhookReceiverOptions<unknown>>,
      onDelivery: OnDelivery<unknown>,
      body: (r: StartedReceiver) => Promise<void>,
    ): Promise<void> {
      const errors: unknown[] = [];
      const receiver = await start(
        { ...base, onError: (e) => void errors.push(e), ...options } as WebhookReceiverOptions<unknown>,
        onDelivery,
      );
      try {
        await body(receiver);
      } finally {
        await receiver.close();
      }
      expect(errors).toEqual([]);
    }

    it('a good delivery: 200, the handler gets the payload and the headers without the secret one', async () => {
      const seen: Array<{ payload: unknown; headers: Headers; key: string | undefined }> = [];
      await withReceiver(
        {},
        (payload, { headers, key }) => void seen.push({ payload, headers, key }),
        async (r) => {
          const res = await r.send(good());
          expect(res.status).toBe(200);
          expect(JSON.parse(res.body)).toEqual({ received: true });
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expect(res.headers['cache-control']).toBe('no-store');
        },
      );
      expect(seen).toHaveLength(1);
      expect(seen[0]?.payload).toEqual(JSON.parse(delivery()));
      expect(seen[0]?.headers.get('x-extra')).toBe('kept');
      expect(seen[0]?.headers.has(HEADER)).toBe(false);
      expect([...(seen[0]?.headers.values() ?? [])].join()).not.toContain(SECRET);
      expect(seen[0]?.key).toBeUndefined();
    });

    it('a wrong or missing header: 401, the handler not called, no value echoed', async () => {
      let calls = 0;
      await withReceiver(
        {},
        () => void calls++,
        async (r) => {
          const wrong = await r.send({ ...good(), headers: { [HEADER]: `${SECRET}x` } });
          expect(wrong.status).toBe(401);
          expect(JSON.parse(wrong.body)).toEqual({ error: `Webhook header ${HEADER} has the wrong value` });
          expect(wrong.body).not.toContain(SECRET);
          const missing = await r.send({ ...good(), headers: { 'content-type': 'application/json' } });
          expect(missing.status).toBe(401);
          expect(JSON.parse(missing.body)).toEqual({ error: `Webhook header ${HEADER} is missing` });
          const other = await r.send({ ...good(), method: 'PUT' });
          if (opts.routed) expect(other.status).toBe(404);
          else {
            expect(other.status).toBe(405);
            expect(other.headers.allow).toBe('POST');
            expect(JSON.parse(other.body)).toEqual({ error: 'only POST is accepted' });
          }
        },
      );
      expect(calls).toBe(0);
    });

    it('headerValue as a list (a rotation): every listed value is accepted, no other', async () => {
      await withReceiver(
        { headerValue: [SECRET, NEXT_SECRET] },
        () => {},
        async (r) => {
          expect((await r.send(good())).status).toBe(200);
          expect((await r.send({ ...good(), headers: { [HEADER]: NEXT_SECRET } })).status).toBe(200);
          expect((await r.send({ ...good(), headers: { [HEADER]: 'neither' } })).status).toBe(401);
        },
      );
    });

    it('a body over maxBodyBytes: 413 by its Content-Length, the handler not called', async () => {
      let calls = 0;
      await withReceiver(
        { maxBodyBytes: 128 },
        () => void calls++,
        async (r) => {
          const res = await r.send(good(delivery('d-1', { pad: 'x'.repeat(200) })));
          expect(res.status).toBe(413);
          expect(JSON.parse(res.body)).toEqual({ error: 'the body is larger than 128 bytes' });
          // At the cap exactly: accepted; one byte more is not.
          const exact = delivery('d', { p: '' });
          const atCap = `${exact}${' '.repeat(128 - exact.length)}`;
          expect((await r.send(good(`${atCap} `))).status).toBe(413);
          expect((await r.send(good(atCap))).status).toBe(200);
        },
      );
      expect(calls).toBe(1);
    });

    if (opts.chunked !== false) {
      it('a body over maxBodyBytes sent without a Content-Length: 413 once it passes the cap', async () => {
        let calls = 0;
        await withReceiver(
          { maxBodyBytes: 1024 },
          () => void calls++,
          async (r) => {
            const res = await r.send({
              ...good(delivery('d-1', { pad: 'x'.repeat(64 * 1024) })),
              chunked: true,
            });
            expect(res.status).toBe(413);
            const small = await r.send({ ...good(), chunked: true });
            expect(small.status).toBe(200);
          },
        );
        expect(calls).toBe(1);
      });
    }

    if (opts.chunked !== false) {
      it('a body in many chunks is read whole, byte for byte', async () => {
        const seen: unknown[] = [];
        const body = delivery('d-big', { detail: 'Schaden am Gebäude — 東京 🏠 '.repeat(3000) });
        await withReceiver(
          {},
          (p) => void seen.push(p),
          async (r) => {
            expect((await r.send({ ...good(body), chunked: true })).status).toBe(200);
          },
        );
        expect(seen).toEqual([JSON.parse(body)]);
      });
    }

    it('bad JSON, an empty body, a body the schema refuses: 400, saying why', async () => {
      const schema = z.object({ deliveryId: z.string(), data: z.object({ incidentId: z.string() }) });
      let calls = 0;
      await withReceiver(
        { schema },
        () => void calls++,
        async (r) => {
          const bad = await r.send(good('{"webhookEvent":'));
          expect(bad.status).toBe(400);
          expect(JSON.parse(bad.body)).toEqual({
            error: 'Webhook body is not valid JSON',
            issues: [{ path: '', message: 'not valid JSON' }],
          });
          const empty = await r.send(good(''));
          expect(empty.status).toBe(400);
          const shape = await r.send(good('{"deliveryId":7,"data":{}}'));
          expect(shape.status).toBe(400);
          expect(JSON.parse(shape.body).error).toBe('Webhook body does not have the expected shape');
          expect(JSON.parse(shape.body).issues.map((i: { path: string }) => i.path)).toEqual([
            'deliveryId',
            'data.incidentId',
          ]);
        },
      );
      expect(calls).toBe(0);
    });

    it('a handler that throws: 500 without its message, onError told', async () => {
      const errors: unknown[] = [];
      const boom = new Error('database password is hunter2');
      await withReceiver(
        { onError: (e) => void errors.push(e) },
        () => {
          throw boom;
        },
        async (r) => {
          const res = await r.send(good());
          expect(res.status).toBe(500);
          expect(JSON.parse(res.body)).toEqual({ error: 'the delivery handler failed' });
        },
      );
      expect(errors).toEqual([boom]);
    });

    it('deduplicate: a copy of a processed delivery is 200 without running the handler again', async () => {
      const keys: Array<string | undefined> = [];
      const dedupe = { key: (p: unknown) => (p as { deliveryId: string }).deliveryId };
      await withReceiver(
        { deduplicate: dedupe },
        (_p, { key }) => void keys.push(key),
        async (r) => {
          expect(JSON.parse((await r.send(good())).body)).toEqual({ received: true });
          const copy = await r.send(good());
          expect(copy.status).toBe(200);
          expect(JSON.parse(copy.body)).toEqual({ received: true, duplicate: true });
          expect((await r.send(good(delivery('d-2')))).status).toBe(200);
        },
      );
      expect(keys).toEqual(['d-1', 'd-2']);
    });

    it('deduplicate: a copy while the first is handled is 409; a failed handler releases the key', async () => {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      let calls = 0;
      const dedupe = { key: (p: unknown) => (p as { deliveryId: string }).deliveryId };
      const errors: unknown[] = [];
      await withReceiver(
        { deduplicate: dedupe, onError: (e) => void errors.push(e) },
        async (p) => {
          calls++;
          if ((p as { deliveryId: string }).deliveryId === 'fails' && calls === 2) throw new Error('once');
          if ((p as { deliveryId: string }).deliveryId === 'slow') await gate;
        },
        async (r) => {
          const first = r.send(good(delivery('slow')));
          await until(() => calls === 1);
          const copy = await r.send(good(delivery('slow')));
          expect(copy.status).toBe(409);
          expect(JSON.parse(copy.body)).toEqual({
            error: 'a copy of this delivery is being processed; send it again later',
          });
          open();
          expect((await first).status).toBe(200);
          expect((await r.send(good(delivery('slow')))).status).toBe(200);
          expect(calls).toBe(1);
          expect((await r.send(good(delivery('fails')))).status).toBe(500);
          expect((await r.send(good(delivery('fails')))).status).toBe(200);
          expect(calls).toBe(3);
        },
      );
      expect(errors.map(String)).toEqual(['Error: once']);
    });
  });
}
