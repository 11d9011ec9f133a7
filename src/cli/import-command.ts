import { writeFile } from 'node:fs/promises';
import { describeLineProblem, type LineProblem } from '../batch/errors.js';
import { fileClaims } from '../batch/file-claims.js';
import type { ClaimResult } from '../batch/result.js';
import type { ClaimInput } from '../batch/validate-claims.js';
import { validateClaims } from '../batch/validate-claims.js';
import { clientFromEnv } from './client-from-env.js';
import { EXIT, UsageError } from './exit-codes.js';
import { progressView } from './progress.js';
import { readBatchFile } from './read-input.js';

export interface ImportOptions {
  journal?: string;
  concurrency: string;
  report?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** `claims import <file>`: returns the exit code. */
export async function importCommand(file: string, options: ImportOptions): Promise<number> {
  const concurrency = Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
    throw new UsageError('--concurrency must be a whole number from 1 to 256');
  }
  const parsed = await readBatchFile(file);
  const client = clientFromEnv();
  if (options.dryRun) return dryRun(client, parsed, options.json === true);
  if (parsed.problems.length > 0)
    return printProblems(parsed.problems, parsed.lines.length, options.json === true);

  const journal = options.journal ?? `${file}.journal`;
  const stop = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) {
      process.stderr.write(
        'claims: stopped at once; claims in flight stay `sending` in the journal, for review\n',
      );
      process.exit(EXIT.interrupted);
    }
    view?.note(
      'claims: stopping: no new claims are sent; waiting for those in flight (Ctrl-C again to quit now)',
    );
    stop.abort();
  };
  let view: Awaited<ReturnType<typeof progressView>> | undefined;
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const results: ClaimResult[] = [];
  try {
    view = await progressView(parsed.lines.length);
    const progress = view;
    for await (const result of fileClaims(client, parsed.lines as ClaimInput[], {
      journal,
      concurrency,
      signal: stop.signal,
      onProgress: (p) => progress.update(p),
    })) {
      results.push(result);
    }
  } finally {
    view?.stop();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
  results.sort((a, b) => a.line - b.line);
  const report = results.map(reportEntry);
  if (options.report) await writeFile(options.report, `${JSON.stringify(report, null, 2)}\n`);
  if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else printSummary(results, journal);
  const allFiled = results.every((r) => r.state === 'filed' && r.note !== 'conflict');
  return allFiled ? EXIT.ok : EXIT.failed;
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

function printSummary(results: ClaimResult[], journal: string): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const count = (state: ClaimResult['state']) => results.filter((r) => r.state === state).length;
  out(
    `claims: ${results.length} claim(s): filed ${count('filed')}, rejected ${count('rejected')}, unknown ${count('unknown')}, not sent ${count('not_sent')}`,
  );
  for (const r of results) {
    if (r.state === 'filed' && r.note !== 'conflict') continue;
    out(`  line ${r.line} ${JSON.stringify(r.key)}: ${r.state} (${r.note})${r.error ? `: ${r.error}` : ''}`);
  }
  if (results.some((r) => r.state === 'unknown')) {
    out(
      `  unknown claims may exist: look them up, then run: claims journal resolve --journal ${journal} <key> --filed <incidentId> | --not-filed`,
    );
  }
}

async function dryRun(
  client: ReturnType<typeof clientFromEnv>,
  parsed: Awaited<ReturnType<typeof readBatchFile>>,
  json: boolean,
): Promise<number> {
  const { problems } = await validateClaims(client, parsed.lines);
  const all = [...parsed.problems, ...problems].sort((a, b) => a.line - b.line);
  return printProblems(all, parsed.lines.length + parsed.problems.length, json);
}

function printProblems(problems: LineProblem[], lines: number, json: boolean): number {
  if (json) process.stdout.write(`${JSON.stringify({ lines, problems })}\n`);
  else if (problems.length === 0)
    process.stdout.write(`claims: ${lines} line(s) checked: all valid; nothing was sent\n`);
  else {
    process.stderr.write(`claims: ${problems.length} problem(s) in ${lines} line(s); nothing was sent:\n`);
    for (const problem of problems) process.stderr.write(`  ${describeLineProblem(problem)}\n`);
  }
  return problems.length === 0 ? EXIT.ok : EXIT.usage;
}
