import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JournalError } from '../../src/batch/errors.js';
import { FileJournalStore } from '../../src/batch/file-store.js';
import { Journal } from '../../src/batch/journal.js';
import { type JournalRecord, recordProblem } from '../../src/batch/record.js';
import type { ClaimAnswer, JournalStore } from '../../src/batch/store.js';
import { MemorySharedStore } from './memory-shared-store.js';

const rec = (
  key: string,
  state: JournalRecord['state'],
  extra: Partial<JournalRecord> = {},
): JournalRecord => ({
  key,
  state,
  bodyHash: `h-${key}`,
  at: '2026-11-23T10:00:00.000Z',
  ...(state === 'filed' ? { incidentId: `INC-${key}` } : {}),
  ...extra,
});

/** A store of yours that loads these records and takes every claim. */
function storeLoading(
  records: unknown[],
  shared = false,
  claim?: JournalStore['claim'],
): JournalStore & { closed: number } {
  return {
    shared,
    closed: 0,
    open: async () => {},
    async *load() {
      yield* records as JournalRecord[];
    },
    claim: claim ?? (async () => ({ taken: true })),
    append: async () => {},
    async close() {
      this.closed++;
    },
  };
}

async function refusal(promise: Promise<unknown>): Promise<JournalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalError);
  return error as JournalError;
}

describe('records a store loads are checked', () => {
  it('refuses a journal whose key came back as a number, naming the record, and closes the store', async () => {
    const store = storeLoading([rec('A', 'filed'), { ...rec('7001', 'filed'), key: 7001 }]);
    const error = await refusal(Journal.open(store));
    expect(error.code).toBe('corrupt');
    expect(error.message).toBe(
      "The journal's record 2 does not fit: its key 7001 (number) is not a non-empty string. Nothing was sent; the journal was not changed.",
    );
    expect(store.closed).toBe(1);
  });

  it('refuses any record with a field of the wrong type, and accepts every record that fits', () => {
    const valid = fc.record(
      {
        key: fc.string({ minLength: 1 }),
        state: fc.constantFrom('sending', 'filed', 'rejected', 'unknown', 'not_sent'),
        bodyHash: fc.string({ minLength: 1 }),
        at: fc.string(),
        incidentId: fc.string({ minLength: 1 }),
        requestId: fc.string(),
        status: fc.integer({ min: 100, max: 599 }),
        problems: fc.jsonValue(),
        error: fc.string(),
        resolvedBy: fc.constant('user'),
        heldElsewhere: fc.boolean(),
      },
      { requiredKeys: ['key', 'state', 'bodyHash', 'at', 'incidentId'] },
    );
    fc.assert(fc.property(valid, (record) => recordProblem(record) === undefined));
    const wrong: Record<string, fc.Arbitrary<unknown>> = {
      key: fc.oneof(
        fc.constant(''),
        fc.integer(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(fc.string()),
      ),
      state: fc.oneof(fc.constant('done'), fc.constant('SENDING'), fc.integer(), fc.constant(undefined)),
      bodyHash: fc.oneof(fc.constant(''), fc.integer(), fc.constant(undefined)),
      at: fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined)),
      incidentId: fc.oneof(fc.constant(''), fc.integer(), fc.constant(null)),
      requestId: fc.oneof(fc.integer(), fc.constant(null), fc.boolean()),
      status: fc.oneof(
        fc.constant('422'),
        fc.constant(99),
        fc.constant(600),
        fc.constant(422.5),
        fc.constant(null),
      ),
      error: fc.oneof(fc.integer(), fc.constant(null), fc.object()),
      resolvedBy: fc.oneof(fc.constant('admin'), fc.constant(true)),
      heldElsewhere: fc.oneof(fc.constant('yes'), fc.constant(1), fc.constant(null)),
    };
    fc.assert(
      fc.property(valid, fc.constantFrom(...Object.keys(wrong)), fc.context(), (record, field, ctx) => {
        const bad = { ...record, [field]: fc.sample(wrong[field] as fc.Arbitrary<unknown>, 1)[0] };
        ctx.log(JSON.stringify(bad));
        return typeof recordProblem(bad) === 'string';
      }),
    );
    expect(recordProblem({ ...rec('A', 'filed'), incidentId: undefined })).toBe(
      'its incidentId (missing) is not a non-empty string',
    );
    expect(recordProblem(rec('A', 'unknown'))).toBeUndefined();
    for (const notObject of [null, 'text', 7, [rec('A', 'filed')]])
      expect(recordProblem(notObject)).toBe('it is not an object');
  });

  it('names the key of a record that does not fit when it has one', async () => {
    const badState = await refusal(
      Journal.open(storeLoading([rec('A', 'filed'), { ...rec('B', 'filed'), state: 'done' }])),
    );
    expect(badState.message).toBe(
      `The journal's record 2 (key "B") does not fit: ${recordProblem({ ...rec('B', 'filed'), state: 'done' })}. Nothing was sent; the journal was not changed.`,
    );
    const yieldsNull = storeLoading([null]);
    const nothing = await refusal(Journal.open(yieldsNull));
    expect(nothing.message).toBe(
      "The journal's record 1 does not fit: it is not an object. Nothing was sent; the journal was not changed.",
    );
    expect(yieldsNull.closed).toBe(1);
  });

  it('refuses heldElsewhere from a single-run store (only a shared store can know of another live run)', async () => {
    const error = await refusal(Journal.open(storeLoading([rec('A', 'sending', { heldElsewhere: true })])));
    expect(error.message).toContain('a single-run store cannot say heldElsewhere');
    const shared = await Journal.open(
      storeLoading([rec('A', 'sending', { heldElsewhere: true }), rec('B', 'sending')], true),
    );
    expect(shared.needingReview().map((r) => r.key)).toEqual(['B']);
    await expect(shared.resolve('A', { notFiled: true })).rejects.toMatchObject({
      code: 'not_resolvable',
      message: 'Key "A" is being sent by another run now; it cannot be resolved',
    });
  });
});

describe('a store of yours must keep the contract', () => {
  it('refuses a store written for the old contract (no `shared`, no `claim`), saying what it lacks', async () => {
    const old = {
      open: async () => {},
      load: async function* () {},
      append: async () => {},
      close: async () => {},
    };
    const error = await refusal(Journal.open(old as unknown as JournalStore));
    expect(error.code).toBe('invalid_store');
    expect(error.message).toBe(
      'The journal store lacks shared (true or false), claim: see JournalStore (a store says whether it is shared, and claim() is required)',
    );
  });

  it('refuses no store at all (JavaScript), saying what it lacks, rather than failing on a property', async () => {
    for (const nothing of [undefined, null]) {
      const error = await refusal(Journal.open(nothing as unknown as JournalStore));
      expect([error.code, error.message]).toEqual([
        'invalid_store',
        'The journal store lacks shared (true or false), open, load, claim, append, close: see JournalStore (a store says whether it is shared, and claim() is required)',
      ]);
    }
  });

  it('opens a store of yours read-only by telling it so, and a path as the file store', async () => {
    const opened: unknown[] = [];
    const store = storeLoading([rec('A', 'filed')]);
    store.open = async (options) => {
      opened.push(options);
    };
    await (await Journal.open(store, { readOnly: true })).close();
    await (await Journal.open(store)).close();
    expect(opened).toEqual([{ readOnly: true }, {}]);
    const dir = mkdtempSync(join(tmpdir(), 'journal-open-'));
    try {
      const path = join(dir, 'claims.journal');
      const journal = await Journal.open(path);
      expect(journal.store).toBeInstanceOf(FileJournalStore);
      expect((journal.store as FileJournalStore).path).toBe(path);
      await journal.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps each key's latest record written, in the order keys were first written", async () => {
    const journal = await Journal.open(storeLoading([rec('B', 'unknown'), rec('A', 'sending')]));
    await journal.write(rec('A', 'filed'));
    await journal.write(rec('C', 'not_sent'));
    await journal.write(rec('B', 'filed'));
    expect([...journal.records()]).toEqual([rec('B', 'filed'), rec('A', 'filed'), rec('C', 'not_sent')]);
    expect(journal.get('A')).toEqual(rec('A', 'filed'));
    expect(journal.needingReview()).toEqual([]);
    await journal.close();
  });

  it("refuses a claim() answer that is not one, or whose latest record does not fit or is another key's", async () => {
    const answers: unknown[] = [
      true,
      undefined,
      { taken: 'yes' },
      { taken: false },
      { taken: false, latest: { ...rec('K', 'filed'), key: 7 } },
      { taken: false, latest: rec('other', 'filed') },
    ];
    const notAnAnswer =
      "The journal store's claim() did not answer { taken: true } or { taken: false, latest }";
    const doesNotFit = "The journal store's claim() answered a latest record that does not fit: ";
    const said = [
      notAnAnswer,
      notAnAnswer,
      notAnAnswer,
      `${doesNotFit}it is not an object`,
      `${doesNotFit}its key 7 (number) is not a non-empty string`,
      `${doesNotFit}it is another key's`,
    ];
    for (const [i, answer] of answers.entries()) {
      const journal = await Journal.open(storeLoading([], true, async () => answer as ClaimAnswer));
      const error = await refusal(journal.begin(rec('K', 'sending')));
      expect([error.code, error.message], JSON.stringify(answer)).toEqual(['invalid_store', said[i]]);
      expect(journal.get('K')).toBeUndefined();
    }
  });

  it("takes the latest record a shared store answered as the key's state", async () => {
    const latest = rec('K', 'filed', { incidentId: 'INC-there' });
    const journal = await Journal.open(storeLoading([], true, async () => ({ taken: false, latest })));
    expect(await journal.begin(rec('K', 'sending'))).toEqual({ taken: false, latest });
    expect(journal.get('K')).toEqual(latest);
  });

  it('a store that throws instead of rejecting: the call rejects with its error', async () => {
    const broken = new Error('driver exploded');
    const store = storeLoading([]);
    store.append = () => {
      throw broken;
    };
    store.claim = () => {
      throw broken;
    };
    const journal = await Journal.open(store);
    await expect(journal.write(rec('A', 'not_sent'))).rejects.toBe(broken);
    await expect(journal.begin(rec('A', 'sending'))).rejects.toBe(broken);
  });

  it('says why it refuses a write or a resolution, word for word', async () => {
    const store = storeLoading([rec('F', 'filed'), rec('U', 'unknown')]);
    const reader = await Journal.open(store, { readOnly: true });
    // The journal refuses itself, whatever the store would do.
    await expect(reader.write(rec('A', 'not_sent'))).rejects.toMatchObject({
      code: 'read_only',
      message: 'The journal was opened read-only',
    });
    await expect(reader.resolve('U', { notFiled: true })).rejects.toMatchObject({ code: 'read_only' });
    const journal = await Journal.open(storeLoading([rec('F', 'filed'), rec('U', 'unknown')]));
    await expect(journal.resolve('F', { notFiled: true })).rejects.toMatchObject({
      message: 'Key "F" is filed; only sending or unknown keys need resolving',
    });
    expect(await journal.resolve('U', { notFiled: true })).toMatchObject({
      state: 'not_sent',
      error: 'resolved as not filed',
      resolvedBy: 'user',
    });
    await journal.close();
    await expect(journal.write(rec('A', 'not_sent'))).rejects.toMatchObject({
      message: 'The journal is closed',
    });
  });

  it('refuses writes after close(), and close() twice closes the store once', async () => {
    const store = storeLoading([]);
    const journal = await Journal.open(store);
    await journal.close();
    await journal.close();
    expect(store.closed).toBe(1);
    await expect(journal.write(rec('A', 'not_sent'))).rejects.toMatchObject({ code: 'closed' });
    await expect(journal.begin(rec('A', 'sending'))).rejects.toMatchObject({ code: 'closed' });
  });
});

describe('resolving a key on a shared journal', () => {
  it('writes the resolution only if the key is still as it was read; else says what it is now', async () => {
    const name = `resolve-${Date.now()}`;
    const a = new MemorySharedStore(name, 60_000);
    await a.open();
    await a.append(rec('K', 'unknown', { error: 'no answer' }));
    await a.append(rec('L', 'unknown', { error: 'no answer' }));
    const reviewer = await Journal.open(new MemorySharedStore(name, 60_000));
    // Meanwhile another person resolved K.
    const other = await Journal.open(new MemorySharedStore(name, 60_000));
    await other.resolve('K', { filed: 'INC-7' });
    await expect(reviewer.resolve('K', { notFiled: true })).rejects.toMatchObject({
      code: 'not_resolvable',
      message: 'Key "K" changed meanwhile (it is now filed); nothing was written',
    });
    expect(reviewer.get('K')).toMatchObject({ state: 'filed', incidentId: 'INC-7' });
    expect(await reviewer.resolve('L', { notFiled: true })).toMatchObject({
      state: 'not_sent',
      resolvedBy: 'user',
    });
    for (const j of [reviewer, other]) await j.close();
    await a.close();
  });

  it('refuses an incidentId that is empty, and a key that is not there', async () => {
    const journal = await Journal.open(storeLoading([rec('U', 'unknown')], true));
    for (const filed of [' ', '', 7, undefined]) {
      await expect(journal.resolve('U', { filed } as { filed: string }), String(filed)).rejects.toMatchObject(
        {
          code: 'not_resolvable',
          message: 'A filed resolution needs the incidentId the server gave',
        },
      );
    }
    expect(journal.get('U')?.state).toBe('unknown');
    await expect(journal.resolve('nope\n', { filed: 'I' })).rejects.toMatchObject({
      code: 'unknown_key',
      message: 'The journal has no key "nope\\n"',
    });
  });
});

describe('reading a shared journal again (reread)', () => {
  /** A shared store whose load() gives `loaded` and whose loadChanges (when given) gives `changed`; reads counted. */
  function sharedReading(loaded: JournalRecord[], changed?: unknown) {
    const reads: string[] = [];
    const store: JournalStore = {
      ...storeLoading([], true),
      async *load() {
        reads.push('load');
        yield* loaded;
      },
    };
    if (changed !== undefined) {
      (store as { loadChanges?: unknown }).loadChanges = async function* (this: JournalStore) {
        expect(this).toBe(store);
        reads.push('loadChanges');
        yield* changed as JournalRecord[];
      };
    }
    return { store, reads };
  }

  it('reads only the changes when the store has loadChanges: each record offered to take, kept when taken', async () => {
    const { store, reads } = sharedReading(
      [rec('A', 'not_sent'), rec('B', 'not_sent')],
      [rec('A', 'filed'), rec('B', 'sending', { heldElsewhere: true }), rec('C', 'not_sent')],
    );
    const journal = await Journal.open(store);
    const offered: string[] = [];
    await journal.reread((record) => {
      offered.push(`${record.key} ${record.state}`);
      return record.key !== 'B';
    });
    expect(reads).toEqual(['load', 'loadChanges']);
    expect(offered).toEqual(['A filed', 'B sending', 'C not_sent']);
    expect(journal.get('A')).toEqual(rec('A', 'filed'));
    expect(journal.get('B')).toEqual(rec('B', 'not_sent'));
    expect(journal.get('C')).toEqual(rec('C', 'not_sent'));
  });

  it('reads every record again (load) when the store has no loadChanges, or one that is no function', async () => {
    for (const changed of [undefined, 'not a function', null]) {
      const { store, reads } = sharedReading([rec('A', 'not_sent')]);
      (store as { loadChanges?: unknown }).loadChanges = changed;
      const journal = await Journal.open(store);
      const offered: string[] = [];
      await journal.reread((record) => offered.push(record.key) > 0);
      expect(reads).toEqual(['load', 'load']);
      expect(offered).toEqual(['A']);
    }
  });

  it('checks each record the changes give as at the open: one that does not fit fails the read', async () => {
    const { store } = sharedReading([], [rec('A', 'filed'), { key: 7, state: 'filed' }]);
    const journal = await Journal.open(store);
    const taken: string[] = [];
    await expect(journal.reread((record) => taken.push(record.key) > 0)).rejects.toMatchObject({
      code: 'corrupt',
      message: expect.stringMatching(/^The journal's record 0 does not fit/),
    });
    expect(taken).toEqual(['A']);
  });
});
