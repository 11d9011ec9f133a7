/**
 * The receive path's own decisions, through the Web adapter (no server needed): option
 * checks at creation, the dedupe key, store failures, onError, the rotation helper.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClaimsValidationError } from '../../src/errors.js';
import {
  createLambdaHandler,
  createNodeMiddleware,
  createWebMiddleware,
  type DeliveryStore,
  generateHeaderValue,
  MemoryDeliveryStore,
  type WebhookReceiverOptions,
} from '../../src/webhooks/index.js';
import { delivery, HEADER, SECRET } from './receiver-contract.js';

const base = { headerName: HEADER, headerValue: SECRET };
const post = (body = delivery(), headers: Record<string, string> = { [HEADER]: SECRET }) =>
  new Request('http://x/hooks', { method: 'POST', headers, body });

async function answer(response: Promise<Response>) {
  const res = await response;
  return { status: res.status, body: await res.json() };
}

function creationIssues(options: unknown, onDelivery: unknown = () => {}): unknown {
  for (const make of [createWebMiddleware, createNodeMiddleware, createLambdaHandler]) {
    try {
      make(options as WebhookReceiverOptions, onDelivery as () => void);
    } catch (error) {
      expect(error).toBeInstanceOf(ClaimsValidationError);
      const issues = (error as ClaimsValidationError).issues;
      expect(String((error as Error).message)).not.toContain(SECRET);
      if (make === createLambdaHandler) return issues;
      continue;
    }
    return 'created';
  }
}

describe('a receiver refuses, when it is created, options that cannot work', () => {
  it.each([
    ['an empty secret', { ...base, headerValue: '' }, [['headerValue', /non-empty secret/]]],
    ['an empty list', { ...base, headerValue: [] }, [['headerValue', /at least one/]]],
    ['a blank value in the list', { ...base, headerValue: [SECRET, ' '] }, [['headerValue[1]', /non-empty/]]],
    ['a bad header name', { ...base, headerName: 'X Hook' }, [['headerName', /header name/]]],
    ['maxBodyBytes 0', { ...base, maxBodyBytes: 0 }, [['maxBodyBytes', /positive whole/]]],
    ['onError not a function', { ...base, onError: 'log' }, [['onError', /function/]]],
    ['deduplicate without key', { ...base, deduplicate: {} }, [['deduplicate.key', /function/]]],
    [
      'a store without done',
      { ...base, deduplicate: { key: String, store: { claim() {}, release() {} } } },
      [['deduplicate.store', /must have done \(a DeliveryStore\)/]],
    ],
    [
      'a store that is not an object',
      { ...base, deduplicate: { key: String, store: 7 } },
      [['deduplicate.store', /must have claim, release, done/]],
    ],
    [
      'leaseMs 1.5',
      { ...base, deduplicate: { key: String, leaseMs: 1.5 } },
      [['deduplicate.leaseMs', /positive/]],
    ],
    [
      'leaseMs 0',
      { ...base, deduplicate: { key: String, leaseMs: 0 } },
      [['deduplicate.leaseMs', /positive/]],
    ],
    ['deduplicate null', { ...base, deduplicate: null }, [['deduplicate.key', /function/]]],
    ['maxBodyBytes 1.5', { ...base, maxBodyBytes: 1.5 }, [['maxBodyBytes', /positive whole/]]],
    ['maxBodyBytes "10"', { ...base, maxBodyBytes: '10' }, [['maxBodyBytes', /positive whole/]]],
    ['no options', undefined, [['headerName'], ['headerValue']]],
  ])('%s', (_label, options, expected) => {
    const issues = creationIssues(options) as Array<{ path: string; message: string }>;
    expect(issues.map((i) => i.path)).toEqual(expected.map((e) => e[0]));
    expected.forEach((e, i) => {
      if (e[1]) expect(issues[i]?.message).toMatch(e[1] as RegExp);
    });
  });

  it('a handler that is not a function', () => {
    expect(creationIssues(base, 'handler')).toEqual([
      { path: 'onDelivery', message: 'must be a function (payload, context) => …' },
    ]);
  });

  it('good options are accepted, a deduplicate store with isDone or without', () => {
    const store: DeliveryStore = { claim: async () => true, release: async () => {}, done: async () => {} };
    expect(creationIssues({ ...base, deduplicate: { key: String, store, leaseMs: 1 } })).toBe('created');
  });
});

describe('the dedupe key and the store', () => {
  const key = (p: unknown) => (p as { deliveryId: string }).deliveryId;

  it('a key function that throws, or gives no string: 500, the handler not called, onError told', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const make = (k: (p: unknown) => unknown) =>
      createWebMiddleware(
        { ...base, deduplicate: { key: k as (p: unknown) => string }, onError: (e) => void errors.push(e) },
        () => void calls++,
      );
    expect(
      await answer(
        make(() => {
          throw new Error('no id');
        })(post()),
      ),
    ).toEqual({ status: 500, body: { error: 'deduplicate.key failed on this payload' } });
    expect(await answer(make(() => '')(post()))).toEqual({
      status: 500,
      body: { error: 'deduplicate.key gave no key for this payload' },
    });
    expect((await make(() => 42)(post())).status).toBe(500);
    expect(calls).toBe(0);
    expect(errors.map(String)).toEqual([
      'Error: no id',
      'TypeError: deduplicate.key returned an empty string',
      'TypeError: deduplicate.key returned number',
    ]);
  });

  it('the handler gets the key; the store is claimed with leaseMs (default 5 minutes)', async () => {
    const claims: Array<[string, number]> = [];
    const store = new MemoryDeliveryStore();
    const spy: DeliveryStore = {
      claim: (k, ttl) => {
        claims.push([k, ttl]);
        return store.claim(k, ttl);
      },
      release: (k) => store.release(k),
      done: (k) => store.done(k),
    };
    const seen: Array<string | undefined> = [];
    await createWebMiddleware(
      { ...base, deduplicate: { key, store: spy } },
      (_p, c) => void seen.push(c.key),
    )(post());
    await createWebMiddleware({ ...base, deduplicate: { key, store: spy, leaseMs: 1234 } }, () => {})(
      post(delivery('d-2')),
    );
    expect(claims).toEqual([
      ['d-1', 300_000],
      ['d-2', 1234],
    ]);
    expect(seen).toEqual(['d-1']);
  });

  it('a store without isDone: every copy is 409 (never lost, never run twice)', async () => {
    const memory = new MemoryDeliveryStore();
    const store: DeliveryStore = {
      claim: (k, t) => memory.claim(k, t),
      release: (k) => memory.release(k),
      done: (k) => memory.done(k),
    };
    let calls = 0;
    const handle = createWebMiddleware({ ...base, deduplicate: { key, store } }, () => void calls++);
    expect((await handle(post())).status).toBe(200);
    expect((await handle(post())).status).toBe(409);
    expect(calls).toBe(1);
  });

  it('a store that fails to claim: 500 (the sender tries again), the handler not called', async () => {
    const errors: unknown[] = [];
    const failure = new Error('connection refused');
    const store: DeliveryStore = {
      claim: async () => {
        throw failure;
      },
      release: async () => {},
      done: async () => {},
    };
    let calls = 0;
    const handle = createWebMiddleware(
      { ...base, deduplicate: { key, store }, onError: (e) => void errors.push(e) },
      () => void calls++,
    );
    expect(await answer(handle(post()))).toEqual({ status: 500, body: { error: 'the receiver failed' } });
    expect(calls).toBe(0);
    expect(errors).toEqual([failure]);
  });

  it('a store that fails to mark done after the handler ran: still 200 (a 500 would run it twice), onError told', async () => {
    const errors: unknown[] = [];
    const store: DeliveryStore = {
      claim: async () => true,
      release: async () => {},
      done: async () => {
        throw new Error('done failed');
      },
    };
    const handle = createWebMiddleware(
      { ...base, deduplicate: { key, store }, onError: (e) => void errors.push(e) },
      () => {},
    );
    expect(await answer(handle(post()))).toEqual({ status: 200, body: { received: true } });
    expect(errors.map(String)).toEqual(['Error: done failed']);
  });

  it('a handler failure whose release fails too: 500, both errors told', async () => {
    const errors: unknown[] = [];
    const store: DeliveryStore = {
      claim: async () => true,
      release: async () => {
        throw new Error('release failed');
      },
      done: async () => {},
    };
    const handle = createWebMiddleware(
      { ...base, deduplicate: { key, store }, onError: (e) => void errors.push(e) },
      () => {
        throw new Error('handler failed');
      },
    );
    expect((await handle(post())).status).toBe(500);
    expect(errors.map(String)).toEqual(['Error: release failed', 'Error: handler failed']);
  });

  it('a throwing onError does not change the answer; the default onError logs with console.error', async () => {
    const throwing = createWebMiddleware(
      {
        ...base,
        onError: () => {
          throw new Error('logger down');
        },
      },
      () => {
        throw new Error('x');
      },
    );
    expect((await throwing(post())).status).toBe(500);
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const failure = new Error('handler failed');
      const handle = createWebMiddleware(base, () => {
        throw failure;
      });
      expect((await handle(post())).status).toBe(500);
      expect(logged).toEqual([['claims webhook receiver:', failure]]);
    } finally {
      console.error = original;
    }
  });

  it('without deduplicate, every copy runs the handler', async () => {
    let calls = 0;
    const handle = createWebMiddleware(base, () => void calls++);
    await handle(post());
    await handle(post());
    expect(calls).toBe(2);
  });
});

describe('the header check', () => {
  it('property: only an accepted value passes, whatever is received', async () => {
    const value = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => /^[\x21-\x7e]+$/.test(s));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(value, { minLength: 1, maxLength: 3 }),
        value,
        async (accepted, received) => {
          const handle = createWebMiddleware({ headerName: HEADER, headerValue: accepted }, () => {});
          const res = await handle(post(delivery(), { [HEADER]: received }));
          expect(res.status).toBe(accepted.includes(received) ? 200 : 401);
          for (const ok of accepted)
            expect((await handle(post(delivery(), { [HEADER]: ok }))).status).toBe(200);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('the header name in any case; the method in any case', async () => {
    const handle = createWebMiddleware({ headerName: 'x-HOOK-secret', headerValue: SECRET }, () => {});
    expect((await handle(post())).status).toBe(200);
    const lambda = createLambdaHandler({ headerName: HEADER, headerValue: SECRET }, () => {});
    const res = await lambda({
      httpMethod: 'post',
      headers: { [HEADER.toLowerCase()]: SECRET },
      body: delivery(),
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('generateHeaderValue', () => {
  it('43 base64url characters (256 bits), different each time, a valid header value', () => {
    const values = Array.from({ length: 200 }, generateHeaderValue);
    for (const v of values) expect(v).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(values).size).toBe(200);
    // Every character position takes many values: no constant prefix or padding.
    const firsts = new Set(values.map((v) => v[0]));
    const lasts = new Set(values.map((v) => v[42]));
    expect(firsts.size).toBeGreaterThan(20);
    expect(lasts.size).toBeGreaterThan(3);
  });
});
