import { echo, keyText, plainText } from '../batch/echo.js';
import { Journal } from '../batch/journal.js';
import type { JournalRecord } from '../batch/record.js';
import { EXIT, UsageError } from './exit-codes.js';
import { printResult } from './output.js';
import { checkJournalPath } from './paths.js';

/**
 * `claims journal list --journal <path> [--all]`: the keys needing review (or every key).
 * Read-only: it writes nothing, takes no lock (it works while an import runs, and on a
 * read-only mount), and a journal that is not there is an error. Exit 1 when a key needs
 * review.
 */
export async function journalList(options: {
  journal: string;
  all?: boolean;
  json?: boolean;
}): Promise<number> {
  await checkJournalPath(options.journal, true);
  const journal = await Journal.open(options.journal, { readOnly: true });
  try {
    const review = journal.needingReview();
    const records: JournalRecord[] = options.all ? [...journal.records()] : review;
    if (options.json) printResult(records, true);
    else if (records.length === 0) process.stdout.write('claims: no key needs review\n');
    else {
      for (const r of records) {
        const detail =
          r.incidentId ?? r.error ?? (r.state === 'sending' ? 'the run stopped while it was being sent' : '');
        process.stdout.write(`${keyText(r.key)}\t${r.state}\t${plainText(r.at, 40)}\t${plainText(detail)}\n`);
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
  options: { journal: string; filed?: string; notFiled?: boolean; json?: boolean },
): Promise<number> {
  if ((options.filed === undefined) === (options.notFiled !== true)) {
    throw new UsageError('give exactly one of --filed <incidentId> or --not-filed');
  }
  // A mistyped path must not become an empty journal.
  await checkJournalPath(options.journal, true);
  const journal = await Journal.open(options.journal);
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
