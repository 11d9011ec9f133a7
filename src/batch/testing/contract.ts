import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as nodeTest from 'node:test';
import type { JournalRecord } from '../record.js';
import type { ClaimAnswer, JournalStore } from '../store.js';

/** Makes a store object over the journal named `journal` (the same name: the same journal). */
export type MakeStore = (journal: string) => JournalStore | Promise<JournalStore>;

/** A test runner's `describe`, vitest/jest/mocha/node:test style. */
export type Describe = (name: string, body: () => void) => unknown;
/** A test runner's `it`; the third argument, a timeout in ms, is given to runners that take one. */
export type It = (name: string, body: () => Promise<void>, timeoutMs?: number) => unknown;

/** Options of {@link journalStoreContract}. */
export interface JournalStoreContractOptions {
  /** Your runner's `describe`. @default `globalThis.describe`, else `node:test`'s */
  describe?: Describe;
  /** Your runner's `it`. @default `globalThis.it`, else `node:test`'s */
  it?: It;
  /** The suite's name. @default 'JournalStore contract' */
  name?: string;
  /**
   * For a shared store: how long after its holder stopped renewing it a `sending` record's
   * lease runs out, in ms (configure your store with a short one for the suite). The lease
   * case waits this long, plus a quarter. Required for a shared store.
   */
  leaseMs?: number;
  /**
   * Longest a case may take, in ms (given to the runner).
   * @default 20000, plus twice `leaseMs`
   */
  timeoutMs?: number;
}

const FIELDS = [
  'key',
  'state',
  'bodyHash',
  'at',
  'incidentId',
  'requestId',
  'status',
  'problems',
  'error',
  'resolvedBy',
] as const;

/**
 * The journal store contract, as test cases for your runner: what the batch runner relies on
 * from a `JournalStore`. Every case opens stores over a journal of its own, named by a fresh
 * `[a-z0-9_]` string given to `makeStore` (a file name, a table suffix, a key prefix); a case
 * that needs two runs calls it twice with the same name. Cases for single-run stores
 * (`shared: false`) and shared ones (`shared: true`) are told apart by the store's `shared`.
 *
 * Remove what the journals left in your own `afterAll`.
 *
 * @example
 * import { describe, it } from 'vitest';
 * import { FileJournalStore } from 'claims-notification-sdk/batch';
 * import { journalStoreContract } from 'claims-notification-sdk/batch/testing';
 *
 * const dir = mkdtempSync(join(tmpdir(), 'journals-'));
 * journalStoreContract((name) => new FileJournalStore(join(dir, name)), { describe, it });
 */
export function journalStoreContract(makeStore: MakeStore, options: JournalStoreContractOptions = {}): void {
  const { describe, it } = runner(options);
  const timeout = options.timeoutMs ?? 20_000 + 2 * (options.leaseMs ?? 0);
  const test = (name: string, body: () => Promise<void>) => it(name, body, timeout);

  describe(options.name ?? 'JournalStore contract', () => {
    test('says whether it is shared, and a new journal loads no record', async () => {
      const store = await makeStore(journalName());
      assert.equal(typeof store.shared, 'boolean', 'shared must be true or false');
      await store.open();
      try {
        assert.deepEqual(await loadAll(store), []);
      } finally {
        await store.close();
      }
    });

    test('gives back every record as written: every field with its type, the latest of a key last', async () => {
      const name = journalName();
      const written = sampleRecords();
      const store = await makeStore(name);
      await store.open();
      let previous = new Map<string, JournalRecord>();
      for (const record of written) {
        if (record.state === 'sending' || record.resolvedBy === 'user') {
          const answer = await store.claim(record, previous.get(record.key));
          assert.deepEqual(answer, { taken: true }, `claim of ${record.key} on its latest record`);
        } else await store.append(record);
        previous.set(record.key, record);
      }
      await store.close();
      const again = await makeStore(name);
      await again.open();
      try {
        previous = latestOf(written);
        const loaded = latestOf(await loadAll(again));
        assert.deepEqual([...loaded.keys()].sort(), [...previous.keys()].sort());
        for (const [key, record] of previous) {
          assert.deepEqual(fieldsOf(the(loaded, key)), fieldsOf(record), `the record of ${key}`);
        }
      } finally {
        await again.close();
      }
    });

    test('keeps 50 records appended at once, and close() waits for appends under way', async () => {
      const name = journalName();
      const store = await makeStore(name);
      await store.open();
      // Stryker disable next-line StringLiteral,ObjectLiteral: test data
      const records = Array.from({ length: 50 }, (_, i) => record(`K${i}`, 'not_sent', { error: `e${i}` }));
      await Promise.all(records.slice(0, 40).map((r) => store.append(r)));
      // Stryker disable next-line MethodExpression: appending all 50 here re-appends 40 records already written (the same latest records); the last 10 are under way at close() either way
      const late = records.slice(40).map((r) => store.append(r));
      await store.close();
      await Promise.all(late);
      const again = await makeStore(name);
      await again.open();
      try {
        const loaded = latestOf(await loadAll(again));
        for (const r of records) assert.deepEqual(fieldsOf(the(loaded, r.key)), fieldsOf(r));
      } finally {
        await again.close();
      }
    });

    test('refuses append and claim after close()', async () => {
      const store = await makeStore(journalName());
      await store.open();
      await store.close();
      await assert.rejects(() => store.append(record('A', 'not_sent')), 'append after close');
      await assert.rejects(() => store.claim(record('A', 'sending'), undefined), 'claim after close');
    });

    test('read-only: loads what was written while another run has it open, and writes nothing', async () => {
      const name = journalName();
      const writer = await makeStore(name);
      await writer.open();
      try {
        await writer.append(record('A', 'not_sent'));
        assert.deepEqual(await writer.claim(record('B', 'sending'), undefined), { taken: true });
        const reader = await makeStore(name);
        await reader.open({ readOnly: true });
        try {
          const loaded = latestOf(await loadAll(reader));
          assert.deepEqual(fieldsOf(the(loaded, 'A')), fieldsOf(record('A', 'not_sent')));
          assert.equal(the(loaded, 'B').state, 'sending');
          await assert.rejects(() => reader.append(record('C', 'not_sent')), isCode('read_only'));
          await assert.rejects(() => reader.claim(record('C', 'sending'), undefined), isCode('read_only'));
        } finally {
          await reader.close();
        }
        await writer.append(record('B', 'filed', { incidentId: 'INC-B' }));
      } finally {
        await writer.close();
      }
      const again = await makeStore(name);
      await again.open();
      try {
        const loaded = latestOf(await loadAll(again));
        assert.deepEqual([...loaded.keys()], ['A', 'B'], 'oldest first');
        assert.equal(the(loaded, 'B').state, 'filed');
      } finally {
        await again.close();
      }
    });

    test('read-only open of a journal never written is refused (JournalError not_found)', async () => {
      const name = journalName();
      const reader = await makeStore(name);
      await assert.rejects(() => reader.open({ readOnly: true }), isCode('not_found'));
      const store = await makeStore(name);
      await store.open();
      try {
        assert.deepEqual(await loadAll(store), []);
      } finally {
        await store.close();
      }
    });

    test('single-run: of runs opening it at once exactly one gets it (JournalError locked), until it closes', async () => {
      const name = journalName();
      const stores = await Promise.all(Array.from({ length: 5 }, () => makeStore(name)));
      if ((stores[0] as JournalStore).shared) return; // shared stores: see the cases below
      const opened = await Promise.allSettled(stores.map((s) => s.open()));
      const winners = stores.filter(
        (_, i) => (opened[i] as PromiseSettledResult<void>).status === 'fulfilled',
      );
      assert.equal(winners.length, 1, 'exactly one run opens a single-run journal');
      for (const result of opened) {
        if (result.status === 'rejected') assert.ok(isCode('locked')(result.reason), 'the others: locked');
      }
      await (winners[0] as JournalStore).close();
      const next = await makeStore(name);
      await next.open();
      await next.close();
    });

    test('shared: runs open it at once, and of runs claiming one key at once exactly one takes it', async () => {
      const name = journalName();
      const stores = await Promise.all(Array.from({ length: 5 }, () => makeStore(name)));
      if (!(stores[0] as JournalStore).shared) return;
      await Promise.all(stores.map((s) => s.open()));
      try {
        // A key with no record, then a key whose latest record the runs loaded (`not_sent`).
        await (stores[0] as JournalStore).append(record('N', 'not_sent'));
        for (const [key, previous] of [
          ['K', undefined],
          ['N', record('N', 'not_sent')],
        ] as const) {
          const answers = await Promise.all(
            stores.map((s, i) => s.claim(record(key, 'sending', { bodyHash: `h-${i}` }), previous)),
          );
          const taken = answers.filter((a) => a.taken);
          assert.equal(taken.length, 1, `exactly one run takes ${key}`);
          const winner = answers.findIndex((a) => a.taken);
          for (const answer of answers.filter((a): a is Extract<ClaimAnswer, { taken: false }> => !a.taken)) {
            assert.equal(answer.latest.state, 'sending');
            assert.equal(answer.latest.key, key);
            assert.equal(answer.latest.bodyHash, `h-${winner}`, "latest is the winner's record");
            assert.equal(answer.latest.heldElsewhere, true, 'the winner is alive: heldElsewhere');
          }
        }
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    test('shared: a claim on a record that is no longer the latest is refused with the latest', async () => {
      const name = journalName();
      const a = await makeStore(name);
      if (!a.shared) return;
      const b = await makeStore(name);
      await a.open();
      await b.open();
      try {
        assert.deepEqual(await a.claim(record('K', 'sending'), undefined), { taken: true });
        await a.append(record('K', 'filed', { incidentId: 'INC-K' }));
        const answer = await b.claim(record('K', 'sending'), undefined);
        assert.equal(answer.taken, false);
        assert.deepEqual(
          fieldsOf((answer as { latest: JournalRecord }).latest),
          fieldsOf(record('K', 'filed', { incidentId: 'INC-K' })),
        );
        const stale = await b.claim(record('K', 'sending'), record('K', 'not_sent'));
        assert.equal(stale.taken, false, 'a previous the key never had');
      } finally {
        await a.close();
        await b.close();
      }
    });

    test("shared: load() again while open gives the records as they are now, other runs' included", async () => {
      const name = journalName();
      const a = await makeStore(name);
      if (!a.shared) return;
      const b = await makeStore(name);
      await a.open();
      await b.open();
      try {
        for await (const _ of a.load()) assert.fail('a new journal loads no record');
        assert.deepEqual(await a.claim(record('A', 'sending'), undefined), { taken: true });
        assert.deepEqual(await b.claim(record('B', 'sending'), undefined), { taken: true });
        await b.append(record('B', 'filed', { incidentId: 'INC-B' }));
        assert.deepEqual(await b.claim(record('C', 'sending'), undefined), { taken: true });
        const latest = new Map<string, JournalRecord>();
        for await (const r of a.load()) latest.set(r.key, r);
        assert.deepEqual([...latest.keys()].sort(), ['A', 'B', 'C']);
        assert.deepEqual(
          fieldsOf(latest.get('B') as JournalRecord),
          fieldsOf(record('B', 'filed', { incidentId: 'INC-B' })),
        );
        assert.equal(
          latest.get('C')?.heldElsewhere,
          true,
          "another live run's sending record: heldElsewhere",
        );
        assert.notEqual(latest.get('A')?.heldElsewhere, true, "this run's own is not held elsewhere");
        // Read again, its own key still takes its next record.
        await a.append(record('A', 'filed', { incidentId: 'INC-A' }));
        const again = await b.claim(record('A', 'sending'), undefined);
        assert.equal(again.taken, false);
        assert.equal((again as { latest: JournalRecord }).latest.state, 'filed');
      } finally {
        await a.close();
        await b.close();
      }
    });

    test('shared: loadChanges, when the store has it, gives what other runs changed since its last read, as load() would', async () => {
      const name = journalName();
      const a = await makeStore(name);
      if (!a.shared || typeof a.loadChanges !== 'function') return;
      const b = await makeStore(name);
      await a.open();
      await b.open();
      try {
        // Stryker disable next-line StringLiteral,ObjectLiteral: test data
        const before = record('B', 'not_sent', { error: 'e' });
        await b.append(before);
        await loadAll(a);
        // Since that read: B taken and filed by another run, C taken and in flight there.
        // Stryker disable next-line StringLiteral: test data (any state the store takes)
        assert.deepEqual(await b.claim(record('B', 'sending'), before), { taken: true });
        await b.append(record('B', 'filed', { incidentId: 'INC-B' }));
        assert.deepEqual(await b.claim(record('C', 'sending'), undefined), { taken: true });
        const changed: JournalRecord[] = [];
        for await (const r of a.loadChanges()) changed.push(r);
        const changes = latestOf(changed);
        assert.deepEqual(
          fieldsOf(the(changes, 'B')),
          fieldsOf(record('B', 'filed', { incidentId: 'INC-B' })),
          "B's latest record",
        );
        assert.equal(
          the(changes, 'C').heldElsewhere,
          true,
          "another live run's sending record: heldElsewhere",
        );
        // Whatever else it gives (a record that did not change: harmless) is the key's latest.
        const now = latestOf(await loadAll(a));
        for (const [key, changed] of changes) {
          assert.deepEqual(fieldsOf(changed), fieldsOf(the(now, key)), `the record of ${key} is its latest`);
        }
      } finally {
        await a.close();
        await b.close();
      }
    });

    test('a shared back-off (pauseAll), when the store has one: every run using the journal sees it by its next write', async () => {
      const name = journalName();
      const a = await makeStore(name);
      if (!a.pauseAll) return;
      assert.equal(typeof a.pausedUntil, 'function', 'pauseAll comes with pausedUntil');
      await a.open();
      const b = a.shared ? await makeStore(name) : a;
      if (b !== a) await b.open();
      try {
        const before = Date.now();
        await a.pauseAll(60_000);
        await a.pauseAll(1_000); // a shorter one does not cut the longer short
        await b.claim(record('P', 'sending'), undefined);
        for (const store of [a, b]) {
          const until = (store.pausedUntil as () => number)();
          assert.ok(
            until >= before + 59_000,
            `the back-off holds about 60 s from when it was set (${until - before} ms)`,
          );
          assert.ok(until <= Date.now() + 61_000, 'and not longer');
        }
      } finally {
        await a.close();
        if (b !== a) await b.close();
      }
    });

    test("shared: a live run's sending record loads heldElsewhere; a dead run's, after its lease, does not", async () => {
      const name = journalName();
      const holder = await makeStore(name);
      if (!holder.shared) return;
      assert.ok(
        options.leaseMs !== undefined,
        'a shared store needs the leaseMs option (a short lease for this suite)',
      );
      await holder.open();
      assert.deepEqual(await holder.claim(record('L', 'sending'), undefined), { taken: true });
      assert.deepEqual(await holder.claim(record('D', 'sending'), undefined), { taken: true });
      await holder.append(record('D', 'filed', { incidentId: 'INC-D' }));
      const watcher = await makeStore(name);
      await watcher.open({ readOnly: true });
      const seen = latestOf(await loadAll(watcher));
      await watcher.close();
      assert.equal(the(seen, 'L').heldElsewhere, true, 'held by a live run');
      assert.notEqual(the(seen, 'D').heldElsewhere, true, 'a final record is held by nobody');
      await holder.close(); // as a run that died: L stays sending, its lease no longer renewed
      await new Promise((resolve) => setTimeout(resolve, (options.leaseMs as number) * 1.25));
      const reviewer = await makeStore(name);
      await reviewer.open();
      try {
        const after = latestOf(await loadAll(reviewer));
        const left = the(after, 'L');
        assert.equal(left.state, 'sending');
        assert.notEqual(left.heldElsewhere, true, "a dead run's sending record needs review");
        // A person's resolution goes through the same conditional write.
        const resolution = record('L', 'filed', { incidentId: 'INC-L', resolvedBy: 'user' });
        assert.deepEqual(await reviewer.claim(resolution, left), { taken: true });
      } finally {
        await reviewer.close();
      }
    });
  });
}

function runner(options: JournalStoreContractOptions): { describe: Describe; it: It } {
  const globals = globalThis as { describe?: Describe; it?: It };
  // Stryker disable next-line LogicalOperator: the node:test fallback is run by test/batch/contract-node-test.test.ts, under `node --test` in a child process Stryker cannot see
  const describe = options.describe ?? globals.describe ?? (nodeTest.describe as unknown as Describe);
  const it =
    options.it ??
    globals.it ??
    // Stryker disable next-line ArrowFunction,ObjectLiteral: as above, the node:test fallback is run in a child process
    ((name: string, body: () => Promise<void>, timeout?: number) => nodeTest.it(name, { timeout }, body));
  return { describe, it };
}

let cases = 0;
/** A journal name of its own for each case: `[a-z0-9_]`, unique across processes. */
function journalName(): string {
  cases++;
  return `j${cases}_${randomBytes(5).toString('hex')}`;
}

// Stryker disable StringLiteral,ObjectLiteral,ArrayDeclaration,BooleanLiteral: test data; any other values make the same cases
function record(
  key: string,
  state: JournalRecord['state'],
  extra: Partial<JournalRecord> = {},
): JournalRecord {
  return { key, state, bodyHash: `h-${key}`, at: '2026-11-26T10:00:00.000Z', ...extra };
}

/** Records whose fields a store could get wrong: digits as a key, control characters, nested problems. */
function sampleRecords(): JournalRecord[] {
  const odd = 'Schaden\tü€\n"7"\\';
  return [
    record('7001', 'sending'),
    record('7001', 'filed', { incidentId: '7001', requestId: 'req-1' }),
    record(odd, 'sending'),
    record(odd, 'rejected', {
      status: 422,
      error: 'refused: "incidentDate" \u001b[2J',
      problems: { errors: [{ field: 'incidentDate', code: 3, ok: false, none: null }], n: 1.5 },
    }),
    record('U', 'sending'),
    record('U', 'unknown', { status: 503, error: 'may have been processed' }),
    record('U', 'filed', { incidentId: 'INC-U', resolvedBy: 'user' }),
    record('S', 'sending'),
  ];
}
// Stryker restore StringLiteral,ObjectLiteral,ArrayDeclaration,BooleanLiteral

/** The latest record of `key`, which must be there. */
function the(latest: Map<string, JournalRecord>, key: string): JournalRecord {
  const found = latest.get(key);
  assert.ok(found, `the journal has no record of ${JSON.stringify(key)}`);
  return found;
}

function latestOf(records: JournalRecord[]): Map<string, JournalRecord> {
  const latest = new Map<string, JournalRecord>();
  for (const r of records) latest.set(r.key, r);
  return latest;
}

/** The record's own fields (a store may add its own, e.g. a version, and `heldElsewhere`). */
function fieldsOf(r: JournalRecord): Partial<JournalRecord> {
  const out: Record<string, unknown> = {};
  // A field missing on both sides compares equal as `undefined`; `null` for a missing one does not.
  for (const name of FIELDS) out[name] = r[name];
  return out as Partial<JournalRecord>;
}

async function loadAll(store: JournalStore): Promise<JournalRecord[]> {
  const out: JournalRecord[] = [];
  for await (const r of store.load()) out.push(r);
  return out;
}

function isCode(code: string): (error: unknown) => boolean {
  // Stryker disable next-line OptionalChaining: a rejection with null fails the check either way (a TypeError is rethrown by assert.rejects)
  return (error) => (error as { code?: unknown } | null)?.code === code;
}
