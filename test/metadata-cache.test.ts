import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitingOn } from '../src/internal/abort-fanout.js';
import { DEFAULT_MAX_ENTRIES, MetadataCache } from '../src/metadata-cache.js';
import { outcomeOf } from '../src/outcome.js';
import type { IncidentFieldDescriptor, IncidentFieldsQuery } from '../src/schemas/metadata.js';
import type { CallOptions } from '../src/transport.js';

const query: IncidentFieldsQuery = { programmeCode: 'PRG', policyTypeCode: 'T1', countryCode: 'GB' };
const descriptors: IncidentFieldDescriptor[] = [{ identifier: 'f:A' }];

interface Call {
  query: IncidentFieldsQuery;
  options: CallOptions;
  resolve(value: IncidentFieldDescriptor[]): void;
  reject(error: unknown): void;
}

/** A fetcher whose answers the test releases by hand, recording every call. */
function controlledFetcher() {
  const calls: Call[] = [];
  const fetcher = (q: IncidentFieldsQuery, options: CallOptions) =>
    new Promise<IncidentFieldDescriptor[]>((resolve, reject) => {
      calls.push({ query: q, options, resolve, reject });
      // Like the transport: the cache's own signal aborts the request.
      options.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    });
  return { calls, fetcher };
}

/** A fetcher that answers at once. */
function instantFetcher() {
  const fetcher = vi.fn(async (_q: IncidentFieldsQuery, _o: CallOptions) => descriptors);
  return fetcher;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('MetadataCache', () => {
  it('makes one look-up for concurrent callers of one key', async () => {
    const { calls, fetcher } = controlledFetcher();
    const cache = new MetadataCache(60_000, fetcher);
    const pending = Array.from({ length: 10 }, () => cache.get(query));
    expect(calls).toHaveLength(1);
    calls[0]?.resolve(descriptors);
    const results = await Promise.all(pending);
    for (const result of results) expect(result).toBe(descriptors);
  });

  it('reuses the answer within the TTL and asks again after it, counted from the answer', async () => {
    let now = 1_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const { calls, fetcher } = controlledFetcher();
    const cache = new MetadataCache(100, fetcher);
    const first = cache.get(query);
    now += 500; // a slow answer: the TTL starts when it arrives, not when it was asked
    calls[0]?.resolve(descriptors);
    await first;
    now += 99;
    await expect(cache.get(query)).resolves.toBe(descriptors);
    expect(calls).toHaveLength(1);
    now += 1;
    const again = cache.get(query);
    expect(calls).toHaveLength(2);
    calls[1]?.resolve([]);
    await expect(again).resolves.toEqual([]);
  });

  it('keys by programme, policy type and country, the country in any case', async () => {
    const fetcher = instantFetcher();
    const cache = new MetadataCache(60_000, fetcher);
    await cache.get(query);
    await cache.get({ ...query, countryCode: 'gb' });
    await cache.get({ ...query, countryCode: 'Gb' });
    expect(fetcher).toHaveBeenCalledTimes(1);
    await cache.get({ ...query, countryCode: 'FR' });
    await cache.get({ ...query, programmeCode: 'prg' });
    await cache.get({ ...query, policyTypeCode: 'T2' });
    expect(fetcher).toHaveBeenCalledTimes(4);
  });

  it('asks with the country code upper-cased', async () => {
    const fetcher = instantFetcher();
    await new MetadataCache(60_000, fetcher).get({ ...query, countryCode: 'gb' });
    expect(fetcher.mock.calls[0]?.[0]).toEqual(query);
  });

  it('does not keep a failed look-up: every waiter gets the error, the next call asks again', async () => {
    const { calls, fetcher } = controlledFetcher();
    const cache = new MetadataCache(60_000, fetcher);
    const a = cache.get(query);
    const b = cache.get(query);
    const failure = new Error('boom');
    calls[0]?.reject(failure);
    await expect(a).rejects.toBe(failure);
    await expect(b).rejects.toBe(failure);
    const c = cache.get(query);
    expect(calls).toHaveLength(2);
    calls[1]?.resolve(descriptors);
    await expect(c).resolves.toBe(descriptors);
  });

  it('clear() makes the next call ask again', async () => {
    const fetcher = instantFetcher();
    const cache = new MetadataCache(60_000, fetcher);
    await cache.get(query);
    cache.clear();
    await cache.get(query);
    expect(fetcher).toHaveBeenCalledTimes(2);
  });

  it('clear() during a look-up: its callers still get the answer, but it is not kept', async () => {
    const { calls, fetcher } = controlledFetcher();
    const cache = new MetadataCache(60_000, fetcher);
    const first = cache.get(query);
    cache.clear();
    const second = cache.get(query);
    expect(calls).toHaveLength(2);
    calls[0]?.resolve(descriptors);
    calls[1]?.resolve([]);
    await expect(first).resolves.toBe(descriptors);
    await expect(second).resolves.toEqual([]);
    // The newer entry is the one kept; the older one's settling must not evict it.
    await expect(cache.get(query)).resolves.toEqual([]);
    expect(calls).toHaveLength(2);
  });

  it('with a TTL of 0 shares only look-ups in flight', async () => {
    const fetcher = instantFetcher();
    const cache = new MetadataCache(0, fetcher);
    await Promise.all([cache.get(query), cache.get(query)]);
    expect(fetcher).toHaveBeenCalledTimes(1);
    await settle();
    await cache.get(query);
    expect(fetcher).toHaveBeenCalledTimes(2);
  });

  it("runs the look-up with the first caller's options but never with a caller's signal", async () => {
    const { calls, fetcher } = controlledFetcher();
    const cache = new MetadataCache(60_000, fetcher);
    const caller = new AbortController();
    const pending = cache.get(query, { signal: caller.signal, timeoutMs: 1234, headers: { 'x-trace': '1' } });
    const options = calls[0]?.options;
    expect(options).toMatchObject({ timeoutMs: 1234, headers: { 'x-trace': '1' } });
    expect(options?.signal).toBeInstanceOf(AbortSignal);
    expect(options?.signal).not.toBe(caller.signal);
    calls[0]?.resolve(descriptors);
    await pending;
  });

  describe('abort', () => {
    it("one caller's abort rejects only that caller; the others get the answer", async () => {
      const { calls, fetcher } = controlledFetcher();
      const cache = new MetadataCache(60_000, fetcher);
      const quitter = new AbortController();
      const patient = new AbortController();
      const first = cache.get(query, { signal: quitter.signal });
      const second = cache.get(query, { signal: patient.signal });
      const third = cache.get(query);
      quitter.abort();
      await expect(first).rejects.toMatchObject({ name: 'AbortError' });
      expect(calls[0]?.options.signal?.aborted).toBe(false);
      calls[0]?.resolve(descriptors);
      await expect(second).resolves.toBe(descriptors);
      await expect(third).resolves.toBe(descriptors);
      expect(calls).toHaveLength(1);
      // The answer is cached even though its first caller left.
      await expect(cache.get(query)).resolves.toBe(descriptors);
      expect(calls).toHaveLength(1);
    });

    it("keeps the signal's reason", async () => {
      const { fetcher } = controlledFetcher();
      const cache = new MetadataCache(60_000, fetcher);
      const controller = new AbortController();
      const reason = new Error('user left the page');
      const pending = cache.get(query, { signal: controller.signal });
      controller.abort(reason);
      const error = await pending.catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: 'AbortError',
        cause: reason,
        message: 'The operation was aborted',
      });
      // The caller gave up before its look-up answered: nothing of its call was sent.
      expect(outcomeOf(error)).toBe('not_sent');
    });

    it('when every waiting caller aborted, the look-up is aborted and not kept', async () => {
      const { calls, fetcher } = controlledFetcher();
      const cache = new MetadataCache(60_000, fetcher);
      const a = new AbortController();
      const b = new AbortController();
      const first = cache.get(query, { signal: a.signal });
      const second = cache.get(query, { signal: b.signal });
      a.abort();
      expect(calls[0]?.options.signal?.aborted).toBe(false);
      b.abort();
      expect(calls[0]?.options.signal?.aborted).toBe(true);
      await expect(first).rejects.toMatchObject({ name: 'AbortError' });
      await expect(second).rejects.toMatchObject({ name: 'AbortError' });
      const next = cache.get(query);
      expect(calls).toHaveLength(2);
      calls[1]?.resolve(descriptors);
      await expect(next).resolves.toBe(descriptors);
    });

    it('a caller without a signal keeps the look-up alive', async () => {
      const { calls, fetcher } = controlledFetcher();
      const cache = new MetadataCache(60_000, fetcher);
      const controller = new AbortController();
      const plain = cache.get(query);
      const abortable = cache.get(query, { signal: controller.signal });
      controller.abort();
      await expect(abortable).rejects.toMatchObject({ name: 'AbortError' });
      expect(calls[0]?.options.signal?.aborted).toBe(false);
      calls[0]?.resolve(descriptors);
      await expect(plain).resolves.toBe(descriptors);
    });

    it('an already aborted signal rejects at once and asks nothing', async () => {
      const { calls, fetcher } = controlledFetcher();
      const cache = new MetadataCache(60_000, fetcher);
      const reason = new Error('gone');
      const error = await cache.get(query, { signal: AbortSignal.abort(reason) }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: 'AbortError',
        cause: reason,
        message: 'The operation was aborted',
      });
      expect(outcomeOf(error)).toBe('not_sent');
      expect(calls).toHaveLength(0);
    });

    it('an abort after the answer arrived changes nothing', async () => {
      const fetcher = instantFetcher();
      const cache = new MetadataCache(60_000, fetcher);
      const controller = new AbortController();
      await expect(cache.get(query, { signal: controller.signal })).resolves.toBe(descriptors);
      controller.abort();
      await expect(cache.get(query)).resolves.toBe(descriptors);
      expect(fetcher).toHaveBeenCalledTimes(1);
    });
  });
});

describe('MetadataCache: bounded by entries, expired entries dropped', () => {
  const form = (n: number): IncidentFieldsQuery => ({ ...query, policyTypeCode: `T${n}` });

  it('keeps at most maxEntries forms, dropping the least recently used first', async () => {
    const fetcher = instantFetcher();
    const cache = new MetadataCache(60_000, fetcher, 2);
    await cache.get(form(1));
    await cache.get(form(2));
    await cache.get(form(1)); // used again: form 2 is now the least recently used
    await cache.get(form(3));
    expect(cache.size).toBe(2);
    expect(fetcher).toHaveBeenCalledTimes(3);
    await cache.get(form(1)); // kept
    expect(fetcher).toHaveBeenCalledTimes(3);
    await cache.get(form(2)); // dropped, so asked again (and now form 3 goes)
    expect(fetcher).toHaveBeenCalledTimes(4);
    await cache.get(form(1));
    expect(fetcher).toHaveBeenCalledTimes(4);
    await cache.get(form(3));
    expect(fetcher).toHaveBeenCalledTimes(5);
  });

  it('holds no more than 1,000 forms by default: 2,000 distinct forms with a 1 ms TTL', async () => {
    expect(DEFAULT_MAX_ENTRIES).toBe(1_000);
    let now = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const cache = new MetadataCache(1, instantFetcher());
    let most = 0;
    for (let n = 0; n < 2_000; n++) {
      await cache.get(form(n));
      most = Math.max(most, cache.size);
    }
    // Every answer of this clock is still fresh (the clock stood still): the cap alone bounds it.
    expect(most).toBe(1_000);
    now += 2; // every form has expired
    await cache.get(form(-1));
    // Adding a form dropped every expired one.
    expect(cache.size).toBe(1);
  });

  it('drops expired forms as new ones come, when far from full', async () => {
    let now = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const cache = new MetadataCache(10, instantFetcher());
    await cache.get(form(1));
    await cache.get(form(2));
    now += 5;
    await cache.get(form(3));
    expect(cache.size).toBe(3);
    now += 5; // forms 1 and 2 expire now (an answer is stale at exactly its TTL), form 3 does not
    await cache.get(form(4));
    expect(cache.size).toBe(2);
    await expect(cache.get(form(3))).resolves.toBe(descriptors);
  });

  it('a look-up dropped while in flight still answers its callers; it is just not kept', async () => {
    const { calls, fetcher } = controlledFetcher();
    const cache = new MetadataCache(60_000, fetcher, 1);
    const first = cache.get(form(1));
    const second = cache.get(form(2)); // form 1 is dropped while its look-up runs
    expect(cache.size).toBe(1);
    calls[0]?.resolve(descriptors);
    calls[1]?.resolve([]);
    await expect(first).resolves.toBe(descriptors);
    await expect(second).resolves.toEqual([]);
    await cache.get(form(2));
    expect(calls).toHaveLength(2);
    // Form 1's late answer did not evict form 2, nor come back.
    void cache.get(form(1));
    expect(calls).toHaveLength(3);
  });

  it('a form read again (a hit) is not asked for, and a stale hit is replaced in place', async () => {
    let now = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const fetcher = instantFetcher();
    const cache = new MetadataCache(10, fetcher, 2);
    await cache.get(form(1));
    now += 10;
    await cache.get(form(1));
    expect(fetcher).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(1);
  });
});

/**
 * A caller waiting on the metadata cache with its own signal must not leave a listener on that
 * signal once the shared look-up settles: a long-lived signal (one per server, per job) would
 * otherwise collect one listener, and keep one closure alive, per call. Listeners go through
 * the abort fan-out: at most one platform listener per signal, and no fan-out subscriber left.
 */
describe('listeners', () => {
  const query = { programmeCode: 'PRG', policyTypeCode: 'T1', countryCode: 'gb' };

  function deferred(): {
    promise: Promise<IncidentFieldDescriptor[]>;
    resolve: (v: IncidentFieldDescriptor[]) => void;
    reject: (e: unknown) => void;
  } {
    let resolve!: (v: IncidentFieldDescriptor[]) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<IncidentFieldDescriptor[]>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  }

  describe('MetadataCache and a caller signal', () => {
    it('removes its abort listener when the look-up succeeds', async () => {
      const lookUp = deferred();
      const cache = new MetadataCache(60_000, () => lookUp.promise);
      const signal = new AbortController().signal;
      const waiting = [cache.get(query, { signal }), cache.get(query, { signal })];
      expect(waitingOn(signal)).toBe(2);
      expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(1);
      lookUp.resolve([]);
      await Promise.all(waiting);
      expect(waitingOn(signal)).toBe(0);
    });

    it('removes its abort listener when the look-up fails', async () => {
      const lookUp = deferred();
      const cache = new MetadataCache(60_000, () => lookUp.promise);
      const signal = new AbortController().signal;
      const waiting = cache.get(query, { signal });
      expect(waitingOn(signal)).toBe(1);
      lookUp.reject(new Error('down'));
      await expect(waiting).rejects.toThrow('down');
      expect(waitingOn(signal)).toBe(0);
    });

    it('an aborted waiter leaves no listener, and the others still get the answer', async () => {
      const lookUp = deferred();
      let fetcherSignal: AbortSignal | undefined;
      const cache = new MetadataCache(60_000, (_q, options) => {
        fetcherSignal = options.signal;
        return lookUp.promise;
      });
      const leaving = new AbortController();
      const staying = new AbortController();
      const first = cache.get(query, { signal: leaving.signal });
      const second = cache.get(query, { signal: staying.signal });
      leaving.abort();
      await expect(first).rejects.toMatchObject({ name: 'AbortError' });
      expect(waitingOn(leaving.signal)).toBe(0);
      expect(getEventListeners(leaving.signal, 'abort')).toHaveLength(0);
      // One waiter is left: the shared look-up goes on.
      expect(fetcherSignal?.aborted).toBe(false);
      lookUp.resolve([]);
      await expect(second).resolves.toEqual([]);
      expect(waitingOn(staying.signal)).toBe(0);
    });

    it('a fresh entry is served without adding a listener', async () => {
      const cache = new MetadataCache(60_000, async () => []);
      await cache.get(query);
      const signal = new AbortController().signal;
      await cache.get(query, { signal });
      expect(waitingOn(signal)).toBe(0);
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    });
  });
});

/**
 * A look-up that fails after `clear()` replaced it must not drop the look-up that replaced it:
 * callers arriving after the failure still share the newer one (a mutation of
 * src/metadata-cache.ts's `#drop` once got past).
 */
describe('replaced', () => {
  const query = { programmeCode: 'PRG', policyTypeCode: 'T1', countryCode: 'GB' };

  describe('MetadataCache after clear()', () => {
    it('a failing old look-up leaves the newer one shared', async () => {
      const answers: Array<{ resolve(v: IncidentFieldDescriptor[]): void; reject(e: unknown): void }> = [];
      const cache = new MetadataCache(
        60_000,
        () => new Promise<IncidentFieldDescriptor[]>((resolve, reject) => answers.push({ resolve, reject })),
      );
      const old = cache.get(query);
      cache.clear();
      const newer = cache.get(query);
      expect(answers).toHaveLength(2);
      answers[0]?.reject(new Error('down'));
      await expect(old).rejects.toThrow('down');
      const later = cache.get(query);
      expect(answers).toHaveLength(2);
      answers[1]?.resolve([{ identifier: 'f:A' }]);
      await expect(Promise.all([newer, later])).resolves.toEqual([
        [{ identifier: 'f:A' }],
        [{ identifier: 'f:A' }],
      ]);
    });

    it('the last caller of an old look-up giving up leaves the newer one shared', async () => {
      const answers: Array<{ resolve(v: IncidentFieldDescriptor[]): void }> = [];
      const cache = new MetadataCache(
        60_000,
        () => new Promise<IncidentFieldDescriptor[]>((resolve) => answers.push({ resolve })),
      );
      const leaving = new AbortController();
      const old = cache.get(query, { signal: leaving.signal });
      cache.clear();
      const newer = cache.get(query);
      leaving.abort();
      await expect(old).rejects.toMatchObject({ name: 'AbortError' });
      const later = cache.get(query);
      expect(answers).toHaveLength(2);
      answers[1]?.resolve([]);
      await expect(Promise.all([newer, later])).resolves.toEqual([[], []]);
    });
  });
});
