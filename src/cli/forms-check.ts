import { verdictOf } from '../forms/changes.js';
import { checkForms } from '../forms/check.js';
import { describeChanges } from '../forms/describe.js';
import { readSnapshotFile } from '../forms/files.js';
import { DEFAULT_SNAPSHOT_FILE } from '../forms/snapshot-file.js';
import { clientFromEnv } from './client-from-env.js';
import { EXIT, UsageError } from './exit-codes.js';
import { reportError } from './output.js';

/** The options of `claims forms check`, as commander parses them. */
export interface FormsCheckOptions {
  snapshot?: string;
  json?: boolean;
}

const EXIT_OF_VERDICT = { none: EXIT.ok, breaking: EXIT.failed, compatible: EXIT.compatibleOnly } as const;

/**
 * `claims forms check [--snapshot FILE] [--json]`: exit 0 no change, 1 a breaking change,
 * 3 compatible changes only, 4 could not compare, 2 bad usage (no snapshot, a broken one).
 */
export async function formsCheck(options: FormsCheckOptions): Promise<number> {
  const file = options.snapshot ?? DEFAULT_SNAPSHOT_FILE;
  const snapshot = await readSnapshotFile(file);
  if (snapshot === undefined)
    throw new UsageError(`no snapshot at ${file}: make one with \`claims forms pull\``);
  // Closed by runCli when the command ends (closeClients).
  const client = clientFromEnv();
  let changes: Awaited<ReturnType<typeof checkForms>>;
  try {
    changes = await checkForms(client, snapshot);
  } catch (error) {
    reportError(error);
    process.stderr.write('claims: could not compare the forms (exit 4)\n');
    return EXIT.couldNotCompare;
  }
  if (options.json) process.stdout.write(`${JSON.stringify(changes)}\n`);
  else {
    const forms = Object.keys(snapshot.forms).length;
    process.stdout.write(
      changes.length === 0
        ? `claims: no change in the ${forms} form(s) of ${file}\n`
        : describeChanges(changes),
    );
  }
  return EXIT_OF_VERDICT[verdictOf(changes)];
}
