// The `claims-notification-sdk/batch/postgres` entry: the SDK's PostgreSQL stores, the
// submission journal shared by runs on many machines and the webhook receivers' delivery
// store. Loads `pg` (an optional peer) only when a store connects.
export type { PostgresConnection, PostgresPool, PostgresPoolClient, PostgresResult } from './connection.js';
export { PostgresDeliveryStore, type PostgresDeliveryStoreOptions } from './delivery-store.js';
export {
  type JournalStatus,
  type JournalTotals,
  type JournalWorkerStatus,
  PostgresJournalStore,
  type PostgresJournalStoreOptions,
} from './journal-store.js';
