import { describe, it } from 'vitest';
import { PostgresJournalStore } from '../../src/batch/postgres/index.js';
import { journalStoreContract } from '../../src/batch/testing/index.js';
import { usePostgres } from './use-postgres.js';

const server = await usePostgres();

describe.skipIf(!server)('PostgresJournalStore against a real PostgreSQL', () => {
  journalStoreContract(
    (name) =>
      new PostgresJournalStore({ connectionString: server?.url, table: `journal_${name}`, leaseMs: 300 }),
    { describe, it, name: 'passes the JournalStore contract (leases of 300 ms)', leaseMs: 300 },
  );
});
