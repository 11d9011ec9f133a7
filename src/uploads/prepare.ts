import { Readable } from 'node:stream';
import { ClaimsValidationError, type ValidationIssue } from '../errors.js';
import type { StreamBody } from '../transport.js';
import { statFile } from './file.js';
import type { Part, Source } from './inputs.js';
import { openMultipart } from './multipart-stream.js';
import { checkItems } from './parts.js';
import type { UploadProgressListener } from './progress.js';
import { SourceState } from './source-failure.js';

/** A checked upload, ready to send: the multipart body and what the answer must match. */
export interface PreparedUpload {
  /** The request body; `open()` builds a fresh multipart stream for each attempt. */
  body: StreamBody;
  /** How many files the body carries: the answer must hold one record per file. */
  files: number;
  /** Set when a source failed while being sent (a caller's stream erroring, a file vanishing). */
  sourceFailure(): { filename: string; error: unknown } | undefined;
}

/**
 * Checks upload items and builds their multipart body: {@link prepareUpload} on Node, the edge
 * entry's `prepareWebUpload` (web streams) elsewhere.
 */
export type PrepareUpload = (
  items: readonly unknown[],
  issuePath: (index: number) => string,
  onProgress?: UploadProgressListener,
) => Promise<PreparedUpload>;

/**
 * Checks upload items before anything is sent and builds their multipart body. Paths are
 * opened and stat-ed here (missing, a directory, unreadable: all reported at once), so a
 * bad path is a `ClaimsValidationError` and never a half-sent request.
 * @param issuePath names item `i` in issues, e.g. `files[0]` or `attachments[2].file`.
 * @throws ClaimsValidationError listing every problem.
 */
export async function prepareUpload(
  items: readonly unknown[],
  issuePath: (index: number) => string,
  onProgress?: UploadProgressListener,
): Promise<PreparedUpload> {
  const parts = checkItems(items, issuePath).map(asNodeReadable);

  const state = new SourceState();
  for (const part of parts) {
    // A caller's Node stream may fail before its turn, or before the request even starts:
    // listen from now on (before the first await), so such an error fails the upload instead
    // of crashing the process.
    if (part.source.kind === 'readable') state.watch(part.source.stream, part.filename);
  }

  // Checked in parallel; problems are reported in the order of the items, not of completion.
  const checks = parts.map((part, i) => {
    const issues: ValidationIssue[] = [];
    const size = sizeOf(part.source, (message) => issues.push({ path: issuePath(i), message }));
    return { issues, size };
  });
  const sizes = await Promise.all(checks.map((check) => check.size));
  const issues = checks.flatMap((check) => check.issues);
  if (issues.length > 0) throw new ClaimsValidationError(issues);
  const body: StreamBody = {
    replayable: parts.every((p) => p.source.kind !== 'readable' && p.source.kind !== 'web'),
    open: () => openMultipart(parts, sizes, state, onProgress),
  };
  return { body, files: parts.length, sourceFailure: () => state.failure };
}

/** The part with an old-style stream (`pipe`/`on`/`read`, not a `Readable`) wrapped in a `Readable`. */
function asNodeReadable(part: Part): Part {
  const { source } = part;
  if (source.kind !== 'readable' || source.stream instanceof Readable) return part;
  const wrapped = new Readable().wrap(source.stream as NodeJS.ReadableStream);
  return { ...part, source: { kind: 'readable', stream: wrapped } };
}

/** The byte size of a source, `undefined` when only reading it would tell (a stream). */
async function sizeOf(source: Source, problem: (message: string) => void): Promise<number | undefined> {
  if (source.kind === 'bytes') return source.bytes.byteLength;
  if (source.kind === 'blob') return source.blob.size;
  if (source.kind === 'path') return statFile(source.path, problem);
  return undefined; // a Node or web stream
}
