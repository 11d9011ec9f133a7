import { describe, expect, it } from 'vitest';
import { Channel } from '../../src/batch/channel.js';

async function drain<T>(channel: Channel<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of channel) out.push(item);
  return out;
}

describe('Channel: the results of a run, pushed by the runner and pulled by the caller', () => {
  it('gives every item pushed before and after the reader started, in order, and ends at close()', async () => {
    const channel = new Channel<number>();
    channel.push(1);
    channel.push(2);
    const reading = drain(channel);
    await Promise.resolve();
    channel.push(3);
    await new Promise((resolve) => setImmediate(resolve));
    channel.push(4);
    channel.close();
    await expect(reading).resolves.toEqual([1, 2, 3, 4]);
  });

  it('a reader waiting on an empty channel is woken by a push, and by close()', async () => {
    const channel = new Channel<string>();
    const iterator = channel[Symbol.asyncIterator]();
    const first = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    channel.push('a');
    await expect(first).resolves.toEqual({ value: 'a', done: false });
    const second = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    channel.close();
    await expect(second).resolves.toEqual({ value: undefined, done: true });
  });

  it('fail(): the items pushed before are given first, then the error is thrown', async () => {
    const channel = new Channel<number>();
    const error = new Error('the batch failed');
    channel.push(1);
    channel.fail(error);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of channel) seen.push(item);
      })(),
    ).rejects.toBe(error);
    expect(seen).toEqual([1]);
  });

  it('fail() wakes a waiting reader with the error, even an error that is undefined', async () => {
    const channel = new Channel<number>();
    const iterator = channel[Symbol.asyncIterator]();
    const waiting = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    channel.fail(undefined);
    await expect(waiting).rejects.toBeUndefined();
  });

  it('a falsy item (0, empty string) is an item, not the end', async () => {
    const channel = new Channel<number | string>();
    channel.push(0);
    channel.push('');
    channel.close();
    await expect(drain(channel)).resolves.toEqual([0, '']);
  });
});
