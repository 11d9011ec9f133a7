import { readFile } from 'node:fs/promises';
import { echo, plainText } from '../batch/echo.js';
import type { LineProblem } from '../batch/errors.js';
import { extendedFieldsFrom } from '../extended-fields.js';
import { UsageError } from './exit-codes.js';

/** What a batch file holds: its lines as parsed values (with their line numbers) and lines that did not parse. */
export interface ParsedInput {
  lines: Array<{ line: number; key?: unknown; incident?: unknown }>;
  problems: LineProblem[];
  /** Claim lines in the file (blank lines and the CSV header not counted), parsed or not. */
  count: number;
}

/**
 * Reads a batch: JSON Lines (`{ "key": ..., "incident": {...} }` a line; blank lines skipped)
 * or, for a `.csv` file, a header row with `key`, the incident's fields, and extended fields as
 * columns named by their identifier (`claim_form:Cause_Of_Loss`; empty cells left out).
 */
export async function readBatchFile(path: string): Promise<ParsedInput> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${echo(path)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  return path.toLowerCase().endsWith('.csv') ? parseCsv(text) : parseJsonLines(text);
}

export function parseJsonLines(text: string): ParsedInput {
  const lines: ParsedInput['lines'] = [];
  const problems: LineProblem[] = [];
  let count = 0;
  // A byte-order mark (an editor's UTF-8 with BOM) is not part of the first line.
  for (const [i, raw] of text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .entries()) {
    const line = i + 1;
    if (raw.trim() === '') continue;
    count++;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problems.push({
        line,
        key: undefined,
        path: '',
        message: `not valid JSON (${(error as Error).message})`,
      });
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push({
        line,
        key: undefined,
        path: '',
        message: 'must be an object { "key": ..., "incident": {...} }',
      });
      continue;
    }
    lines.push({ ...(value as object), line });
  }
  return { lines, problems, count };
}

async function parseCsv(text: string): Promise<ParsedInput> {
  // Loaded here only: a user of the SDK, or of a JSON Lines batch, never loads it.
  const { parse } = await import('csv-parse/sync');
  let rows: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    rows = parse(text, {
      delimiter: delimiterOf(text),
      columns: uniqueColumns,
      skip_empty_lines: true,
      bom: true,
      trim: true,
      info: true,
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot parse the CSV: ${plainText((error as Error).message)}`);
  }
  const lines = rows.map(({ record: row, info }) => {
    const incident: Record<string, unknown> = {};
    const extended: Record<string, string> = {};
    for (const [column, value] of Object.entries(row)) {
      if (column === 'key') continue;
      if (column.includes(':')) {
        if (value !== '') extended[column] = value;
      } else if (value !== '') incident[column] = value;
    }
    if (Object.keys(extended).length > 0) incident.extendedFields = extendedFieldsFrom(extended);
    return { line: info.lines, key: row.key, incident };
  });
  return { lines, problems: [], count: lines.length };
}

/**
 * The CSV's separator, read from its header row: `,`, or `;` (what a spreadsheet saves in
 * locales whose decimal mark is a comma) when the header names the `key` column only when
 * split at `;`.
 */
export function delimiterOf(text: string): ',' | ';' {
  const header =
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .find((line) => line.trim() !== '') ?? '';
  const names = (separator: string) =>
    header.split(separator).map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'));
  return !names(',').includes('key') && names(';').includes('key') ? ';' : ',';
}

/** The header row as column names; a column named twice is refused (which of the two would be sent?). */
function uniqueColumns(header: string[]): string[] {
  if (!header.includes('key')) {
    throw new UsageError(
      `the CSV header has no "key" column (it names ${header.length} column(s): ${header
        .slice(0, 5)
        .map((name) => echo(name))
        .join(
          ', ',
        )}${header.length > 5 ? ', ...' : ''}); the first row must name the columns, separated by , or ;`,
    );
  }
  const seen = new Set<string>();
  for (const name of header) {
    if (seen.has(name)) throw new UsageError(`the CSV header names the column ${echo(name)} twice`);
    seen.add(name);
  }
  return header;
}
