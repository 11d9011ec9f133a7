// Run by `node --test` (test/batch/contract-node-test.test.ts): the contract suite with no
// describe/it given and no runner globals falls back to node:test's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { FileJournalStore } from '../../../src/batch/file-store.js';
import { journalStoreContract } from '../../../src/batch/testing/index.js';

const dir = mkdtempSync(join(tmpdir(), 'contract-node-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
journalStoreContract((name) => new FileJournalStore(join(dir, name)), { timeoutMs: 30_000 });
