import { describe, expect, it } from 'vitest';
import { WriteGroups } from '../../src/batch/postgres/write-group.js';

/** A `send` that records each group and answers when told to. */
function recordingSend() {
  const groups: string[][] = [];
  const pending: { resolve(answers: string[]): void; reject(error: unknown): void; items: string[] }[] = [];
  const send = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      groups.push([...items]);
      pending.push({ resolve, reject, items });
    });
  /** Answers the oldest group still waiting: each item upper-cased. */
  const answer = async () => {
    const next = pending.shift();
    if (!next) throw new Error('no group is waiting');
    next.resolve(next.items.map((item) => item.toUpperCase()));
    await tick();
  };
  const fail = async (error: unknown) => {
    pending.shift()?.reject(error);
    await tick();
  };
  return { groups, send, answer, fail, waiting: () => pending.length };
}
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WriteGroups', () => {
  it('writes asked for in one turn go in one group, sent the next turn, each answered with its own answer', async () => {
    const s = recordingSend();
    const groups = new WriteGroups(s.send, 8);
    const a = groups.write('a', 'a1');
    const b = groups.write('b', 'b1');
    expect(s.groups).toEqual([]);
    await tick();
    expect(s.groups).toEqual([['a1', 'b1']]);
    await s.answer();
    await expect(a).resolves.toBe('A1');
    await expect(b).resolves.toBe('B1');
  });

  it('one group at a time: writes asked for while one is under way, over several turns, go together in the next', async () => {
    const s = recordingSend();
    const groups = new WriteGroups(s.send, 8);
    const first = groups.write('a', 'a1');
    await tick();
    const rest = [groups.write('b', 'b1'), groups.write('c', 'c1')];
    await tick();
    const last = groups.write('d', 'd1');
    await tick();
    expect(s.groups).toEqual([['a1']]);
    await s.answer();
    expect(s.groups).toEqual([['a1'], ['b1', 'c1', 'd1']]);
    await s.answer();
    await expect(first).resolves.toBe('A1');
    await expect(Promise.all([...rest, last])).resolves.toEqual(['B1', 'C1', 'D1']);
    expect(s.waiting()).toBe(0);
  });

  it('one group at a time however many wait: with max 1, writes asked together go one by one', async () => {
    const s = recordingSend();
    const groups = new WriteGroups(s.send, 1);
    const all = ['a', 'b', 'c'].map((k) => groups.write(k, `${k}1`));
    await tick();
    expect(s.groups).toEqual([['a1']]);
    await s.answer();
    expect(s.groups).toEqual([['a1'], ['b1']]);
    await s.answer();
    await s.answer();
    expect(s.groups).toEqual([['a1'], ['b1'], ['c1']]);
    await expect(Promise.all(all)).resolves.toEqual(['A1', 'B1', 'C1']);
  });

  it('a group holds at most max writes; the others go next, oldest first', async () => {
    const s = recordingSend();
    const groups = new WriteGroups(s.send, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((k) => groups.write(k, `${k}1`));
    await tick();
    await s.answer();
    await s.answer();
    await s.answer();
    expect(s.groups).toEqual([['a1', 'b1'], ['c1', 'd1'], ['e1']]);
    await expect(Promise.all(all)).resolves.toEqual(['A1', 'B1', 'C1', 'D1', 'E1']);
  });

  it('never two writes of one key in a group: the later goes in a later group, so they land in order', async () => {
    const s = recordingSend();
    const groups = new WriteGroups(s.send, 8);
    const writes = [
      groups.write('a', 'a1'),
      groups.write('a', 'a2'),
      groups.write('b', 'b1'),
      groups.write('a', 'a3'),
      groups.write('b', 'b2'),
    ];
    await tick();
    await s.answer();
    await s.answer();
    await s.answer();
    expect(s.groups).toEqual([['a1', 'b1'], ['a2', 'b2'], ['a3']]);
    await expect(Promise.all(writes)).resolves.toEqual(['A1', 'A2', 'B1', 'A3', 'B2']);
  });

  it('a group that fails fails each of its writes with the error, and the next group is still sent', async () => {
    const s = recordingSend();
    const groups = new WriteGroups(s.send, 8);
    const a = groups.write('a', 'a1');
    await tick();
    const b = groups.write('b', 'b1').catch((error: unknown) => error);
    const c = groups.write('c', 'c1').catch((error: unknown) => error);
    const boom = new Error('connection lost');
    await s.answer();
    await s.fail(boom);
    expect(await b).toBe(boom);
    expect(await c).toBe(boom);
    await expect(a).resolves.toBe('A1');
    const d = groups.write('d', 'd1');
    await tick();
    expect(s.groups).toEqual([['a1'], ['b1', 'c1'], ['d1']]);
    await s.answer();
    await expect(d).resolves.toBe('D1');
  });

  it('a send that throws at once fails its group the same way, and the next is still sent', async () => {
    const groups = new WriteGroups<string, string>(() => {
      throw new Error('no pool');
    }, 8);
    await expect(groups.write('a', 'a1')).rejects.toThrow('no pool');
    await expect(groups.write('b', 'b1')).rejects.toThrow('no pool');
  });
});
