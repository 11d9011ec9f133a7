// The `claims-notification-sdk/batch/postgres` entry: the submission journal in PostgreSQL,
// shared by runs on many machines. Loads `pg` (an optional peer) only when a store connects.
export type { PostgresConnection, PostgresPool, PostgresPoolClient, PostgresResult } from './connection.js';
export {
  type JournalStatus,
  type JournalTotals,
  type JournalWorkerStatus,
  PostgresJournalStore,
  type PostgresJournalStoreOptions,
} from './journal-store.js';
