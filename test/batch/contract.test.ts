import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileJournalStore } from '../../src/batch/file-store.js';
import type { JournalRecord } from '../../src/batch/record.js';
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
