import { echo } from '../batch/echo.js';
import { JournalError } from '../batch/errors.js';
import { displayUrl } from '../batch/postgres/connection.js';
import type { JournalStore } from '../batch/store.js';
import { UsageError } from './exit-codes.js';

/** Where a command's journal is: a file, or a PostgreSQL table (the URL never shown with its password). */
export type JournalLocation =
  | { kind: 'file'; path: string; shown: string }
  | { kind: 'postgres'; url: string; table: string; shown: string; leaseMs?: number };

const POSTGRES = /^postgres(?:ql)?:\/\//i;

/**
 * The journal a command names: `--journal`, else `CLAIMS_JOURNAL`, else `fallback` (import:
 * `<file>.journal`). A `postgres://` URL is a PostgreSQL journal in `table`.
 */
export function journalLocation(
  option: string | undefined,
  table: string | undefined,
  fallback: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): JournalLocation {
  const where = option ?? (env.CLAIMS_JOURNAL || undefined) ?? fallback;
  if (where === undefined)
    throw new UsageError('name the journal: --journal <path or postgres://…> or CLAIMS_JOURNAL');
  if (!POSTGRES.test(where)) {
    if (table !== undefined) throw new UsageError('--journal-table is for a postgres:// journal');
    return { kind: 'file', path: where, shown: where };
  }
  const name = table ?? 'claims_journal';
  if (!URL.canParse(where)) {
    throw new UsageError('--journal is not a URL postgres://user[:password]@host[:port]/database');
  }
  return { kind: 'postgres', url: where, table: name, shown: displayUrl(where) };
}

/** The store a location names: the file path as is (the file store), or a PostgreSQL store. */
export async function journalStoreAt(location: JournalLocation): Promise<string | JournalStore> {
  if (location.kind === 'file') return location.path;
  const { PostgresJournalStore } = await import('../batch/postgres/journal-store.js');
  try {
    return new PostgresJournalStore({
      connectionString: location.url,
      table: location.table,
      ...(location.leaseMs === undefined ? {} : { leaseMs: location.leaseMs }),
    });
  } catch (error) {
    if (error instanceof JournalError) throw new UsageError(`${error.message} (${echo(location.table)})`);
    throw error;
  }
}

/** The arguments a printed command needs to name this journal again (no password). */
export function journalWords(location: JournalLocation): string[] {
  if (location.kind === 'file' || location.table === 'claims_journal') return ['--journal', location.shown];
  return ['--journal', location.shown, '--journal-table', location.table];
}

/** `--journal-lease <seconds>` of a postgres:// journal, in ms. */
export function withLease(location: JournalLocation, seconds: string | undefined): JournalLocation {
  if (seconds === undefined) return location;
  if (location.kind === 'file') throw new UsageError('--journal-lease is for a postgres:// journal');
  const value = Number(seconds);
  if (!Number.isFinite(value) || value < 0.1 || value > 86_400) {
    throw new UsageError('--journal-lease must be a number of seconds from 0.1 to 86400');
  }
  return { ...location, leaseMs: Math.round(value * 1000) };
}
