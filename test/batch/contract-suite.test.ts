import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileJournalStore } from '../../src/batch/file-store.js';
import type { JournalStore } from '../../src/batch/store.js';
import {
  type JournalStoreContractOptions,
  journalStoreContract,
  type MakeStore,
} from '../../src/batch/testing/index.js';
import { MemorySharedStore } from './memory-shared-store.js';

// Kept apart from contract.test.ts, which registers the contract's cases when it loads: here
// the suite is only called inside tests, so a suite that cannot even register its cases fails
// these tests (a file that fails to load runs no test at all).
const dir = mkdtempSync(join(tmpdir(), 'contract-suite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the contract suite itself', () => {
  /** The cases as registered: name, body, timeout. */
  function collect(makeStore: MakeStore, options: JournalStoreContractOptions = {}) {
    const suites: string[] = [];
    const cases: { name: string; body: () => Promise<void>; timeout: number | undefined }[] = [];
    journalStoreContract(makeStore, {
      describe: (name, body) => {
        suites.push(name);
        body();
      },
      it: (name, body, timeout) => cases.push({ name, body, timeout }),
      ...options,
    });
    return { suites, cases };
  }

  it('names its suite, and gives each case 20 s plus twice the lease, or the timeout given', () => {
    const file = (name: string) => new FileJournalStore(join(dir, name));
    expect(collect(file).suites).toEqual(['JournalStore contract']);
    expect(collect(file, { name: 'mine' }).suites).toEqual(['mine']);
    expect(new Set(collect(file).cases.map((c) => c.timeout))).toEqual(new Set([20_000]));
    expect(new Set(collect(file, { leaseMs: 300 }).cases.map((c) => c.timeout))).toEqual(new Set([20_600]));
    expect(new Set(collect(file, { timeoutMs: 5_000 }).cases.map((c) => c.timeout))).toEqual(
      new Set([5_000]),
    );
  });

  it("uses the runner's global describe and it when none are given", () => {
    const globals = globalThis as { describe?: unknown; it?: unknown };
    const saved = { describe: globals.describe, it: globals.it };
    const seen: string[] = [];
    globals.describe = (name: string, body: () => void) => {
      seen.push(`describe ${name}`);
      body();
    };
    globals.it = (name: string) => seen.push(name);
    try {
      journalStoreContract((name) => new FileJournalStore(join(dir, name)));
    } finally {
      globals.describe = saved.describe;
      globals.it = saved.it;
    }
    expect(seen[0]).toBe('describe JournalStore contract');
    expect(seen).toContain('refuses append and claim after close()');
  });

  it('gives each case journals of its own, named [a-z0-9_], and closes every store it opened', async () => {
    const names: string[] = [];
    const open = new Set<JournalStore>();
    const tracked =
      (inner: MakeStore): MakeStore =>
      async (name) => {
        names.push(name);
        const store = await inner(name);
        const { open: opening, close } = { open: store.open.bind(store), close: store.close.bind(store) };
        return Object.assign(store, {
          open: async (options?: Parameters<JournalStore['open']>[0]) => {
            await opening(options);
            open.add(store);
          },
          close: async () => {
            open.delete(store);
            await close();
          },
        });
      };
    for (const [inner, options] of [
      [(name: string) => new FileJournalStore(join(dir, `tracked-${name}`)), {}],
      [(name: string) => new MemorySharedStore(`tracked-${name}`, 100), { leaseMs: 100 }],
      [(name: string) => new MemorySharedStore(`tracked-${name}`, 100, true), { leaseMs: 100 }],
    ] as const) {
      for (const { name, body } of collect(tracked(inner), options).cases) {
        await body();
        expect([...open], `${name} left a store open`).toEqual([]);
      }
    }
    expect(names.every((n) => /^j\d+_[0-9a-f]{10}$/.test(n))).toBe(true);
    const perCase = new Set(names);
    expect(perCase.size).toBeGreaterThan(10);
  });
});
