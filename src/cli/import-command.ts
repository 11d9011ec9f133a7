import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { echo, plainText } from '../batch/echo.js';
import { BatchStoppedError, describeLineProblem, type LineProblem } from '../batch/errors.js';
import { fileClaims } from '../batch/file-claims.js';
import type { BatchProgress, ClaimResult } from '../batch/result.js';
import type { ClaimInput } from '../batch/validate-claims.js';
import { type ValidateOptions, validateClaims } from '../batch/validate-claims.js';
import { clientFromEnv } from './client-from-env.js';
import { EXIT, UsageError } from './exit-codes.js';
import {
  type JournalLocation,
  journalLocation,
  journalStoreAt,
  journalWords,
  withLease,
} from './journal-location.js';
import { checkDistinct, checkJournalPath, checkWritable } from './paths.js';
import { progressView } from './progress.js';
import { readBatchFile } from './read-input.js';

export interface ImportOptions {
  journal?: string;
  journalTable?: string;
  journalLease?: string;
  concurrency: string;
  report?: string;
  filesRoot?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** Exit codes of a run stopped by a signal (the first stops cleanly; a second quits at once). */
const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = {
  SIGINT: EXIT.interrupted,
  SIGTERM: EXIT.terminated,
};

/** `claims import <file>`: returns the exit code. */
export async function importCommand(file: string, options: ImportOptions): Promise<number> {
  const concurrency = Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
    throw new UsageError('--concurrency must be a whole number from 1 to 256');
  }
  const client = clientFromEnv();
  const location = withLease(
    journalLocation(options.journal, options.journalTable, `${file}.journal`),
    options.journalLease,
  );
  // Relative `{ file }` paths are read from the input file's folder; files must be in it, or in --files-root.
  const filesRelativeTo = resolve(dirname(file));
  const filesRoot = options.filesRoot === undefined ? filesRelativeTo : resolve(options.filesRoot);
  if (!options.dryRun) {
    if (location.kind === 'file') await checkJournalPath(location.path, false);
    const named = [
      { option: 'the input file', path: file },
      ...(location.kind === 'file' ? [{ option: '--journal', path: location.path }] : []),
      ...(options.report ? [{ option: '--report', path: options.report }] : []),
    ];
    await checkDistinct(named);
    if (options.report) await checkWritable(options.report, '--report');
  }
  const parsed = await readBatchFile(file);
  // A real run checks exactly what --dry-run checks, and says every problem of every line at
  // once; refused, it opens no journal and writes the problems as its report.
  const problems = await checkAll(client, parsed, { filesRoot, filesRelativeTo, checkProgrammes: true });
  if (options.dryRun) return printProblems(problems, parsed.count, options.json === true);
  if (problems.length > 0) {
    if (options.report) {
      await writeFile(
        options.report,
        `${JSON.stringify({ lines: parsed.count, problems }, null, 2)}\n`,
      ).catch((error: NodeJS.ErrnoException) => {
        process.stderr.write(
          `claims: the report could not be written to ${echo(options.report)} (${error.code ?? plainText(String(error))})\n`,
        );
      });
    }
    return printProblems(problems, parsed.count, options.json === true);
  }
  const journal = await journalStoreAt(location);

  const stop = new AbortController();
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (signalled) {
      process.stderr.write(
        'claims: stopped at once; claims in flight stay `sending` in the journal, for review\n',
      );
      process.exit(SIGNAL_EXIT[signal]);
    }
    signalled = signal;
    view?.note(
      'claims: stopping: no new claims are sent; waiting for those in flight (Ctrl-C again to quit now)',
    );
    stop.abort();
  };
  let view: Awaited<ReturnType<typeof progressView>> | undefined;
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const results: ClaimResult[] = [];
  let stopped: BatchStoppedError | undefined;
  try {
    view = await progressView(parsed.lines.length);
    const progress = view;
    // Counted from the results: a claim left unsent because the batch stopped is not done.
    const shown: BatchProgress = {
      done: 0,
      total: parsed.lines.length,
      inFlight: 0,
      counts: { filed: 0, rejected: 0, unknown: 0, not_sent: 0 },
    };
    for await (const result of fileClaims(client, parsed.lines as ClaimInput[], {
      journal,
      concurrency,
      filesRoot,
      filesRelativeTo,
      signal: stop.signal,
    })) {
      results.push(result);
      if (result.state === 'not_sent' && (result.note === 'aborted' || result.note === 'stopped')) continue;
      shown.done++;
      shown.counts[result.state]++;
      progress.update(shown);
    }
  } catch (error) {
    // Every result came before it: the summary and the report still say what happened.
    if (!(error instanceof BatchStoppedError)) throw error;
    stopped = error;
  } finally {
    view?.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  results.sort((a, b) => a.line - b.line);
  const report = results.map(reportEntry);
  let reportFailed: unknown;
  if (options.report) {
    await writeFile(options.report, `${JSON.stringify(report, null, 2)}\n`).catch((error: unknown) => {
      reportFailed = error;
    });
  }
  if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else printSummary(results, location, signalled !== undefined);
  if (stopped) printStop(stopped, location);
  if (reportFailed !== undefined) {
    process.stderr.write(
      `claims: the report could not be written to ${echo(options.report)} (${(reportFailed as NodeJS.ErrnoException).code ?? plainText(String(reportFailed))})\n`,
    );
  }
  if (signalled) return SIGNAL_EXIT[signalled];
  const allFiled = results.every((r) => r.state === 'filed' && r.note !== 'conflict');
  return allFiled && !stopped && reportFailed === undefined ? EXIT.ok : EXIT.failed;
}

/** One entry of `--report`: `{ key, state, incidentId?, error? }` plus what this run did. */
function reportEntry(r: ClaimResult): Record<string, unknown> {
  return {
    key: r.key,
    line: r.line,
    state: r.state,
    note: r.note,
    ...(r.incidentId === undefined ? {} : { incidentId: r.incidentId }),
    ...(r.requestId === undefined ? {} : { requestId: r.requestId }),
    ...(r.status === undefined ? {} : { status: r.status }),
    ...(r.error === undefined ? {} : { error: r.error }),
    ...(r.problems === undefined ? {} : { problems: r.problems }),
  };
}

/**
 * The counts, then a line per claim that needs attention; claims left unsent because the
 * batch stopped, and claims other workers were sending, are counted, not listed (thousands of
 * lines would say one thing).
 */
function printSummary(results: ClaimResult[], journal: JournalLocation, interrupted: boolean): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const count = (state: ClaimResult['state']) => results.filter((r) => r.state === state).length;
  out(
    `claims: ${results.length} claim(s): filed ${count('filed')}, rejected ${count('rejected')}, unknown ${count('unknown')}, not sent ${count('not_sent')}`,
  );
  let left = 0;
  let elsewhere = 0;
  for (const r of results) {
    if (r.state === 'filed' && r.note !== 'conflict' && r.error === undefined) continue;
    if (r.state === 'not_sent' && (r.note === 'aborted' || r.note === 'stopped')) {
      left++;
      continue;
    }
    if (r.note === 'taken_elsewhere') {
      elsewhere++;
      continue;
    }
    out(`  line ${r.line} ${echo(r.key)}: ${r.state} (${r.note})${r.error ? `: ${plainText(r.error)}` : ''}`);
  }
  if (left > 0) {
    out(
      `  ${left} claim(s) not sent because the batch ${interrupted ? 'was stopped' : 'stopped'}: run the same command again to continue`,
    );
  }
  if (elsewhere > 0) {
    out(
      `  ${elsewhere} claim(s) taken by other workers sharing the journal (taken_elsewhere): once every worker has finished, ` +
        `claims journal status ${journalArgs(journal)} shows the whole batch`,
    );
  }
  if (results.some((r) => r.state === 'unknown' && r.note !== 'taken_elsewhere')) {
    out(
      `  unknown claims may exist: look them up, then run: claims journal resolve ${journalArgs(journal)} <key> --filed <incidentId> | --not-filed`,
    );
  }
}

/** The one line that says why the batch stopped, and how to resolve what the journal could not record. */
function printStop(error: BatchStoppedError, journal: JournalLocation): void {
  const err = (line: string) => process.stderr.write(`${line}\n`);
  err(`claims: stopped: ${plainText(error.message)}`);
  if (error.unrecorded.length === 0) return;
  err(
    `  ${error.unrecorded.length} claim(s) the journal could not record still read "sending"; once it can be written, run:`,
  );
  const resolve = `claims journal resolve ${journalArgs(journal)}`;
  for (const { key, state, incidentId } of error.unrecorded) {
    const word = shellWord(key);
    if (state === 'filed') err(`    ${resolve} ${word} --filed ${shellWord(incidentId as string)}`);
    else if (state === 'unknown')
      err(`    (look it up first: it may exist) ${resolve} ${word} --filed <incidentId> | --not-filed`);
    else err(`    ${resolve} ${word} --not-filed`);
  }
}

/** The journal's options for a printed command, each word quoted for the shell (no password). */
function journalArgs(journal: JournalLocation): string {
  return journalWords(journal).map(shellWord).join(' ');
}

/** A word as a POSIX shell reads it back: as it is when plain, else single-quoted. */
function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return plainText(`'${word.replaceAll("'", `'\\''`)}'`, 400);
}

/** Every problem of every line: those of the file's reading, then every check of the batch's. */
async function checkAll(
  client: ReturnType<typeof clientFromEnv>,
  parsed: Awaited<ReturnType<typeof readBatchFile>>,
  options: ValidateOptions,
): Promise<LineProblem[]> {
  const { problems } = await validateClaims(client, parsed.lines, options);
  return [...parsed.problems, ...problems].sort((a, b) => a.line - b.line);
}

function printProblems(problems: LineProblem[], lines: number, json: boolean): number {
  if (json) process.stdout.write(`${JSON.stringify({ lines, problems })}\n`);
  else if (problems.length === 0)
    process.stdout.write(`claims: ${lines} line(s) checked: all valid; nothing was sent\n`);
  else {
    process.stderr.write(`claims: ${problems.length} problem(s) in ${lines} line(s); nothing was sent:\n`);
    for (const problem of problems) process.stderr.write(`  ${plainText(describeLineProblem(problem))}\n`);
  }
  return problems.length === 0 ? EXIT.ok : EXIT.usage;
}
