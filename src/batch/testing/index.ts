// The `claims-notification-sdk/batch/testing` entry: the journal store contract, as test
// cases a store of yours (and the SDK's own stores) run.
export {
  type Describe,
  type It,
  type JournalStoreContractOptions,
  journalStoreContract,
  type MakeStore,
} from './contract.js';
