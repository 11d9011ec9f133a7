import { Journal } from '../batch/journal.js';
import type { JournalRecord } from '../batch/record.js';
import { EXIT, UsageError } from './exit-codes.js';
import { printResult } from './output.js';

/** `claims journal list --journal <path> [--all]`: the keys needing review (or every key). */
export async function journalList(options: {
  journal: string;
  all?: boolean;
  json?: boolean;
}): Promise<number> {
  const journal = await Journal.open(options.journal);
  try {
    const records: JournalRecord[] = options.all ? [...journal.records()] : journal.needingReview();
    if (options.json) printResult(records, true);
    else if (records.length === 0) process.stdout.write('claims: no key needs review\n');
    else {
      for (const r of records) {
        const detail =
          r.incidentId ?? r.error ?? (r.state === 'sending' ? 'the run stopped while it was being sent' : '');
        process.stdout.write(`${r.key}\t${r.state}\t${r.at}\t${detail}\n`);
      }
    }
    return EXIT.ok;
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
        ? `claims: ${key} resolved as filed (${record.incidentId}); it will not be sent again`
        : `claims: ${key} resolved as not filed; the next import sends it`,
    );
    return EXIT.ok;
  } finally {
    await journal.close();
  }
}
