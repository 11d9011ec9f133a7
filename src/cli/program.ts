import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { closeClients } from './client-from-env.js';
import { EXIT } from './exit-codes.js';
import { addFormsCommands } from './forms-commands.js';
import { importCommand } from './import-command.js';
import { journalList, journalResolve, journalStatus } from './journal-command.js';
import { addOperations } from './operations.js';
import { reportError } from './output.js';
import { addSubscriptionsAsCode, usageExitCode } from './subscriptions-plan.js';
import { addRotateHeader } from './webhooks-rotate.js';

const HELP_FOOTER = `
Environment: CLAIMS_BASE_URL (the API's base address) and CLAIMS_TOKEN (the bearer token), or
CLAIMS_TOKEN_URL, CLAIMS_CLIENT_ID, CLAIMS_CLIENT_SECRET (and CLAIMS_SCOPE) for OAuth client
credentials; CLAIMS_JOURNAL (a postgres:// journal; its password there or in PGPASSWORD).
Exit codes: 0 done (import: every key filed); 1 something was not done (journal list: a key needs
review); 2 bad usage or input; 130 stopped by Ctrl-C; 143 stopped by SIGTERM;
forms check: 1 breaking changes, 3 compatible changes only, 4 could not compare.`;

/** Runs the `claims` command line and resolves to its exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  let code: number = EXIT.ok;
  const run = async (action: () => Promise<number>) => {
    try {
      code = await action();
    } catch (error) {
      code = reportError(error);
    } finally {
      await closeClients();
    }
  };
  const program = new Command('claims')
    .description('The Claims Notification API from the command line')
    .version(VERSION)
    .addHelpText('after', HELP_FOOTER)
    .exitOverride()
    .showHelpAfterError();

  program
    .command('import')
    .description('file a batch of incidents, each at most once, recorded in a crash-safe journal')
    .argument('<file>', 'JSON Lines, one { "key": ..., "incident": {...} } a line (or a .csv file)')
    .option(
      '--journal <path|url>',
      "the journal of each key's state: a file (default: <file>.journal) or postgres://user@host/db (or CLAIMS_JOURNAL)",
    )
    .option('--journal-table <name>', 'the table of a postgres:// journal (default: claims_journal)')
    .option(
      '--journal-lease <seconds>',
      "postgres:// journal: how long a dead worker's keys read as in flight before they need review (default: 30)",
    )
    .option('--concurrency <n>', 'claims sent at once', '8')
    .option('--report <path>', 'write a JSON array, one { key, state, incidentId?, error? } per line')
    .option('--files-root <dir>', "{ file } attachments must be in this folder (default: the input file's)")
    .option('--dry-run', 'validate every line (with extended fields against metadata); send nothing')
    .option('--json', 'print the report as JSON only')
    .action((file: string, o: Parameters<typeof importCommand>[1]) => run(() => importCommand(file, o)));

  const journal = program.command('journal').description('the keys of a journal whose claim may exist');
  journal
    .command('list')
    .description('list keys needing review (sending or unknown)')
    .option('--journal <path|url>', 'a journal file or postgres:// URL (or CLAIMS_JOURNAL)')
    .option('--journal-table <name>', 'the table of a postgres:// journal (default: claims_journal)')
    .option('--all', 'every key, with its state')
    .option('--json', 'print JSON only')
    .action((o: Parameters<typeof journalList>[0]) => run(() => journalList(o)));
  journal
    .command('resolve')
    .description('settle a key after looking on the server: --filed <incidentId> or --not-filed')
    .argument('<key>')
    .option('--journal <path|url>', 'a journal file or postgres:// URL (or CLAIMS_JOURNAL)')
    .option('--journal-table <name>', 'the table of a postgres:// journal (default: claims_journal)')
    .option('--filed <incidentId>', 'the claim exists: never send it again')
    .option('--not-filed', 'the claim does not exist: the next import sends it')
    .option('--json', 'print JSON only')
    .action((key: string, o: Parameters<typeof journalResolve>[1]) => run(() => journalResolve(key, o)));
  journal
    .command('status')
    .description("every worker's counts by state, and the totals (read-only)")
    .option('--journal <path|url>', 'a journal file or postgres:// URL (or CLAIMS_JOURNAL)')
    .option('--journal-table <name>', 'the table of a postgres:// journal (default: claims_journal)')
    .option('--json', 'print JSON only')
    .action((o: Parameters<typeof journalStatus>[0]) => run(() => journalStatus(o)));

  addOperations(program, run);
  addSubscriptionsAsCode(program, run);
  addRotateHeader(program, run);
  addFormsCommands(program, run);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ||
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version'
        ? EXIT.ok
        : usageExitCode(argv, error.message);
    }
    return reportError(error);
  }
  return code;
}
