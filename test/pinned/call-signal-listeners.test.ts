/**
 * The part of `EventTarget` a call's signal offers undici and the SDK's waits: a removed
 * listener is not called when the call stops, whichever it was, and a wait begun on a stopped
 * call rejects at once (mutations of src/internal/call-signal.ts once got past).
 */
import { describe, expect, it } from 'vitest';
import { CallSignal, STOPPED } from '../../src/internal/call-signal.js';

describe('CallSignal listeners', () => {
  it('calls the listeners still added when it stops, not the removed ones', () => {
    const call = new CallSignal(60_000, undefined);
    const fired: string[] = [];
    const listener = (name: string) => () => fired.push(name);
    const [first, second, third] = [listener('first'), listener('second'), listener('third')];
    call.addEventListener('abort', first);
    call.addEventListener('abort', second);
    call.addEventListener('abort', third);
    call.removeEventListener('abort', first);
    call.removeEventListener('abort', third);
    call.removeEventListener('abort', listener('never added'));
    call.stop('aborted', new Error('stop'));
    call.end();
    expect(fired).toEqual(['second']);
  });

  it('a sleep begun on a stopped call rejects at once', async () => {
    const call = new CallSignal(60_000, undefined);
    call.stop('aborted', new Error('stop'));
    const started = performance.now();
    await expect(call.sleep(5_000)).rejects.toBe(STOPPED);
    expect(performance.now() - started).toBeLessThan(1_000);
    call.end();
  });
});
