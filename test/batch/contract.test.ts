import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileJournalStore } from '../../src/batch/file-store.js';
import { type JournalRecord, recordProblem } from '../../src/batch/record.js';
import type { JournalStore } from '../../src/batch/store.js';
import {
  type JournalStoreContractOptions,
  journalStoreContract,
  type MakeStore,
} from '../../src/batch/testing/index.js';
import { MemorySharedStore } from './memory-shared-store.js';

const dir = mkdtempSync(join(tmpdir(), 'contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

journalStoreContract((name) => new FileJournalStore(join(dir, name)), {
  describe,
  it,
  name: 'FileJournalStore passes the JournalStore contract',
});

journalStoreContract((name) => new MemorySharedStore(name, 150), {
  describe,
  it,
  name: 'a shared store (in memory, leases of 150 ms) passes the JournalStore contract',
  leaseMs: 150,
});

journalStoreContract((name) => new MemorySharedStore(name, 150, true), {
  describe,
  it,
  name: 'a shared store with loadChanges (in memory, leases of 150 ms) passes the JournalStore contract',
  leaseMs: 150,
});

/** Runs the contract's cases against `makeStore` here and says which failed, and why. */
async function failures(
  makeStore: MakeStore,
  options: JournalStoreContractOptions = {},
): Promise<Map<string, string>> {
  const cases: [string, () => Promise<void>][] = [];
  journalStoreContract(makeStore, {
    ...options,
    describe: (_name, body) => body(),
    it: (name, body) => cases.push([name, body]),
  });
  const failed = new Map<string, string>();
  for (const [name, body] of cases) {
    await body().catch((error: unknown) => failed.set(name, String((error as Error).message)));
  }
  return failed;
}

/** A file store with one thing changed. */
function fileStore(change: (store: FileJournalStore) => Partial<JournalStore>): MakeStore {
  return (name) => {
    const store = new FileJournalStore(join(dir, `broken-${name}`));
    return Object.assign(store, change(store)) as JournalStore;
  };
}

/** A shared in-memory store with one thing changed. */
function sharedStore(change: (store: MemorySharedStore) => Partial<JournalStore>): MakeStore {
  return (name) => {
    const store = new MemorySharedStore(`broken-${name}`, 100);
    return Object.defineProperties(store, Object.getOwnPropertyDescriptors(change(store))) as JournalStore;
  };
}

const names = (failed: Map<string, string>) => [...failed.keys()];

describe('the contract suite fails a store that breaks the contract', () => {
  it('passes the stores that keep it (the suite itself is sound)', async () => {
    expect(names(await failures((name) => new FileJournalStore(join(dir, `sound-${name}`))))).toEqual([]);
    expect(
      names(await failures((name) => new MemorySharedStore(`sound-${name}`, 100), { leaseMs: 100 })),
    ).toEqual([]);
    expect(
      names(await failures((name) => new MemorySharedStore(`sound-${name}`, 100, true), { leaseMs: 100 })),
    ).toEqual([]);
  });

  it('a shared store whose loadChanges misses a change, gives a stale record, or does not mark a live run', async () => {
    const CASE =
      'shared: loadChanges, when the store has it, gives what other runs changed since its last read, as load() would';
    const changes = (loadChanges: (store: MemorySharedStore) => AsyncIterable<JournalRecord>) =>
      failures(
        (name) => {
          const store = new MemorySharedStore(`changes-${name}`, 100, true);
          return Object.defineProperty(store, 'loadChanges', { value: () => loadChanges(store) });
        },
        { leaseMs: 100 },
      );
    const none = await changes(async function* () {});
    expect(none.get(CASE)).toBe('the journal has no record of "B"');
    const unmarked = await changes(async function* (store) {
      for await (const r of store.load()) yield { ...r, heldElsewhere: undefined };
    });
    expect(unmarked.get(CASE)).toMatch(/^another live run's sending record: heldElsewhere/);
    const stale = await changes(async function* (store) {
      for await (const r of store.load())
        yield r.key === 'B' ? { ...r, state: 'not_sent', incidentId: undefined } : r;
    });
    expect(stale.get(CASE)).toMatch(/^B's latest record/);
    const staleOther = await changes(async function* (store) {
      yield* store.load();
      yield { key: 'Z', state: 'filed', bodyHash: 'h-Z', at: '2026-11-26T10:00:00.000Z', incidentId: 'I' };
    });
    expect(staleOther.get(CASE)).toBe('the journal has no record of "Z"');
    const wrongOther = await changes(async function* (store) {
      for await (const r of store.load()) yield r.key === 'C' ? { ...r, bodyHash: 'h-other' } : r;
    });
    expect(wrongOther.get(CASE)).toMatch(/^the record of C is its latest/);
    // Every other case passes: the case is the only one that reads loadChanges.
    expect([...none.keys()]).toEqual([CASE]);
  });

  it('a store that gives a key of digits back as a number (an integer column)', async () => {
    const failed = await failures(
      fileStore((store) => {
        const load = store.load.bind(store);
        return {
          async *load() {
            for await (const r of load())
              yield (/^\d+$/.test(r.key) ? { ...r, key: Number(r.key) } : r) as JournalRecord;
          },
        };
      }),
    );
    expect(names(failed)).toEqual([expect.stringContaining('gives back every record as written')]);
  });

  it('a store that loses a field, or changes a type (status as text)', async () => {
    const failed = await failures(
      fileStore((store) => {
        const load = store.load.bind(store);
        return {
          async *load() {
            for await (const r of load())
              yield (r.status ? { ...r, status: String(r.status), problems: undefined } : r) as JournalRecord;
          },
        };
      }),
    );
    expect(names(failed)).toEqual([expect.stringContaining('gives back every record as written')]);
  });

  it('a store whose close() does not wait for appends under way', async () => {
    const failed = await failures(
      sharedStore((store) => {
        let closed = false;
        const close = store.close.bind(store);
        return {
          append: async (record: JournalRecord) => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            if (!closed) await MemorySharedStore.prototype.append.call(store, record);
          },
          close: async () => {
            closed = true;
            await close();
          },
        };
      }),
      { leaseMs: 100 },
    );
    expect(names(failed)).toContain(
      'keeps 50 records appended at once, and close() waits for appends under way',
    );
  });

  it('a store that still writes after close()', async () => {
    const failed = await failures(fileStore(() => ({ claim: async () => ({ taken: true }) as const })));
    expect(names(failed)).toContain('refuses append and claim after close()');
    const appending = await failures(fileStore(() => ({ append: async () => undefined })));
    expect(names(appending)).toContain('refuses append and claim after close()');
  });

  it('a store whose read-only open writes, or opens a journal that is not there', async () => {
    const failed = await failures(
      fileStore((store) => ({
        open: (options) => FileJournalStore.prototype.open.call(store, { ...options, readOnly: false }),
      })),
    );
    expect(names(failed)).toEqual(
      expect.arrayContaining([
        'read-only: loads what was written while another run has it open, and writes nothing',
        'read-only open of a journal never written is refused (JournalError not_found)',
      ]),
    );
  });

  it('a single-run store without a lock', async () => {
    const failed = await failures(
      fileStore((store) => ({
        open: async (options) => {
          // As if the lock were always free: each open is a fresh read of the file.
          await FileJournalStore.prototype.open.call(store, { ...options, readOnly: true });
        },
      })),
    );
    expect(names(failed)).toContain(
      'single-run: of runs opening it at once exactly one gets it (JournalError locked), until it closes',
    );
  });

  it('a shared store whose claim does not compare (every run takes the key)', async () => {
    const failed = await failures(
      sharedStore((store) => ({
        claim: async (record: JournalRecord) => {
          await MemorySharedStore.prototype.append.call(store, record);
          return { taken: true } as const;
        },
      })),
      { leaseMs: 100 },
    );
    expect(names(failed)).toEqual(
      expect.arrayContaining([
        'shared: runs open it at once, and of runs claiming one key at once exactly one takes it',
        'shared: a claim on a record that is no longer the latest is refused with the latest',
      ]),
    );
  });

  it('a shared store that does not say a live run holds a key, or whose leases never run out', async () => {
    const unmarked = await failures(
      sharedStore((store) => {
        const load = store.load.bind(store);
        const claim = store.claim.bind(store);
        const strip = (r: JournalRecord) => ({ ...r, heldElsewhere: undefined });
        return {
          async *load() {
            for await (const r of load()) yield strip(r);
          },
          claim: async (record: JournalRecord, previous: JournalRecord | undefined) => {
            const answer = await claim(record, previous);
            return answer.taken ? answer : { taken: false as const, latest: strip(answer.latest) };
          },
        };
      }),
      { leaseMs: 100 },
    );
    expect(names(unmarked)).toEqual(
      expect.arrayContaining([
        'shared: runs open it at once, and of runs claiming one key at once exactly one takes it',
        "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
      ]),
    );
    const forever = await failures(
      sharedStore((store) => {
        const load = store.load.bind(store);
        return {
          async *load() {
            for await (const r of load()) yield r.state === 'sending' ? { ...r, heldElsewhere: true } : r;
          },
        };
      }),
      { leaseMs: 100 },
    );
    expect(names(forever)).toEqual([
      "shared: load() again while open gives the records as they are now, other runs' included",
      "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
    ]);
  });

  it('a shared store run without leaseMs, and a store that does not say whether it is shared', async () => {
    const noLease = await failures((name) => new MemorySharedStore(`nolease-${name}`, 100));
    expect(
      noLease.get(
        "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
      ),
    ).toContain('needs the leaseMs option');
    const unsaid = await failures(fileStore(() => ({ shared: undefined as unknown as boolean })));
    expect(unsaid.get('says whether it is shared, and a new journal loads no record')).toContain(
      'shared must be true or false',
    );
  });
});

describe('what the suite says when a store breaks the contract', () => {
  it('a new journal that is not empty', async () => {
    const failed = await failures(
      fileStore(() => ({
        async *load() {
          yield { key: 'ghost', state: 'not_sent', bodyHash: 'h', at: 'a' } as JournalRecord;
        },
      })),
    );
    expect(names(failed)).toContain('says whether it is shared, and a new journal loads no record');
  });

  it('a claim that never takes, or takes without writing, or an append that does not write', async () => {
    const never = await failures(
      fileStore(() => ({ claim: async () => ({ taken: false, latest: {} as JournalRecord }) })),
    );
    expect(
      never.get('gives back every record as written: every field with its type, the latest of a key last'),
    ).toMatch(/^claim of 7001 on its latest record/);
    const claimNoWrite = await failures(fileStore(() => ({ claim: async () => ({ taken: true }) as const })));
    expect(names(claimNoWrite)).toContain(
      'gives back every record as written: every field with its type, the latest of a key last',
    );
    const appendNoWrite = await failures(
      fileStore((store) => ({
        append: async (record: JournalRecord) => {
          if (record.state === 'sending' || record.resolvedBy === 'user')
            await FileJournalStore.prototype.append.call(store, record);
        },
      })),
    );
    expect(
      appendNoWrite.get(
        'gives back every record as written: every field with its type, the latest of a key last',
      ),
    ).toMatch(/^the record of 7001/);
  });

  it('writes after close(): which one', async () => {
    const appending = await failures(fileStore(() => ({ append: async () => undefined })));
    expect(appending.get('refuses append and claim after close()')).toMatch(/append after close/);
    const claiming = await failures(fileStore(() => ({ claim: async () => ({ taken: true }) as const })));
    expect(claiming.get('refuses append and claim after close()')).toMatch(/claim after close/);
  });

  it('a read-only store that still writes, or refuses a missing journal with another code', async () => {
    const writes = await failures(
      fileStore((store) => ({
        append: (record: JournalRecord) =>
          (store as unknown as { readOnlyWrites?: boolean }).readOnlyWrites
            ? Promise.resolve()
            : FileJournalStore.prototype.append.call(store, record),
        open: async (options?: Parameters<JournalStore['open']>[0]) => {
          (store as unknown as { readOnlyWrites?: boolean }).readOnlyWrites = options?.readOnly === true;
          await FileJournalStore.prototype.open.call(store, options);
        },
      })),
    );
    expect(names(writes)).toEqual([
      'read-only: loads what was written while another run has it open, and writes nothing',
    ]);
    const wrongCode = await failures(
      fileStore((store) => ({
        open: async (options?: Parameters<JournalStore['open']>[0]) => {
          await FileJournalStore.prototype.open.call(store, options).catch((error: unknown) => {
            throw Object.assign(new Error('gone'), {
              code:
                (error as { code: string }).code === 'not_found' ? 'io' : (error as { code: string }).code,
            });
          });
        },
      })),
    );
    expect(names(wrongCode)).toEqual([
      'read-only open of a journal never written is refused (JournalError not_found)',
    ]);
  });

  it('a single-run store that refuses other runs with another code than locked', async () => {
    const failed = await failures(
      fileStore((store) => ({
        open: async (options?: Parameters<JournalStore['open']>[0]) => {
          await FileJournalStore.prototype.open.call(store, options).catch((error: unknown) => {
            throw Object.assign(new Error('busy'), { code: 'io', cause: error });
          });
        },
      })),
    );
    expect(
      failed.get(
        'single-run: of runs opening it at once exactly one gets it (JournalError locked), until it closes',
      ),
    ).toMatch(/the others: locked/);
  });

  it('shared stores: which promise each broke', async () => {
    const noCompare = await failures(
      sharedStore((store) => ({
        claim: async (record: JournalRecord) => {
          await MemorySharedStore.prototype.append.call(store, record);
          return { taken: true } as const;
        },
      })),
      { leaseMs: 100 },
    );
    expect(
      noCompare.get(
        'shared: runs open it at once, and of runs claiming one key at once exactly one takes it',
      ),
    ).toMatch(/^exactly one run takes K/);
    // Compares only whether the key has a record, not which.
    const existence = await failures(
      sharedStore((store) => ({
        claim: async (record: JournalRecord, previous: JournalRecord | undefined) => {
          const rows = MemorySharedStore.journals.get(store.name) as Map<string, { record: JournalRecord }>;
          const row = rows.get(record.key);
          if ((row === undefined) !== (previous === undefined)) {
            return { taken: false, latest: { ...(row?.record as JournalRecord), heldElsewhere: true } };
          }
          await MemorySharedStore.prototype.append.call(store, record);
          return { taken: true } as const;
        },
      })),
      { leaseMs: 100 },
    );
    expect(
      existence.get('shared: a claim on a record that is no longer the latest is refused with the latest'),
    ).toMatch(/a previous the key never had/);
    const notTheWinner = await failures(
      sharedStore((store) => {
        const claim = store.claim.bind(store);
        return {
          claim: async (record: JournalRecord, previous: JournalRecord | undefined) => {
            const answer = await claim(record, previous);
            return answer.taken
              ? answer
              : { taken: false as const, latest: { ...record, heldElsewhere: true } };
          },
        };
      }),
      { leaseMs: 100 },
    );
    expect(
      notTheWinner.get(
        'shared: runs open it at once, and of runs claiming one key at once exactly one takes it',
      ),
    ).toMatch(/latest is the winner's record/);
  });

  it('shared stores: the live and dead marks', async () => {
    const strip = (r: JournalRecord) => ({ ...r, heldElsewhere: undefined });
    const unmarked = await failures(
      sharedStore((store) => {
        const load = store.load.bind(store);
        const claim = store.claim.bind(store);
        return {
          async *load() {
            for await (const r of load()) yield strip(r);
          },
          claim: async (record: JournalRecord, previous: JournalRecord | undefined) => {
            const answer = await claim(record, previous);
            return answer.taken ? answer : { taken: false as const, latest: strip(answer.latest) };
          },
        };
      }),
      { leaseMs: 100 },
    );
    expect(
      unmarked.get('shared: runs open it at once, and of runs claiming one key at once exactly one takes it'),
    ).toMatch(/the winner is alive: heldElsewhere/);
    expect(
      unmarked.get(
        "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
      ),
    ).toMatch(/held by a live run/);
    const allHeld = await failures(
      sharedStore((store) => {
        const load = store.load.bind(store);
        return {
          async *load() {
            for await (const r of load()) yield { ...r, heldElsewhere: true };
          },
        };
      }),
      { leaseMs: 100 },
    );
    expect(
      allHeld.get(
        "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
      ),
    ).toMatch(/a final record is held by nobody/);
    const forever = await failures(
      sharedStore((store) => {
        const load = store.load.bind(store);
        return {
          async *load() {
            for await (const r of load()) yield r.state === 'sending' ? { ...r, heldElsewhere: true } : r;
          },
        };
      }),
      { leaseMs: 100 },
    );
    expect(
      forever.get(
        "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
      ),
    ).toMatch(/a dead run's sending record needs review/);
    const noResolution = await failures(
      sharedStore((store) => {
        const claim = store.claim.bind(store);
        return {
          claim: async (record: JournalRecord, previous: JournalRecord | undefined) =>
            record.resolvedBy === 'user'
              ? { taken: false as const, latest: previous as JournalRecord }
              : claim(record, previous),
        };
      }),
      { leaseMs: 100 },
    );
    expect(names(noResolution)).toContain(
      "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
    );
  });
});

/**
 * `inner` behind a store that holds its caller to the protocol the runner keeps, as a database
 * store with constraints would: every record (and `previous`) is checked before anything else,
 * `claim` takes only `sending` records and a person's resolutions, `append` only the rest.
 */
function strict(inner: JournalStore): JournalStore {
  const check = (record: JournalRecord, what: string) => {
    const problem = recordProblem(record);
    if (problem) throw new Error(`${what}: ${problem}`);
  };
  const claimed = (record: JournalRecord) => record.state === 'sending' || record.resolvedBy === 'user';
  return {
    shared: inner.shared,
    open: (options) => inner.open(options),
    load: () => inner.load(),
    close: () => inner.close(),
    claim: async (record, previous) => {
      check(record, 'claim');
      if (previous) check(previous, 'previous');
      if (previous && previous.key !== record.key) throw new Error('previous is of another key');
      if (!claimed(record)) throw new Error(`claim of a ${record.state} record`);
      return inner.claim(record, previous);
    },
    append: async (record) => {
      check(record, 'append');
      if (claimed(record)) throw new Error('a sending record or a resolution goes through claim');
      return inner.append(record);
    },
  };
}

describe('the cases drive a store as the runner does, with records that fit', () => {
  it('a strict store passes: sending records and resolutions are claimed, the rest appended, every record valid', async () => {
    expect(
      names(await failures((name) => strict(new FileJournalStore(join(dir, `strict-${name}`))))),
    ).toEqual([]);
    expect(
      names(await failures((name) => strict(new MemorySharedStore(`strict-${name}`, 100)), { leaseMs: 100 })),
    ).toEqual([]);
  });

  it('a store that refuses a bad record, but still writes after close(), fails on the write after close', async () => {
    const closedWrites =
      (what: 'append' | 'claim') =>
      (name: string): JournalStore => {
        const inner: JournalStore = new FileJournalStore(join(dir, `closed-${name}`));
        let closed = false;
        return strict({
          shared: false,
          open: (options) => inner.open(options),
          load: () => inner.load(),
          close: async () => {
            closed = true;
            await inner.close();
          },
          claim: async (record, previous) =>
            closed && what === 'claim' ? { taken: true } : inner.claim(record, previous),
          append: async (record) => (closed && what === 'append' ? undefined : inner.append(record)),
        });
      };
    const appending = await failures(closedWrites('append'));
    expect(names(appending)).toEqual(['refuses append and claim after close()']);
    expect(appending.get('refuses append and claim after close()')).toBe(
      'Missing expected rejection: append after close',
    );
    const claiming = await failures(closedWrites('claim'));
    expect(names(claiming)).toEqual(['refuses append and claim after close()']);
    expect(claiming.get('refuses append and claim after close()')).toBe(
      'Missing expected rejection: claim after close',
    );
  });
});

describe('what the suite says when a store breaks the contract (more)', () => {
  it('a store that holds writes until close(): a reader sees no record of "A"', async () => {
    const failed = await failures((name) => {
      const inner = new FileJournalStore(join(dir, `held-${name}`));
      const held: JournalRecord[] = [];
      return {
        shared: false,
        open: (options) => inner.open(options),
        load: () => inner.load(),
        claim: async (record) => {
          held.push(record);
          return { taken: true };
        },
        append: async (record) => {
          held.push(record);
        },
        close: async () => {
          for (const record of held.splice(0)) await inner.append(record);
          await inner.close();
        },
      };
    });
    expect(
      failed.get('read-only: loads what was written while another run has it open, and writes nothing'),
    ).toBe('the journal has no record of "A"');
  });

  it('a store that loads keys in another order than they were first written', async () => {
    const failed = await failures(
      fileStore((store) => {
        const load = store.load.bind(store);
        return {
          async *load() {
            const all: JournalRecord[] = [];
            for await (const r of load()) all.push(r);
            yield* all.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
          },
        };
      }),
    );
    expect(names(failed)).toEqual([
      'read-only: loads what was written while another run has it open, and writes nothing',
    ]);
    expect(
      failed.get('read-only: loads what was written while another run has it open, and writes nothing'),
    ).toMatch(/^oldest first/);
  });

  it('a store whose refused read-only open leaves a journal with a record in it', async () => {
    const failed = await failures(
      fileStore((store) => ({
        open: async (options?: Parameters<JournalStore['open']>[0]) => {
          await FileJournalStore.prototype.open.call(store, options).catch(async (error: unknown) => {
            const writer = new FileJournalStore((store as unknown as { path: string }).path);
            await writer.open();
            await writer.append({ key: 'opened', state: 'not_sent', bodyHash: 'h', at: 'now' });
            await writer.close();
            throw error;
          });
        },
      })),
    );
    expect(names(failed)).toEqual([
      'read-only open of a journal never written is refused (JournalError not_found)',
    ]);
    expect(
      failed.get('read-only open of a journal never written is refused (JournalError not_found)'),
    ).toMatch(/^Expected values to be strictly deep-equal/);
  });

  it('a single-run store without a lock: how many runs opened it', async () => {
    const failed = await failures(
      fileStore((store) => ({
        open: (options?: Parameters<JournalStore['open']>[0]) =>
          FileJournalStore.prototype.open.call(store, { ...options, readOnly: true }),
      })),
    );
    expect(
      failed.get(
        'single-run: of runs opening it at once exactly one gets it (JournalError locked), until it closes',
      ),
    ).toMatch(/^exactly one run opens a single-run journal/);
  });

  it("a shared store whose read-only load does not mark a live run's records (as `claims journal list` reads it)", async () => {
    const failed = await failures(
      (name) => {
        const inner = new MemorySharedStore(`unmarked-ro-${name}`, 100);
        let readOnly = false;
        return Object.assign(Object.create(inner) as MemorySharedStore, {
          open: async (options?: Parameters<JournalStore['open']>[0]) => {
            readOnly = options?.readOnly === true;
            await inner.open(options);
          },
          async *load() {
            for await (const r of inner.load()) yield readOnly ? { ...r, heldElsewhere: undefined } : r;
          },
          claim: inner.claim.bind(inner),
          append: inner.append.bind(inner),
          close: inner.close.bind(inner),
        });
      },
      { leaseMs: 100 },
    );
    expect(names(failed)).toEqual([
      "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
    ]);
    expect(
      failed.get(
        "shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not",
      ),
    ).toMatch(/^held by a live run/);
  });
});
