import { echo, keyText, plainText } from '../batch/echo.js';
import { Journal } from '../batch/journal.js';
import type { JournalRecord, JournalState } from '../batch/record.js';
import { EXIT, UsageError } from './exit-codes.js';
import { type JournalLocation, journalLocation, journalStoreAt } from './journal-location.js';
import { printResult } from './output.js';
import { checkJournalPath } from './paths.js';

/**
 * `claims journal list --journal <path> [--all]`: the keys needing review (or every key).
 * Read-only: it writes nothing, takes no lock (it works while an import runs, and on a
 * read-only mount), and a journal that is not there is an error. Exit 1 when a key needs
 * review.
 */
export async function journalList(options: {
  journal?: string;
  journalTable?: string;
  all?: boolean;
  json?: boolean;
}): Promise<number> {
  const journal = await openJournal(options, true);
  try {
    const review = journal.needingReview();
    const records: JournalRecord[] = options.all ? [...journal.records()] : review;
    if (options.json) printResult(records, true);
    else if (records.length === 0) process.stdout.write('claims: no key needs review\n');
    else {
      for (const r of records) {
        // Named as the import's report names it: a `sending` record reads `unknown`.
        const detail =
          r.state !== 'sending'
            ? (r.incidentId ?? r.error ?? '')
            : r.heldElsewhere
              ? 'being sent by a live run now (taken_elsewhere)'
              : 'its run stopped while it was being sent (needs_review)';
        const state = r.state === 'sending' ? 'unknown' : r.state;
        process.stdout.write(`${keyText(r.key)}\t${state}\t${plainText(r.at, 40)}\t${plainText(detail)}\n`);
      }
    }
    return review.length > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    await journal.close();
  }
}

/** `claims journal resolve --journal <path> <key> --filed <incidentId> | --not-filed`. */
export async function journalResolve(
  key: string,
  options: { journal?: string; journalTable?: string; filed?: string; notFiled?: boolean; json?: boolean },
): Promise<number> {
  if ((options.filed === undefined) === (options.notFiled !== true)) {
    throw new UsageError('give exactly one of --filed <incidentId> or --not-filed');
  }
  const journal = await openJournal(options, false);
  try {
    const record = await journal.resolve(
      key,
      options.filed === undefined ? { notFiled: true } : { filed: options.filed },
    );
    printResult(
      record,
      options.json === true,
      record.state === 'filed'
        ? `claims: ${echo(key)} resolved as filed (${echo(record.incidentId)}); it will not be sent again`
        : `claims: ${echo(key)} resolved as not filed; the next import sends it`,
    );
    return EXIT.ok;
  } finally {
    await journal.close();
  }
}

/**
 * Opens the journal a command names. A mistyped file path must not become an empty journal,
 * and a PostgreSQL journal is opened read-only first, so that a mistyped table is refused
 * (`not_found`) rather than created.
 */
async function openJournal(
  options: { journal?: string; journalTable?: string },
  readOnly: boolean,
): Promise<Journal> {
  const location = journalLocation(options.journal, options.journalTable, undefined);
  if (location.kind === 'file') await checkJournalPath(location.path, true);
  else if (!readOnly) await (await Journal.open(await journalStoreAt(location), { readOnly: true })).close();
  return Journal.open(await journalStoreAt(location), readOnly ? { readOnly } : {});
}

const STATES: JournalState[] = ['filed', 'rejected', 'unknown', 'not_sent', 'sending'];

/** One worker's counts, as `journal status` prints and `--json` gives them. */
interface WorkerCounts {
  worker: string;
  counts: Record<JournalState, number>;
  inFlight: number;
  lastWrite?: string;
}

/**
 * `claims journal status [--journal …] [--json]`: every worker's counts and the totals
 * (read-only). A file journal has one writer at a time: its counts are the journal's.
 * Exit 1 when a key needs review.
 */
export async function journalStatus(options: {
  journal?: string;
  journalTable?: string;
  json?: boolean;
}): Promise<number> {
  const location = journalLocation(options.journal, options.journalTable, undefined);
  const journal = await openJournal(options, true);
  try {
    const status = await statusOf(journal, location);
    const review = journal.needingReview().length;
    if (options.json) printResult({ ...status, needingReview: review }, true);
    else {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      out(['worker', ...STATES, 'in_flight'].join('\t'));
      for (const w of [...status.workers, { worker: 'total', ...status.totals }]) {
        out(
          [plainText(w.worker, 80), ...STATES.map((s) => String(w.counts[s])), String(w.inFlight)].join('\t'),
        );
      }
      out(
        review > 0
          ? `claims: ${review} key(s) need review: claims journal list`
          : 'claims: no key needs review',
      );
    }
    return review > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    await journal.close();
  }
}

async function statusOf(
  journal: Journal,
  location: JournalLocation,
): Promise<{ workers: WorkerCounts[]; totals: Omit<WorkerCounts, 'worker'> }> {
  const store = journal.store as {
    status?: () => Promise<{
      workers: WorkerCounts[];
      totals: Record<JournalState, number> & { inFlight: number };
    }>;
  };
  if (typeof store.status === 'function') {
    const { workers, totals } = await store.status();
    const { inFlight, ...counts } = totals;
    return { workers, totals: { counts, inFlight } };
  }
  const counts: Record<JournalState, number> = { sending: 0, filed: 0, rejected: 0, unknown: 0, not_sent: 0 };
  for (const record of journal.records()) counts[record.state]++;
  return {
    workers: [{ worker: location.shown, counts, inFlight: 0 }],
    totals: { counts: { ...counts }, inFlight: 0 },
  };
}
