import type { JournalRecord } from '../../src/batch/record.js';

/** A journal record for store tests: a key's body hash is `h-<key>`, written at one fixed time. */
export const rec = (
  key: string,
  state: JournalRecord['state'],
  extra: Partial<JournalRecord> = {},
): JournalRecord => ({
  key,
  state,
  bodyHash: `h-${key}`,
  at: '2026-11-26T10:00:00.000Z',
  ...extra,
});
