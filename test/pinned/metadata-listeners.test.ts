/**
 * A caller waiting on the metadata cache with its own signal must not leave a listener on that
 * signal once the shared look-up settles: a long-lived signal (one per server, per job) would
 * otherwise collect one listener, and keep one closure alive, per call. Listeners go through
 * the abort fan-out: at most one platform listener per signal, and no fan-out subscriber left.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { waitingOn } from '../../src/internal/abort-fanout.js';
import { MetadataCache } from '../../src/metadata-cache.js';
import type { IncidentFieldDescriptor } from '../../src/schemas/metadata.js';

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
