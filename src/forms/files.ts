import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ClaimsClientBase } from '../client.js';
import type { FormSnapshot } from '../form-snapshot.js';
import type { IncidentFieldsQuery } from '../schemas/metadata.js';
import { generateFormsModule } from './generate.js';
import { JSON_SCHEMA_MARK, jsonSchemaFiles } from './json-schema.js';
import { type PullResult, pullForms } from './pull.js';
import { parseSnapshot, serializeSnapshot } from './snapshot-file.js';

/**
 * The snapshot file at `path`, checked; `undefined` when there is none.
 * @throws ClaimsValidationError when it is not a snapshot (named, with every problem).
 */
export async function readSnapshotFile(path: string): Promise<FormSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseSnapshot(text, path);
}

/** What became of one file: written (new or changed) or left as it was (same bytes). */
export type FileOutcome = 'written' | 'unchanged';

/** What `pullToFiles` did. */
export interface PullFilesReport extends PullResult {
  /** The snapshot file. */
  snapshotFile: FileOutcome;
  /** The generated module, when asked for. */
  module?: FileOutcome;
  /** The JSON Schema files, when asked for: names written, unchanged, and removed (forms no longer pulled). */
  schemas?: { written: string[]; unchanged: string[]; removed: string[] };
}

/** What `claims forms pull` is asked to do. */
export interface PullFilesRequest {
  /** The forms named; none means `all`, or the forms of the snapshot already there. */
  forms?: readonly IncidentFieldsQuery[];
  /** Every form the programmes operation lists. */
  all?: boolean;
  /** The snapshot file, read first (its forms kept when unchanged) and written. */
  snapshotFile: string;
  /** Where to write the generated TypeScript module. */
  out?: string | undefined;
  /** A folder for one JSON Schema per form. */
  jsonSchemaDir?: string | undefined;
  /** Where the forms are read from, as recorded (`sourceOf(baseUrl)`). */
  source: string;
  /** The time recorded for forms that changed. @default now */
  now?: Date;
}

/**
 * `claims forms pull`: reads the forms, then writes the snapshot and, as asked, the module
 * and the JSON Schemas. Nothing is written until every form was read. Each file is written
 * whole (a temporary file renamed over it) and only when its bytes change, so an idle pull
 * leaves every file, and `git status`, as it was.
 */
export async function pullToFiles(
  client: ClaimsClientBase,
  request: PullFilesRequest,
): Promise<PullFilesReport> {
  const previous = await readSnapshotFile(request.snapshotFile);
  const result = await pullForms(client, {
    ...(request.forms ? { forms: request.forms } : {}),
    ...(request.all ? { all: true } : {}),
    previous,
    source: request.source,
    ...(request.now ? { now: request.now } : {}),
  });
  const report: PullFilesReport = {
    ...result,
    snapshotFile: await writeIfChanged(request.snapshotFile, serializeSnapshot(result.snapshot)),
  };
  if (request.out !== undefined)
    report.module = await writeIfChanged(request.out, generateFormsModule(result.snapshot));
  if (request.jsonSchemaDir !== undefined)
    report.schemas = await writeSchemas(request.jsonSchemaDir, result.snapshot);
  return report;
}

/** Writes `text` to `path` unless the file already holds exactly it; never leaves half a file. */
export async function writeIfChanged(path: string, text: string): Promise<FileOutcome> {
  const now = await readFile(path, 'utf8').catch(() => undefined);
  if (now === text) return 'unchanged';
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return 'written';
}

/**
 * One schema per form in `dir`; a `.json` file there that an earlier pull wrote (it carries
 * the generator's mark) for a form no longer pulled is removed. Other files are left alone.
 */
async function writeSchemas(
  dir: string,
  snapshot: FormSnapshot,
): Promise<NonNullable<PullFilesReport['schemas']>> {
  const files = jsonSchemaFiles(snapshot);
  const report = { written: [] as string[], unchanged: [] as string[], removed: [] as string[] };
  await mkdir(dir, { recursive: true });
  for (const [name, text] of files) report[await writeIfChanged(join(dir, name), text)].push(name);
  for (const name of (await readdir(dir)).sort()) {
    if (!name.endsWith('.json') || files.has(name)) continue;
    if (await isOurSchema(join(dir, name))) {
      await rm(join(dir, name), { force: true });
      report.removed.push(name);
    }
  }
  return report;
}

/** A JSON file whose `$comment` starts with the generator's mark: one an earlier pull wrote. */
async function isOurSchema(path: string): Promise<boolean> {
  try {
    const comment: unknown = JSON.parse(await readFile(path, 'utf8')).$comment;
    return typeof comment === 'string' && comment.startsWith(JSON_SCHEMA_MARK);
  } catch {
    return false;
  }
}
